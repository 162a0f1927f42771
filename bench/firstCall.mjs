// CPU of each session-mix tool's calls by round, N fresh sessions one after another: round 0 is
// every session's first call of each tool (lazy tool factories, first-use services, probes), rounds
// 1 and 2 are the steady state. What round 0 costs beyond round 1 is paid once per session, so it
// weighs more in the mix the more sessions and the fewer rounds each does (1,000 sessions: 1 round).
// `node bench/firstCall.mjs` (N=20 sessions; TOOLWRIGHT_BENCH_DIST for another build; PROF=<dir>
// writes round0.cpuprofile and round1.cpuprofile). CPU of this process, all threads / main thread.
// Each session first loads the five tools (`ToolRegistry.ensure`: the lazy factory), reported apart,
// so round 0 is the first calls of loaded tools. One session is started and used before the N, so
// module imports and the JIT's first compilations are left out.
import * as fs from "node:fs"
import * as inspector from "node:inspector/promises"
import * as os from "node:os"
import * as path from "node:path"
import { cpuSince, cpuSplit, distDir } from "./lib.mjs"

const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twfc-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twfc-s-")))
fs.mkdirSync(path.join(root, "src"))
const n = Number(process.env.N ?? 20)
for (let i = 0; i <= n; i++) {
  fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
}
const callsOf = (s, r) => [
  ["read_file", { file_path: `src/m${s}.ts` }],
  ["edit", { file_path: `src/m${s}.ts`, old_string: `// line ${r} TODO`, new_string: `// line ${r} DONE` }],
  ["grep_search", { pattern: "v1[0-9] =", path: "src" }],
  ["glob", { pattern: "src/*.ts" }],
  ["run_shell_command", { command: "echo hi" }]
]
const profDir = process.env.PROF
const profiler = profDir ? new inspector.Session() : undefined
if (profiler) {
  profiler.connect()
  await profiler.post("Profiler.enable")
  await profiler.post("Profiler.setSamplingInterval", { interval: 200 })
  fs.mkdirSync(profDir, { recursive: true })
}
const start = async () => {
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  return { rt, scheduler: await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler })) }
}
let k = 0
// the warm-up session: imports every tool module and runs each tool twice
const warm = await start()
for (let r = 0; r < 2; r++) for (const [name, args] of callsOf(n, 50 + r)) await warm.rt.runPromise(warm.scheduler.runOne({ callId: `w${k++}`, name, args }))
await warm.rt.dispose()
const sessions = []
const setup0 = cpuSplit()
for (let s = 0; s < n; s++) sessions.push(await start())
const setup = cpuSince(setup0)
const ensure = new Map()
for (const { rt } of sessions) {
  const registry = await rt.runPromise(Effect.gen(function*() { return yield* tw.Registry.ToolRegistry }))
  for (const [name] of callsOf(0, 0)) {
    const before = cpuSplit()
    await rt.runPromise(registry.ensure(name))
    const cpu = cpuSince(before)
    const sum = ensure.get(name) ?? ensure.set(name, { total: 0, main: 0 }).get(name)
    sum.total += cpu.total
    sum.main += cpu.main
  }
}
const rows = new Map()
for (let r = 0; r < 3; r++) {
  if (profiler && r < 2) await profiler.post("Profiler.start")
  for (let s = 0; s < n; s++) {
    for (const [name, args] of callsOf(s, r)) {
      const before = cpuSplit()
      const result = await sessions[s].rt.runPromise(sessions[s].scheduler.runOne({ callId: `c${k++}`, name, args }))
      if (result._tag !== "Success") console.error(name, result.code, result.message)
      const cpu = cpuSince(before)
      const row = rows.get(name) ?? rows.set(name, [0, 1, 2].map(() => ({ total: 0, main: 0 }))).get(name)
      row[r].total += cpu.total
      row[r].main += cpu.main
    }
  }
  if (profiler && r < 2) fs.writeFileSync(path.join(profDir, `round${r}.cpuprofile`), JSON.stringify((await profiler.post("Profiler.stop")).profile))
}
const f = (x) => (x / n).toFixed(2).padStart(6)
console.log(`${n} sessions; CPU ms per call (all threads / main thread); load average ${os.loadavg()[0].toFixed(1)}`)
console.log(`session start-up          ${f(setup.total)} / ${f(setup.main)}`)
console.log("tool                 ensure (load)    round 0 (first)    round 1          round 2")
const sums = [0, 1, 2].map(() => ({ total: 0, main: 0 }))
for (const [name, row] of rows) {
  const e = ensure.get(name)
  console.log(name.padEnd(20), `${f(e.total)} / ${f(e.main)}  `, row.map((c) => `${f(c.total)} / ${f(c.main)}`).join("  "))
  row.forEach((c, r) => { sums[r].total += c.total; sums[r].main += c.main })
}
const ensured = [...ensure.values()].reduce((a, e) => ({ total: a.total + e.total, main: a.main + e.main }), { total: 0, main: 0 })
console.log("round".padEnd(20), `${f(ensured.total)} / ${f(ensured.main)}  `, sums.map((c) => `${f(c.total)} / ${f(c.main)}`).join("  "))
for (const { rt } of sessions) await rt.dispose()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
