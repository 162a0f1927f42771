// The launch alone, at the size of a real session process: a session is built and warmed with ten
// grep_search calls (as bench/perTool.mjs does), then REPS (default 100) bare child_process.spawn
// of `rg --json` over the same files, reading and JSON-parsing its output; CPU per launch of this
// process, main thread and others. Compare with bench/threadSplit.mjs: what a grep_search call
// costs beyond its launch. Linux only; not part of `npm run bench`.
import * as fs from "node:fs"
import * as path from "node:path"
import * as os from "node:os"
import { spawn } from "node:child_process"
import { distDir } from "./lib.mjs"
const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twth-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twth-s-")))
fs.mkdirSync(path.join(root, "src"))
for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
const rt = ManagedRuntime.make(layer)
const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
let k = 0
const call = async (name, args) => { const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name, args })); if (r._tag !== "Success") console.error(name, r.code, r.message?.slice(0, 200)) }
for (let i = 0; i < 10; i++) await call("grep_search", { pattern: "v1[0-9] =", path: "src" })
const snap = () => { const m = new Map(); for (const t of fs.readdirSync("/proc/self/task")) { try { const ns = Number(fs.readFileSync(`/proc/self/task/${t}/schedstat`, "utf8").split(" ")[0]); m.set(t, ns) } catch {} } return m }
const run = () => new Promise((res) => { const c = spawn("rg", ["--json", "--ignore-case", "--regexp", "v1[0-9] =", "--", "."], { cwd: path.join(root, "src"), stdio: ["ignore", "pipe", "pipe"] }); const lines = []; c.stdout.on("data", (d) => lines.push(d)); c.on("close", () => { const out = Buffer.concat(lines).toString().split("\n").filter(Boolean).map((l) => JSON.parse(l)); res(out.length) }) })
for (let i = 0; i < 5; i++) await run()
const reps = Number(process.env.REPS ?? 100)
const s0 = snap(); const c0 = process.cpuUsage()
for (let i = 0; i < reps; i++) await run()
const c = process.cpuUsage(c0); const s1 = snap()
let main = 0, other = 0
for (const [t, ns] of s1) { const d = (ns - (s0.get(t) ?? 0)) / 1e6 / reps; if (t === String(process.pid)) main += d; else other += d }
console.log("bare rg in session process: cpu ms/call", ((c.user + c.system) / 1000 / reps).toFixed(2), "main", main.toFixed(2), "other", other.toFixed(2), "rss MiB", (process.memoryUsage().rss / 2 ** 20).toFixed(0))
await rt.dispose()
fs.rmSync(root, { recursive: true, force: true }); fs.rmSync(state, { recursive: true, force: true })
