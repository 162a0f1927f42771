// Shell output throughput through the fallback (pipes) and PTY paths, beside a bare
// child_process.spawn and a bare node-pty read of the same command (each reading into a
// discarding sink), at three sizes; and the peak RSS of a 1 GiB flood on each path, each in a
// fresh process (the PTY one takes ~40 s here: the kernel's PTY moves ~30 MB/s).
//
// The backend is chosen by providing ShellConfig (`pty: "auto"` / `"off"`). (Setting
// TOOLWRIGHT_SHELL_PTY between runs of one process used to measure pipes twice: the variable was
// read through a Reference default, which Effect computes once per process.) Each session proves
// its backend: the result's `data.backend`, and `tty` run through it printing a /dev/pts device
// (PTY) or "not a tty" (pipes). Every measured run checks that the spill file holds the whole
// output (the PTY's \r\n stored as \n), then deletes it outside the timed region.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { median, repoRoot, distDir } from "../lib.mjs"

export const name = "shell: output throughput"

const MiB = 1024 * 1024
const LINE = "0123456789abcdefghijklmnopqrstuvwxyz\n"
const command = (bytes) => `yes ${LINE.trim()} | head -c ${bytes}`

const bareSpawn = (cmd) => new Promise((resolve) => {
  const t0 = performance.now()
  const child = spawn("bash", ["-c", cmd], { stdio: ["ignore", "pipe", "ignore"] })
  child.stdout.on("data", () => {})
  child.on("exit", () => resolve(performance.now() - t0))
})

// Buffers (encoding: null), as our host reads them: no decoding in the limit either.
const barePty = (cmd) => new Promise((resolve) => {
  const pty = createRequire(path.join(repoRoot, "package.json"))("node-pty")
  const t0 = performance.now()
  const p = pty.spawn("bash", ["-c", cmd], { cols: 120, rows: 30, encoding: null })
  p.onData(() => {})
  p.onExit(() => resolve(performance.now() - t0))
})

/** A session whose foreground commands run on the PTY (`pty`) or on pipes; its backend is checked. */
const session = async (pty) => {
  const tw = await import(path.join(distDir, "index.js"))
  const shell = await import(path.join(distDir, "shell", "index.js"))
  const Effect = await import("effect/Effect")
  const Layer = await import("effect/Layer")
  const ManagedRuntime = await import("effect/ManagedRuntime")
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-sh-"))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-state-"))
  const settings = { ...shell.DEFAULT_SHELL_SETTINGS, pty: pty ? "auto" : "off" }
  // The capture pipeline against a bare spawn, both unconfined: the sandbox's own cost is the
  // sandbox scenario's. Several floods of hundreds of MB per session exceed the default session
  // output cap (spill files draw on it), so the bench lifts it.
  process.env.TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES ??= String(64 * 1024 ** 3)
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo", sandbox: { mode: "off" } }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })),
    Layer.provide(Layer.succeed(shell.ShellConfig, settings))
  )
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (cmd) => rt.runPromise(scheduler.runOne({ callId: String(n++), name: "run_shell_command", args: { command: cmd, timeout: 600_000 } }))
  const backend = pty ? "pty" : "child_process"
  const probe = await call("tty || true")
  const text = probe.llmContent?.[0]?.text ?? ""
  if (probe._tag !== "Success" || probe.data?.backend !== backend || !(pty ? /Output: \/dev\/pts\/\d+/ : /Output: not a tty/).test(text)) {
    throw new Error(`expected the ${backend} backend: ${JSON.stringify(probe).slice(0, 800)}`)
  }
  return {
    /** One short command (`echo`): the time of the whole call. */
    short: async (i) => {
      const t0 = performance.now()
      const r = await call(`echo ${i}`)
      const ms = performance.now() - t0
      if (r._tag !== "Success" || r.data?.backend !== backend || !r.llmContent?.[0]?.text?.includes(String(i))) {
        throw new Error(`echo failed: ${JSON.stringify(r).slice(0, 800)}`)
      }
      return ms
    },
    /** Runs the flood; returns ms and the process RSS growth (MiB) during the call. */
    flood: async (bytes) => {
      globalThis.gc?.()
      const baseline = process.memoryUsage().rss
      let peak = baseline
      const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
      const t0 = performance.now()
      const r = await call(command(bytes))
      const ms = performance.now() - t0
      clearInterval(sampler)
      peak = Math.max(peak, process.memoryUsage().rss)
      if (r._tag !== "Success" || r.data?.backend !== backend) throw new Error(`shell failed: ${JSON.stringify(r).slice(0, 800)}`)
      const file = r.data.outputFile
      const size = file ? fs.statSync(file).size : -1
      if (size !== bytes) throw new Error(`the spill file holds ${size} bytes, expected ${bytes}`)
      fs.rmSync(file, { force: true })
      return { ms, growthMiB: (peak - baseline) / MiB }
    },
    dispose: async () => {
      await rt.dispose()
      fs.rmSync(root, { recursive: true, force: true })
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }
}

