// Per-call overhead of the scheduler for a no-op Read tool, against a direct function call.
import * as path from "node:path"
import { repoRoot, distDir, tempDir, timeMedian } from "../lib.mjs"

export const name = "scheduler: per-call overhead (no-op Read tool)"

export const run = async ({ runs, smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, Schema, ManagedRuntime } = await import("effect")
  const noop = tw.defineTool({
    name: "noop", displayName: "Noop", description: "does nothing", kind: tw.Kind.Read,
    params: Schema.Struct({ x: Schema.Int.annotate({ description: "x" }) }),
    invoke: (p) => Effect.succeed({ description: "noop", execute: () => Effect.succeed(tw.textResult(String(p.x))) })
  })
  const layer = tw.SessionLayer.layer({
    roots: [tempDir()], stateDir: tempDir(), builtins: false, tools: [{ name: "noop", load: Effect.succeed(noop) }]
  }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const runtime = ManagedRuntime.make(layer)
  const scheduler = await runtime.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  const n = smoke ? 200 : 5_000
  const callsPerBatch = 1
  const ours = await timeMedian(async () => {
    for (let i = 0; i < n; i++) await runtime.runPromise(scheduler.runOne({ callId: String(i), name: "noop", args: { x: i } }))
  }, { runs })
  const direct = (x) => ({ llmContent: [{ type: "text", text: String(x) }] })
  const limit = await timeMedian(async () => {
    let s = 0
    for (let i = 0; i < n; i++) s += direct(i).llmContent.length
    if (s < 0) throw new Error("unreachable")
  }, { runs })
  const batchN = smoke ? 20 : 100
  const batched = await timeMedian(async () => {
    await runtime.runPromise(scheduler.runBatch(Array.from({ length: batchN }, (_, i) => ({ callId: String(i), name: "noop", args: { x: i } }))))
  }, { runs })
  await runtime.dispose()
  const usPerCall = (ours / n) * 1000
  return [
    { scenario: name, size: `${n} calls, one at a time`, ours: usPerCall, limit: (limit / n) * 1000, unit: "µs/call", limitName: "direct function call", ratio: NaN, note: "target < 50 µs/call" },
    { scenario: name, size: `one batch of ${batchN}`, ours: (batched / batchN) * 1000, limit: (limit / n) * 1000, unit: "µs/call", limitName: "direct function call", ratio: NaN, note: "" }
  ].map((r) => ({ ...r, ratio: r.ours / Math.max(r.limit, 1e-3), callsPerBatch }))
}
