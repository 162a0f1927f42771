// Shared helpers for benchmark scenarios: timing, medians, peak RSS of child processes.
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
/** The built library the scenarios measure: `dist/`, or `TOOLWRIGHT_BENCH_DIST` (a build elsewhere under the repo, so engineers working in parallel can measure their own build). */
export const distDir = process.env.TOOLWRIGHT_BENCH_DIST ? path.resolve(process.env.TOOLWRIGHT_BENCH_DIST) : path.join(repoRoot, "dist")

/** Median of numbers. */
export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

/** Runs `fn` `warmup` times, then `runs` times; returns the median in ms. */
export const timeMedian = async (fn, { runs = 5, warmup = 1 } = {}) => {
  for (let i = 0; i < warmup; i++) await fn()
  const times = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  return median(times)
}

/** Runs a command and returns { ms, maxRssKb, stdout } (GNU time gives the peak RSS when present). */
export const runProcess = (command, args, options = {}) => {
  const t0 = performance.now()
  const r = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1024 * 1024 * 1024, ...options })
  const ms = performance.now() - t0
  if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${r.stderr}`)
  return { ms, stdout: r.stdout, stderr: r.stderr }
}

/** Peak RSS (KiB) of a node script run in a fresh process, via /proc polling of the child. */
export const peakRssOf = (args, options = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"], ...options })
    let peak = 0
    let out = ""
    let err = ""
    const poll = setInterval(() => {
      try {
        const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8")
        const m = /VmHWM:\s+(\d+)/.exec(status)
        if (m) peak = Math.max(peak, Number(m[1]))
      } catch {}
    }, 5)
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.on("exit", (code) => {
      clearInterval(poll)
      if (code !== 0) reject(new Error(`exit ${code}: ${err}`))
      else resolve({ peakKb: peak, stdout: out })
    })
  })

/** A fresh temp dir. */
export const tempDir = (prefix = "twbench-") => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n))

/** The search scenarios' tree: `files` small files in 100 × 100 folders, one in ten holding `needle`. */
export const generateSearchTree = (root, files) => {
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 100}`, `e${Math.floor(i / 100) % 100}`)
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `f${i}.txt`), i % 10 === 0 ? `alpha\nneedle ${i}\nomega\n` : `alpha\nbeta ${i}\nomega\n`)
  }
}

/** A yolo session over `root` from the built library: `call(name, args)` (throws on a failure) and `dispose()`. */
export const benchSession = async (root) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-state-"))
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = async (name, args) => {
    const result = await rt.runPromise(scheduler.runOne({ callId: String(n++), name, args }))
    if (result._tag !== "Success") throw new Error(`${name} failed: ${JSON.stringify(result)}`)
    return result
  }
  return { call, dispose: () => rt.dispose() }
}

/** Each fn's times (ms), run in turn `runs` times after `warmup` rounds: a change in load hits every side alike. */
export const interleaved = async (fns, { runs, warmup = 1 }) => {
  for (let i = 0; i < warmup; i++) for (const fn of fns) await fn()
  const times = fns.map(() => [])
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) {
      const t0 = performance.now()
      await fn()
      times[k].push(performance.now() - t0)
    }
  }
  return times
}

/** A full `rg` run (exit 1, no match, is fine). */
export const rgRun = (args) => () => {
  const r = spawnSync("rg", args, { maxBuffer: 1024 * 1024 * 1024 })
  if (r.status !== 0 && r.status !== 1) throw new Error(`rg exited ${r.status}: ${r.stderr}`)
}

/** `rg` stopped (with `signal`) once it has printed `count` lines; resolves to the lines seen. */
export const rgFirst = (args, count, signal = "SIGTERM") => () =>
  new Promise((resolve, reject) => {
    const child = spawn("rg", args, { stdio: ["ignore", "pipe", "ignore"] })
    let lines = 0
    child.stdout.on("data", (chunk) => {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++
      if (lines >= count) child.kill(signal)
    })
    child.on("error", reject)
    child.on("close", () => resolve(lines))
  })

// Linux clock ticks per second (the unit of /proc's cutime/cstime); 100 on every Linux this runs on.
const CLOCK_TICKS = 100

/**
 * This process's CPU so far (ms), split so that no change can look cheaper by moving work elsewhere:
 * `total` (process.cpuUsage: every thread), `main` (the JS thread, from its schedstat, in ns),
 * `children` (children reaped so far: bash, bwrap, rg, …; /proc/self/stat cutime + cstime, 10 ms
 * ticks). NaN where /proc is missing.
 */
export const cpuSplit = () => {
  const { user, system } = process.cpuUsage()
  const total = (user + system) / 1000
  try {
    const main = Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6
    const stat = fs.readFileSync("/proc/self/stat", "utf8")
    // after "pid (comm) ": field 3 (state) is index 0, so cutime (field 16) is 13 and cstime 14
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const children = ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS
    return { total, main, children }
  } catch {
    return { total, main: NaN, children: NaN }
  }
}

/** CPU (ms) since `before` (a `cpuSplit()`): total, main thread, other threads (total − main), children. */
export const cpuSince = (before) => {
  const now = cpuSplit()
  const total = now.total - before.total
  const main = now.main - before.main
  return { total, main, other: total - main, children: now.children - before.children }
}

/** "12.3 ms/call (main 8.1 / other threads 4.2), children 5.0 ms/call" for `cpu` (a `cpuSince`) over `calls`. */
export const cpuPerCallText = (cpu, calls) =>
  `${(cpu.total / calls).toFixed(2)} ms/call (main thread ${(cpu.main / calls).toFixed(2)} / other threads ${(cpu.other / calls).toFixed(2)}), ` +
  `children ${(cpu.children / calls).toFixed(2)} ms/call`
