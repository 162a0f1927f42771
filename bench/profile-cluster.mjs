// Per-call cost through the cluster, for profiling: `node [--cpu-prof] bench/profile-cluster.mjs [CALLS] [PROFILE_DIR]`
// starts a private PostgreSQL, one runner of the built CLI and a front in this process, makes 20
// warm-up calls, then CALLS sequential read_file calls of a one-line file; prints wall ms per call
// (p50/p99) and CPU ms per call of the front (this process) and of the runner. With PROFILE_DIR
// the runner runs under `node --cpu-prof --cpu-prof-dir=PROFILE_DIR` (written when it exits; its
// start-up is included) and the front's measured calls are profiled into PROFILE_DIR/front.cpuprofile. TOOLWRIGHT_BENCH_DIST measures another build (its bin/ starts the runner).
import { spawn } from "node:child_process"
import * as inspector from "node:inspector/promises"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { distDir, median } from "./lib.mjs"
import { freePort, startPg } from "./pg.mjs"

const n = Number(process.argv[2] ?? 300)
const profDir = process.argv[3]
const root = fs.mkdtempSync(path.join(os.tmpdir(), "profc-root-")), state = fs.mkdtempSync(path.join(os.tmpdir(), "profc-state-"))
fs.writeFileSync(path.join(root, "small.txt"), "one line\n")
const cli = path.join(distDir, "..", "bin", "toolwright.js")
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]
const procCpuMs = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(f[11]) + Number(f[12])) * 10
}
const selfCpuMs = () => (process.cpuUsage().user + process.cpuUsage().system) / 1000

const pg = await startPg()
const port = await freePort()
const pre = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []
const child = spawn(process.execPath, [...pre, cli, "runner", "--sql", pg.url, "--host", "127.0.0.1", "--port", String(port), "--root", root, "--state-dir", state], {
  cwd: root, stdio: ["ignore", "ignore", "pipe"]
})
await new Promise((resolve, reject) => {
  let err = ""
  child.stderr.on("data", (d) => (err += d, err.includes("toolwright runner ready") && resolve()))
  child.once("exit", (code) => reject(new Error(`runner exited ${code}: ${err}`)))
})
const cluster = await import(path.join(distDir, "cluster", "index.js"))
const { Effect, ManagedRuntime } = await import("effect")
const front = ManagedRuntime.make(cluster.Front.layer({ sqlUrl: pg.url }))
const svc = await front.runPromise(Effect.gen(function*() { return yield* cluster.ClusterFront }))
const ms = []
const profiler = profDir ? new inspector.Session() : undefined
let cpuFront = 0, cpuRunner = 0
for (let i = 0; i < n + 20; i++) {
  if (i === 20 && profiler) (profiler.connect(), await profiler.post("Profiler.enable"), await profiler.post("Profiler.start"))
  if (i === 20) (cpuFront = selfCpuMs(), cpuRunner = procCpuMs(child.pid))
  const t0 = performance.now()
  const r = await front.runPromise(svc.callBatch("prof", [{ callId: `c${i}`, name: "read_file", args: { file_path: "small.txt" } }]))
  if (r.results[0].result.isError) throw new Error(JSON.stringify(r.results[0].result))
  if (i >= 20) ms.push(performance.now() - t0)
}
cpuFront = (selfCpuMs() - cpuFront) / n
if (profiler) fs.writeFileSync(path.join(profDir, "front.cpuprofile"), JSON.stringify((await profiler.post("Profiler.stop")).profile))
cpuRunner = (procCpuMs(child.pid) - cpuRunner) / n
console.log(`${n} calls: p50 ${median(ms).toFixed(2)} ms, p99 ${pct(ms, 99).toFixed(2)} ms; CPU per call: front ${cpuFront.toFixed(2)} ms, runner ${cpuRunner.toFixed(2)} ms; load ${os.loadavg()[0].toFixed(1)}`)
await front.dispose()
await new Promise((r) => (child.once("exit", r), child.kill("SIGTERM")))
await pg.stop()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
process.exit(0)
