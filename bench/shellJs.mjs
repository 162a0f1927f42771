// CPU per `run_shell_command` call of our own JS, the launch left out: node-pty is replaced by a
// stand-in (bench/fakePty.cjs: no process, "hi" and exit 0 on the next turns), so what is measured is
// the scheduler, the command's analysis, the sandbox's command line, the environment, the capture and
// the result. `node bench/shellJs.mjs` (DISTS=<dist>,<dist> compares builds in one process, rounds
// interleaved; REPS=200 calls per round, ROUNDS=5; PROF=<dir> writes fake.cpuprofile). Where the
// posix_spawn addon is built, set TOOLWRIGHT_NATIVE_SPAWN=0: its own PTY would bypass the stand-in.
// Not part of `npm run bench`.
import * as fs from "node:fs"; import * as path from "node:path"; import * as os from "node:os"
import * as inspector from "node:inspector/promises"
import { repoRoot } from "./lib.mjs"
const dists = (process.env.DISTS ?? path.join(repoRoot, "dist")).split(",").map((d) => path.resolve(d))
const fakePty = path.join(repoRoot, "bench", "fakePty.cjs")
const { Effect, Layer, ManagedRuntime } = await import("effect")
const reps = Number(process.env.REPS ?? 400), rounds = Number(process.env.ROUNDS ?? 5)
const setups = []
for (const dist of dists) {
  const tw = await import(path.join(dist, "index.js"))
  const shellRoom = await import(path.join(dist, "shell", "index.js"))
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twfk-")))
  const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twfk-s-")))
  const shell = { ...shellRoom.DEFAULT_SHELL_SETTINGS, ptyModule: fakePty }
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })), Layer.provide(Layer.succeed(shellRoom.ShellConfig, shell)))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let k = 0
  const call = async () => { const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name: "run_shell_command", args: { command: "echo hi" } })); if (r._tag !== "Success") throw new Error(r.message) }
  for (let i = 0; i < 20; i++) await call()
  setups.push({ dist, call, cpu: [] })
}
const profDir = process.env.PROF
const profiler = profDir ? new inspector.Session() : undefined
if (profiler) { profiler.connect(); await profiler.post("Profiler.enable"); await profiler.post("Profiler.setSamplingInterval", { interval: 100 }); await profiler.post("Profiler.start") }
for (let r = 0; r < rounds; r++) for (const s of setups) {
  const c0 = process.cpuUsage(); for (let i = 0; i < reps; i++) await s.call(); const c = process.cpuUsage(c0); s.cpu.push((c.user + c.system) / 1000 / reps)
}
if (profiler) { fs.mkdirSync(profDir, { recursive: true }); fs.writeFileSync(path.join(profDir, "fake.cpuprofile"), JSON.stringify((await profiler.post("Profiler.stop")).profile)) }
for (const s of setups) { const sorted = [...s.cpu].sort((a, b) => a - b); console.log(s.dist.padEnd(40), "median ms CPU/call", sorted[sorted.length >> 1].toFixed(3), "all", s.cpu.map((x) => x.toFixed(3)).join(" ")) }
process.exit(0)
