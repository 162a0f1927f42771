// Shell output throughput through the fallback (pipes) and PTY paths, beside a bare spawn and a
// bare node-pty read of the same command.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { median, repoRoot, distDir } from "../lib.mjs"

export const name = "shell: output throughput"

const bareSpawn = (cmd) => new Promise((resolve) => {
  const t0 = performance.now()
  const child = spawn("bash", ["-c", cmd], { stdio: ["ignore", "pipe", "ignore"] })
  child.stdout.on("data", () => {})
  child.on("exit", () => resolve(performance.now() - t0))
})

const barePty = (cmd) => new Promise((resolve) => {
  const pty = createRequire(path.join(repoRoot, "package.json"))("node-pty")
  const t0 = performance.now()
  const p = pty.spawn("bash", ["-c", cmd], { cols: 200, rows: 50 })
  p.onData(() => {})
  p.onExit(() => resolve(performance.now() - t0))
})

const ours = async (cmd, pty) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-sh-"))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-state-"))
  process.env.TOOLWRIGHT_SHELL_PTY = pty ? "1" : "0"
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  const t0 = performance.now()
  const r = await rt.runPromise(scheduler.runOne({ callId: "1", name: "run_shell_command", args: { command: cmd, timeout: 600_000 } }))
  const ms = performance.now() - t0
  await rt.dispose()
  if (r._tag !== "Success") throw new Error(`shell failed: ${JSON.stringify(r).slice(0, 500)}`)
  return ms
}

export const run = async ({ runs, smoke }) => {
  const mb = smoke ? 5 : 200
  const ptyMb = smoke ? 2 : 20
  const cmd = (n) => `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${n * 1024 * 1024}`
  const reps = smoke ? 1 : Math.min(runs, 3)
  const times = { pipe: [], bare: [], pty: [], barePty: [] }
  for (let i = 0; i < reps; i++) {
    times.pipe.push(await ours(cmd(mb), false))
    times.bare.push(await bareSpawn(cmd(mb)))
    times.pty.push(await ours(cmd(ptyMb), true))
    times.barePty.push(await barePty(cmd(ptyMb)))
  }
  const rate = (n, ms) => n / (ms / 1000)
  const p = rate(mb, median(times.pipe))
  const b = rate(mb, median(times.bare))
  const t = rate(ptyMb, median(times.pty))
  const bp = rate(ptyMb, median(times.barePty))
  return [
    { scenario: "shell fallback (pipes)", size: `${mb} MB`, ours: p, limit: b, unit: "MB/s", limitName: "bare child_process.spawn", ratio: b / p, note: "ratio = limit/ours (higher is slower); target ≤ 1.5×" },
    { scenario: "shell PTY", size: `${ptyMb} MB`, ours: t, limit: bp, unit: "MB/s", limitName: "bare node-pty read", ratio: bp / t, note: "ratio = limit/ours; target ≤ 1.5×" }
  ]
}
