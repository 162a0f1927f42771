// The tool framework's own cost per call: a tool that does nothing (decode, policy, execute, output
// pipeline, result), through a session's scheduler, one call at a time. CPU of this process per call:
// all threads and the main thread. `node bench/noopCall.mjs` (REPS=2000 after 200 warm-ups;
// TOOLWRIGHT_BENCH_DIST for another build). Not part of `npm run bench`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cpuSince, cpuSplit, distDir } from "./lib.mjs"

const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime, Schema } = await import("effect")
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twnoop-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twnoop-s-")))
const noop = tw.defineTool({
  name: "noop",
  displayName: "Noop",
  description: "Does nothing.",
  kind: "read",
  params: Schema.Struct({ x: Schema.String }),
  invoke: (params) =>
    Effect.succeed({ description: "noop", locations: [], execute: () => Effect.succeed(tw.textResult(`ok ${params.x}`)) })
})
const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo", tools: [{ name: "noop", load: Effect.succeed(noop) }] }).pipe(
  Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
)
const rt = ManagedRuntime.make(layer)
const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
const reps = Number(process.env.REPS ?? 2000)
const call = async (i) => {
  const result = await rt.runPromise(scheduler.runOne({ callId: `c${i}`, name: "noop", args: { x: "a" } }))
  if (result._tag !== "Success") throw new Error(JSON.stringify(result))
}
for (let i = 0; i < 200; i++) await call(i)
const before = cpuSplit()
for (let i = 0; i < reps; i++) await call(i)
const cpu = cpuSince(before)
console.log(`no-op call through the scheduler: ${(cpu.total / reps).toFixed(3)} ms CPU (main thread ${(cpu.main / reps).toFixed(3)}, other threads ${(cpu.other / reps).toFixed(3)}); load average ${os.loadavg()[0].toFixed(1)}`)
await rt.dispose()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
