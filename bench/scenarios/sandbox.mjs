// The command sandbox's cost: the same calls through two sessions, one with the sandbox on
// (workspace-write, bubblewrap) and one with it off. The fixed cost per command (a short `echo`,
// the whole call, median of 20, on pipes and on the PTY; target ≤ +15 ms) and the throughput of a
// 200 MB flood on pipes (target ≤ 1.1× the unsandboxed time). Each sandboxed session proves it is
// confined (a write to /etc must fail) and the unsandboxed one that it is not confined.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median, distDir } from "../lib.mjs"

export const name = "sandbox: fixed cost and throughput"

const MiB = 1024 * 1024
const LINE = "0123456789abcdefghijklmnopqrstuvwxyz"
const flood = (bytes) => `yes ${LINE} | head -c ${bytes}`

const session = async ({ sandbox, pty }) => {
  // Floods of hundreds of MB, several per session: spill files draw on the session's output cap
  // (500 MiB by default), so the bench lifts it rather than measure a cut-off capture.
  process.env.TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES ??= String(64 * 1024 ** 3)
  const tw = await import(path.join(distDir, "index.js"))
  const shell = await import(path.join(distDir, "shell", "index.js"))
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const ManagedRuntime = await import("effect/ManagedRuntime")
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-sbx-"))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-sbx-state-"))
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo", sandbox: { mode: sandbox } }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })),
    Layer.provide(Layer.succeed(shell.ShellConfig, { ...shell.DEFAULT_SHELL_SETTINGS, pty: pty ? "auto" : "off" }))
  )
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (cmd) => rt.runPromise(scheduler.runOne({ callId: String(n++), name: "run_shell_command", args: { command: cmd, timeout: 600_000 } }))
  const probe = path.join(os.tmpdir(), `twbench-sbx-probe-${process.pid}-${sandbox}`)
  const wrote = await call(`touch ${probe}`)
  const confined = !fs.existsSync(probe)
  fs.rmSync(probe, { force: true })
  if (confined !== (sandbox !== "off")) throw new Error(`sandbox ${sandbox}: confined=${confined} ${JSON.stringify(wrote).slice(0, 400)}`)
  return {
    short: async (i) => {
      const t0 = performance.now()
      const r = await call(`echo ${i}`)
      const ms = performance.now() - t0
      if (r._tag !== "Success" || !r.llmContent?.[0]?.text?.includes(String(i))) throw new Error(`echo failed: ${JSON.stringify(r).slice(0, 800)}`)
      return ms
    },
    flood: async (bytes) => {
      const t0 = performance.now()
      const r = await call(flood(bytes))
      const ms = performance.now() - t0
      if (r._tag !== "Success") throw new Error(`flood failed: ${JSON.stringify(r).slice(0, 800)}`)
      const file = r.data.outputFile
      const size = file ? fs.statSync(file).size : -1
      if (size !== bytes) throw new Error(`the spill file holds ${size} bytes, expected ${bytes}`)
      fs.rmSync(file, { force: true })
      return ms
    },
    dispose: async () => {
      await rt.dispose()
      fs.rmSync(root, { recursive: true, force: true })
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }
}

export const run = async ({ runs, smoke }) => {
  const rows = []
  for (const pty of [false, true]) {
    const on = await session({ sandbox: "workspace-write", pty })
    const off = await session({ sandbox: "off", pty })
    const a = []
    const b = []
    // Interleaved, so that a busy moment of the machine weighs on both sides alike; the first is a warm-up.
    for (let i = 0; i < (smoke ? 2 : 21); i++) {
      const x = await on.short(i)
      const y = await off.short(i)
      if (i === 0) continue
      a.push(x)
      b.push(y)
    }
    rows.push({
      scenario: `sandbox: one short command (${pty ? "PTY" : "pipes"})`,
      size: "echo",
      ours: median(a),
      limit: median(b),
      unit: "ms",
      limitName: "same call, --sandbox off",
      ratio: median(a) / median(b),
      note: `+${(median(a) - median(b)).toFixed(1)} ms per command (target ≤ +15 ms); median of 20`
    })
    if (!pty) {
      const bytes = (smoke ? 5 : 200) * MiB
      await on.flood(32 * MiB)
      await off.flood(32 * MiB)
      const fa = []
      const fb = []
      for (let i = 0; i < (smoke ? 1 : Math.min(runs, 5)); i++) {
        fa.push(await on.flood(bytes))
        fb.push(await off.flood(bytes))
      }
      const mb = bytes / MiB
      rows.push({
        scenario: "sandbox: output flood (pipes)",
        size: `${mb} MB`,
        ours: mb / (median(fa) / 1000),
        limit: mb / (median(fb) / 1000),
        unit: "MB/s",
        limitName: "same call, --sandbox off",
        ratio: median(fa) / median(fb),
        note: "ratio = sandboxed time / unsandboxed time (target ≤ 1.1×)"
      })
    }
    await on.dispose()
    await off.dispose()
  }
  return rows
}
