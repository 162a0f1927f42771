// CPU per call of each tool of the session mix, one session, one call at a time (process.cpuUsage of
// this process, split main JS thread / other threads; its children — bash, bwrap, rg — apart):
// `node bench/perTool.mjs` (TOOLWRIGHT_BENCH_DIST for another
// build, ONLY=edit,shell for some tools, REPS=40 calls each after WARMUP=3 warm-ups; FILES=10 files in src/, which
// grep_search searches: the session mix has one a session; PROF=<dir> writes a
// `<tool>.cpuprofile` of the measured calls only, warm-ups and start-up left out). Not part of `npm run bench`.
import * as fs from "node:fs"
import * as path from "node:path"
import * as os from "node:os"
import * as inspector from "node:inspector/promises"
import { cpuPerCallText, cpuSince, cpuSplit, distDir } from "./lib.mjs"
const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twpt-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twpt-s-")))
fs.mkdirSync(path.join(root, "src"))
const N = Number(process.env.FILES ?? 10)
for (let i = 0; i < N; i++) fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
const rt = ManagedRuntime.make(layer)
const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
let k = 0
let edits = 0
const call = async (name, args) => { const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name, args })); if (r._tag !== "Success") console.error(name, r.code, r.message?.slice(0, 200)) }
const reps = Number(process.env.REPS ?? 30)
const tools = {
  read: (r) => call("read_file", { file_path: "src/m0.ts" }),
  edit: async () => { const line = edits++ % 100; await call("read_file", { file_path: "src/m1.ts" }); await call("edit", { file_path: "src/m1.ts", old_string: `// line ${line} ${edits > 100 ? "DONE" : "TODO"}`, new_string: `// line ${line} ${edits > 100 ? "TODO" : "DONE"}` }) },
  grep: (r) => call("grep_search", { pattern: "v1[0-9] =", path: "src" }),
  glob: (r) => call("glob", { pattern: "src/*.ts" }),
  shell: (r) => call("run_shell_command", { command: "echo hi" }),
}
const only = process.env.ONLY?.split(",")
const profDir = process.env.PROF
const profiler = profDir ? new inspector.Session() : undefined
if (profiler) { profiler.connect(); await profiler.post("Profiler.enable"); await profiler.post("Profiler.setSamplingInterval", { interval: 200 }); fs.mkdirSync(profDir, { recursive: true }) }
for (const [name, f] of Object.entries(tools)) {
  if (only && !only.includes(name)) continue
  for (let i = 0; i < Number(process.env.WARMUP ?? 3); i++) await f(i)
  if (profiler) await profiler.post("Profiler.start")
  const c0 = process.cpuUsage(); const split0 = cpuSplit(); const t0 = performance.now()
  for (let i = 0; i < reps; i++) await f(i)
  const c = process.cpuUsage(c0); const split = cpuSince(split0)
  if (profiler) fs.writeFileSync(path.join(profDir, `${name}.cpuprofile`), JSON.stringify((await profiler.post("Profiler.stop")).profile))
  console.log(name.padEnd(6), "cpu ms/call", ((c.user + c.system) / 1000 / reps).toFixed(2), "(user", (c.user/1000/reps).toFixed(2), "sys", (c.system/1000/reps).toFixed(2) + ")", "wall ms/call", ((performance.now() - t0) / reps).toFixed(1), "|", cpuPerCallText(split, reps))
}
await rt.dispose()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
