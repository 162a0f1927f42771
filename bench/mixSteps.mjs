// The session mix taken apart, in one process: N sessions' start-up, their first round (every tool's
// first call in each session), then R rounds one call at a time, R rounds with all sessions at once,
// and R rounds one at a time again. CPU per call (per session for start-up) of this process: all
// threads, main thread, other threads, and its children apart. If the concurrent rounds cost what
// the sequential ones do, the mix's extra over one session's calls is what each session pays once.
// `node bench/mixSteps.mjs` (N=10 sessions, R=3; TOOLWRIGHT_BENCH_DIST for another build). One
// launch gate for all sessions, as in sessionMix. Not part of `npm run bench`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cpuSince, cpuSplit, distDir } from "./lib.mjs"

const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")
const processRoom = await import(path.join(distDir, "process", "index.js"))
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twms-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twms-s-")))
fs.mkdirSync(path.join(root, "src"))
const n = Number(process.env.N ?? 10)
const rounds = Number(process.env.R ?? 3)
for (let i = 0; i < n; i++) {
  fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
}
const callsOf = (s, r) => [
  ["read_file", { file_path: `src/m${s}.ts` }],
  ["edit", { file_path: `src/m${s}.ts`, old_string: `// line ${r} TODO`, new_string: `// line ${r} DONE` }],
  ["grep_search", { pattern: "v1[0-9] =", path: "src" }],
  ["glob", { pattern: "src/*.ts" }],
  ["run_shell_command", { command: "echo hi" }]
]
const launchGate = processRoom.makeLaunchGate?.()
const show = (label, cpu, count, unit) =>
  console.log(
    label.padEnd(30),
    ...[cpu.total, cpu.main, cpu.other, cpu.children].map((x) => (x / count).toFixed(2).padStart(7)),
    ` per ${unit}`
  )
console.log(`${n} sessions; CPU ms: all threads, main thread, other threads, children`)
let before = cpuSplit()
const sessions = []
for (let s = 0; s < n; s++) {
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo", ...(launchGate ? { launchGate } : {}) }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
  )
  const rt = ManagedRuntime.make(layer)
  sessions.push({ rt, scheduler: await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler })) })
}
show("start-up", cpuSince(before), n, "session")
let failed = 0
const round = async (s, r) => {
  for (const [name, args] of callsOf(s, r)) {
    const result = await sessions[s].rt.runPromise(sessions[s].scheduler.runOne({ callId: `c${r}-${name}`, name, args }))
    if (result._tag !== "Success") failed++
  }
}
let r = 0
before = cpuSplit()
for (let s = 0; s < n; s++) await round(s, r)
r++
show("first round, one at a time", cpuSince(before), n * 5, "call")
const sequential = async () => {
  before = cpuSplit()
  for (let k = 0; k < rounds; k++, r++) for (let s = 0; s < n; s++) await round(s, r)
  show(`${rounds} rounds, one at a time`, cpuSince(before), n * 5 * rounds, "call")
}
await sequential()
before = cpuSplit()
const first = r
await Promise.all(sessions.map(async (_, s) => {
  for (let k = 0; k < rounds; k++) await round(s, first + k)
}))
r += rounds
show(`${rounds} rounds, all at once`, cpuSince(before), n * 5 * rounds, "call")
await sequential()
console.log(`failed ${failed}; load average ${os.loadavg()[0].toFixed(1)}`)
for (const { rt } of sessions) await rt.dispose()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
