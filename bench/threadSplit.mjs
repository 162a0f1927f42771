// Where a grep_search (or glob) call's CPU goes, by thread: one session, REPS calls (default 100) after
// WARMUP (default 5; a few hundred let the JIT settle), over FILES files (default 10). Per call: CPU of
// this process (children not counted), split into the main thread and the others (V8's platform
// workers: concurrent compilation, GC; libuv's pool) from /proc/self/task/*/schedstat, minor page
// faults and user/sys ticks per thread group, scavenges. BYTID=1 lists every thread. Linux only; not
// part of `npm run bench`. `node bench/threadSplit.mjs` (ONLY=grep; TOOLWRIGHT_BENCH_DIST for another build).
import * as fs from "node:fs"
import * as path from "node:path"
import * as os from "node:os"
import { distDir } from "./lib.mjs"
const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twth-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twth-s-")))
fs.mkdirSync(path.join(root, "src"))
for (let i = 0; i < Number(process.env.FILES ?? 10); i++) fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
const rt = ManagedRuntime.make(layer)
const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
let k = 0
const call = async (name, args) => { const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name, args })); if (r._tag !== "Success") console.error(name, r.code, r.message?.slice(0, 200)) }
const tools = { grep: () => call("grep_search", { pattern: "v1[0-9] =", path: "src" }), glob: () => call("glob", { pattern: "src/*.ts" }) }
const snap = () => { const m = new Map(); for (const t of fs.readdirSync("/proc/self/task")) { try { const comm = fs.readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim(); const ns = Number(fs.readFileSync(`/proc/self/task/${t}/schedstat`, "utf8").split(" ")[0]); const st = fs.readFileSync(`/proc/self/task/${t}/stat`, "utf8"); const f = st.slice(st.lastIndexOf(")") + 2).split(" "); m.set(t, { comm: t === String(process.pid) ? "MAIN" : comm, ns, flt: Number(f[7]), ut: Number(f[11]), stt: Number(f[12]) }) } catch {} } return m }
const reps = Number(process.env.REPS ?? 100)
const { PerformanceObserver, constants: pc } = await import("node:perf_hooks")
const gcKinds = new Map()
const obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) { const kind = e.detail?.kind ?? e.kind; gcKinds.set(kind, (gcKinds.get(kind) ?? 0) + 1) } })
obs.observe({ entryTypes: ["gc"] })
for (const name of (process.env.ONLY ?? "grep,glob").split(",")) {
  for (let i = 0; i < Number(process.env.WARMUP ?? 5); i++) await tools[name]()
  gcKinds.clear(); const s0 = snap(); const c0 = process.cpuUsage()
  for (let i = 0; i < reps; i++) { if (process.env.MARK && i === reps >> 1) console.log("=== HALF"); await tools[name]() }
  const c = process.cpuUsage(c0); const s1 = snap()
  const by = new Map(); const flt = new Map(); const tk = new Map()
  for (const [t, v] of s1) { const d = v.ns - (s0.get(t)?.ns ?? 0); const key = process.env.BYTID ? `${v.comm}#${t}` : v.comm; by.set(key, (by.get(key) ?? 0) + d); flt.set(key, (flt.get(key) ?? 0) + v.flt - (s0.get(t)?.flt ?? 0)); const o = tk.get(key) ?? [0, 0]; tk.set(key, [o[0] + v.ut - (s0.get(t)?.ut ?? 0), o[1] + v.stt - (s0.get(t)?.stt ?? 0)]) }
  console.log(name, "cpu ms/call", ((c.user + c.system) / 1000 / reps).toFixed(2), "user", (c.user / 1000 / reps).toFixed(2), "sys", (c.system / 1000 / reps).toFixed(2), "|", [...by].filter(([, d]) => d > 0).map(([n, d]) => `${n} ${(d / 1e6 / reps).toFixed(2)}`).join(", "), "| gc per call (kind:n)", [...gcKinds].map(([kd, n]) => `${kd}:${(n / reps).toFixed(2)}`).join(" "), "heap MiB", (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0))
  console.log("  minor faults per call:", [...flt].map(([n, x]) => `${n} ${(x / reps).toFixed(0)}`).join(", "), "| ticks user/sys per call:", [...tk].map(([n, [u, y]]) => `${n} ${(u * 10 / reps).toFixed(1)}/${(y * 10 / reps).toFixed(1)} ms`).join(", "))
}
await rt.dispose()
fs.rmSync(root, { recursive: true, force: true }); fs.rmSync(state, { recursive: true, force: true })
