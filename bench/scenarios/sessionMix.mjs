// A session mix under load (issue 18): N sessions in one process, all at once, each doing rounds of
// read_file, an edit of what it read, grep_search, glob and a short command. Reported: calls/s,
// CPU ms per call of this process (all threads; split main JS thread / other threads) and, apart,
// of its children (bash, bwrap, rg), p50/p99 call latency, event-loop delay p99, GC pauses during the
// calls, and the heap of an idle session. The limit is the same round done with raw calls (fs read,
// replace, write; rg; fast-glob; spawn of `echo`), sequentially, here. PROF=<dir> writes
// `mix-<N>.cpuprofile` of the calls only (sessions' start-up and the raw rounds left out); ALLOC=<dir>
// writes `mix-<N>.heapprofile`, V8's sampled allocations during the calls, collected ones included.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as inspector from "node:inspector/promises"
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { cpuPerCallText, cpuSince, cpuSplit, distDir, median, tempDir } from "../lib.mjs"

export const name = "session mix: read, edit, grep, glob, shell in N sessions at once"

// One file per session (100 lines): sessions never edit each other's files, so every edit can land.
const workspace = (n) => {
  const root = tempDir("twbench-mix-")
  fs.mkdirSync(path.join(root, "src"))
  for (let i = 0; i < n; i++) {
    fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
  }
  return root
}

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const rawRound = async (root, i, fg) => {
  const file = path.join(root, "src", `m${i}.ts`)
  const text = fs.readFileSync(file, "utf8")
  fs.writeFileSync(file, text.replace("TODO", "TODO"))
  spawnSync("rg", ["-n", "v1[0-9] =", path.join(root, "src")], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
  await fg("src/*.ts", { cwd: root })
  spawnSync("echo", ["hi"])
}

export const run = async ({ smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const fg = (await import("fast-glob")).default
  // One launch gate for every session of the process, as `serve --http` has (a build without one ignores it).
  const processRoom = await import(path.join(distDir, "process", "index.js"))
  const sizes = smoke ? [3] : process.env.TOOLWRIGHT_MIX_SIZES ? process.env.TOOLWRIGHT_MIX_SIZES.split(",").map(Number) : [10, 100, 1000]
  const rows = []
  const profDir = process.env.PROF
  const allocDir = process.env.ALLOC
  const profiler = profDir || allocDir ? new inspector.Session() : undefined
  if (profiler) profiler.connect()
  if (allocDir) {
    await profiler.post("HeapProfiler.enable")
    fs.mkdirSync(allocDir, { recursive: true })
  }
  if (profiler && profDir) {
    await profiler.post("Profiler.enable")
    await profiler.post("Profiler.setSamplingInterval", { interval: 500 })
    fs.mkdirSync(profDir, { recursive: true })
  }
  for (const n of sizes) {
    const root = workspace(n)
    const state = tempDir("twbench-mix-state-")
    const runtimes = []
    const launchGate = processRoom.makeLaunchGate?.()
    globalThis.gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    for (let s = 0; s < n; s++) {
      const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo", ...(launchGate ? { launchGate } : {}) }).pipe(
        Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
      )
      const rt = ManagedRuntime.make(layer)
      runtimes.push({ rt, scheduler: await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler })) })
    }
    globalThis.gc?.()
    const heapIdle = process.memoryUsage().heapUsed - heapBefore
    const rounds = smoke ? 1 : n >= 1000 ? 1 : n >= 100 ? 2 : 5
    const latencies = []
    let failures = 0
    const codes = new Map()
    const call = async ({ rt, scheduler }, id, name, args) => {
      const t0 = performance.now()
      const r = await rt.runPromise(scheduler.runOne({ callId: id, name, args }))
      latencies.push(performance.now() - t0)
      if (r._tag !== "Success") {
        failures++
        const code = `${name}:${r.code ?? r._tag}`
        codes.set(code, (codes.get(code) ?? 0) + 1)
      }
    }
    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    // pauses by kind: minor (scavenge) and major (mark-compact); the rest (incremental steps, weak callbacks) in neither
    const gc = { count: 0, ms: 0, minor: 0, minorMs: 0, major: 0, majorMs: 0 }
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        gc.count++
        gc.ms += entry.duration
        const kind = entry.detail?.kind
        if (kind === constants.NODE_PERFORMANCE_GC_MINOR) {
          gc.minor++
          gc.minorMs += entry.duration
        } else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
          gc.major++
          gc.majorMs += entry.duration
        }
      }
    })
    gcObserver.observe({ entryTypes: ["gc"] })
    if (profDir) await profiler.post("Profiler.start")
    if (allocDir) {
      await profiler.post("HeapProfiler.startSampling", {
        samplingInterval: 32768,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true
      })
    }
    const cpu0 = cpuSplit()
    const t0 = performance.now()
    await Promise.all(runtimes.map(async (session, s) => {
      const file = `src/m${s}.ts`
      for (let r = 0; r < rounds; r++) {
        await call(session, `${s}-${r}-read`, "read_file", { file_path: file })
        await call(session, `${s}-${r}-edit`, "edit", { file_path: file, old_string: `// line ${r} TODO`, new_string: `// line ${r} DONE` })
        await call(session, `${s}-${r}-grep`, "grep_search", { pattern: "v1[0-9] =", path: "src" })
        await call(session, `${s}-${r}-glob`, "glob", { pattern: "src/*.ts" })
        await call(session, `${s}-${r}-shell`, "run_shell_command", { command: "echo hi" })
      }
    }))
    const wallMs = performance.now() - t0
    const cpu = cpuSince(cpu0)
    if (profDir) fs.writeFileSync(path.join(profDir, `mix-${n}.cpuprofile`), JSON.stringify((await profiler.post("Profiler.stop")).profile))
    if (allocDir) {
      const { profile } = await profiler.post("HeapProfiler.stopSampling")
      fs.writeFileSync(path.join(allocDir, `mix-${n}.heapprofile`), JSON.stringify(profile))
    }
    gcObserver.disconnect()
    const heapAfter = process.memoryUsage().heapUsed
    globalThis.gc?.()
    const heapKept = process.memoryUsage().heapUsed - heapBefore
    const load = os.loadavg()[0]
    const gateStats = launchGate ? await Effect.runPromise(launchGate.stats) : undefined
    loop.disable()
    const calls = latencies.length
    const cpuMsPerCall = cpu.total / calls
    // the limit: the same rounds with raw calls, one after another, in this process
    const rawRounds = Math.min(n * rounds, 200)
    const r0 = performance.now()
    for (let i = 0; i < rawRounds; i++) await rawRound(root, i % n, fg)
    const rawPerCall = (performance.now() - r0) / (rawRounds * 5)
    for (const { rt } of runtimes) await rt.dispose()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(state, { recursive: true, force: true })
    const failed = failures === 0 ? "0 failed" : `${failures} failed (${[...codes].map(([c, k]) => `${c} ×${k}`).join(", ")})`
    // grep_search searches src/, which holds one file per session: its work (10 matching lines a
    // file) grows with N, so CPU per call rises with N even if nothing else does.
    const note = `${rounds} round(s) × 5 calls per session, ${failed}; grep_search over ${n} files, ${n * 10} matching lines a call; ` +
      `CPU ${cpuMsPerCall.toFixed(2)} ms/call (this process); ` +
      `split: ${cpuPerCallText(cpu, calls)}; GC ${gc.count} pauses, ${gc.ms.toFixed(0)} ms ` +
      `(${gc.minor} minor ${gc.minorMs.toFixed(0)} ms, ${gc.major} major ${gc.majorMs.toFixed(0)} ms); heap ${(heapAfter / 1048576).toFixed(0)} MiB after the calls` +
      (globalThis.gc === undefined ? "; " : `, ${((heapKept / n) / 1024).toFixed(0)} KiB per session kept after a full GC; `) +
      `p50 ${median(latencies).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms; event-loop delay p99 ` +
      `${(loop.percentile(99) / 1e6).toFixed(1)} ms; heap ${((heapIdle / n) / 1024).toFixed(0)} KiB per idle session (heap growth / N, before any call); ` +
      `load average ${load.toFixed(1)}` +
      (gateStats === undefined ? "; no launch gate" : `; launch gate K=${gateStats.concurrency}: ${gateStats.admitted} launches, ${gateStats.waited} waited ` +
        `(${(gateStats.waitedMs / Math.max(1, gateStats.waited)).toFixed(0)} ms mean, ${gateStats.maxWaitMs} ms max), ${gateStats.queueTimeouts} given up`)
    rows.push({
      scenario: "session mix (read, edit, grep, glob, echo)",
      size: `${n} sessions`,
      ours: calls / (wallMs / 1000),
      limit: 1000 / rawPerCall,
      unit: "calls/s",
      limitName: "raw calls, one after another (fs, rg, fast-glob, spawn)",
      ratio: (1000 / rawPerCall) / (calls / (wallMs / 1000)),
      note,
      growthWhy: "throughput should hold as sessions are added; the event loop is shared"
    })
  }
  return rows
}