/** Peak RSS of one flood in a fresh process (this file run as a script). */
const peakInFreshProcess = (pty, bytes) => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "peak", pty ? "pty" : "pipe", String(bytes)], {
    cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], env: process.env
  })
  let out = ""
  let err = ""
  child.stdout.on("data", (d) => (out += d))
  child.stderr.on("data", (d) => (err += d))
  child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").pop())) : reject(new Error(`exit ${code}: ${err.slice(-2000)}`))))
})

const vm = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024

if (process.argv[2] === "peak") {
  const pty = process.argv[3] === "pty"
  const bytes = Number(process.argv[4])
  const s = await session(pty)
  globalThis.gc?.()
  const before = vm("VmRSS")
  const r = await s.flood(bytes)
  const peak = vm("VmHWM")
  await s.dispose()
  console.log(JSON.stringify({ ms: r.ms, peakMiB: peak, beforeMiB: before }))
  process.exit(0)
}

export const run = async ({ runs, smoke }) => {
  const pipeSizes = smoke ? [5] : [50, 100, 200]
  const ptySizes = smoke ? [2] : [20, 50, 200]
  // Pipe floods take well under a second: more runs steady their median; PTY floods take seconds.
  const repsOf = (pty) => (smoke ? 1 : pty ? Math.min(runs, 3) : runs)
  const rows = []
  const rate = (mb, ms) => mb / (ms / 1000)
  for (const [pty, sizes] of [[false, pipeSizes], [true, ptySizes]]) {
    const s = await session(pty)
    // The fixed cost of a call: a short command, beside the bare spawn of it (median of 20).
    const shorts = []
    const bareShorts = []
    for (let i = 0; i < (smoke ? 2 : 21); i++) {
      const ms = await s.short(i)
      const bare = await (pty ? barePty : bareSpawn)(`echo ${i}`)
      if (i === 0) continue
      shorts.push(ms)
      bareShorts.push(bare)
    }
    rows.push({
      scenario: pty ? "shell PTY: one short command" : "shell fallback (pipes): one short command",
      size: "echo",
      ours: median(shorts),
      limit: median(bareShorts),
      unit: "ms",
      limitName: pty ? "bare node-pty spawn to exit" : "bare child_process.spawn to exit",
      ratio: median(shorts) / median(bareShorts),
      note: pty
        ? "the PTY is drained before the call ends: its slave side is held until a mark written to it after the child is gone comes back out (Linux drops what is queued on a hung-up PTY)"
        : "no target; median of 20"
    })
    // Warm-up, both sides: past the 1 MiB kept in memory (so it spills too), long enough for the
    // scan to be optimised.
    const warm = (pty ? 8 : 32) * MiB
    await s.flood(warm)
    await (pty ? barePty : bareSpawn)(command(warm))
    for (const mb of sizes) {
      const bytes = mb * MiB
      const ours = []
      const bare = []
      let growth = 0
      for (let i = 0; i < repsOf(pty); i++) {
        // Ours writes the output to a spill file: start each run with no write-back pending.
        spawnSync("sync")
        const r = await s.flood(bytes)
        ours.push(r.ms)
        growth = Math.max(growth, r.growthMiB)
        spawnSync("sync")
        bare.push(await (pty ? barePty : bareSpawn)(command(bytes)))
      }
      const o = rate(mb, median(ours))
      const b = rate(mb, median(bare))
      rows.push({
        scenario: pty ? "shell PTY" : "shell fallback (pipes)",
        size: `${mb} MB`,
        ours: o,
        limit: b,
        unit: "MB/s",
        limitName: pty ? "bare node-pty read" : "bare child_process.spawn",
        ratio: b / o,
        note: `ratio = limit/ours (higher is slower); target ≤ 1.5×; RSS +${growth.toFixed(0)} MiB during the call`
      })
    }
    await s.dispose()
  }
  // 1 GiB each (smoke: 8 MiB), one run each, in a fresh process so the peak is this flood's own.
  const peakBytes = smoke ? 8 * MiB : 1024 * MiB
  for (const pty of [false, true]) {
    const r = await peakInFreshProcess(pty, peakBytes)
    rows.push({
      scenario: pty ? "shell PTY: peak RSS" : "shell fallback (pipes): peak RSS",
      size: `${peakBytes / MiB} MB`,
      ours: r.peakMiB,
      limit: 300,
      unit: "MiB",
      limitName: "target (300 MB)",
      ratio: r.peakMiB / 300,
      note: `fresh process, ${r.beforeMiB.toFixed(0)} MiB before the call; ${rate(peakBytes / MiB, r.ms).toFixed(0)} MB/s`
    })
  }
  return rows
}
