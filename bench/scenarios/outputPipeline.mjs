// The output pipeline on a batch of 100 × 1 MB results, against raw fs.writeFile of the same bytes.
import * as fs from "node:fs"
import * as path from "node:path"
import { distDir, median, tempDir } from "../lib.mjs"

export const name = "output pipeline"

export const run = async ({ runs, smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer } = await import("effect")
  const { NodeServices } = await import("@effect/platform-node")
  const rows = []
  const counts = smoke ? [10] : [25, 50, 100]
  // Only the work is timed: the directory (and the session's output store in it) is made before
  // and deleted after (deleting 100 MB of files is a large, noisy share of a run), garbage is
  // collected before each run, and the two sides alternate so that load from other processes
  // falls on both alike.
  const timed = async (prepare, work) => {
    const dir = tempDir()
    const prepared = await prepare(dir)
    globalThis.gc?.()
    const t0 = performance.now()
    await work(dir, prepared)
    const ms = performance.now() - t0
    const written = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
    fs.rmSync(dir, { recursive: true, force: true })
    return { ms, written }
  }
  for (const count of counts) {
    const mb = "x".repeat(99) + "\n"
    const text = mb.repeat(10_486)
    const entries = Array.from({ length: count }, (_, i) => ({
      result: { _tag: "Success", callId: `c${i}`, name: "big", llmContent: [{ type: "text", text }], display: "", resultFilePaths: [], data: undefined },
      tool: { name: "big", maxOutputChars: undefined, truncateKeep: "both" }
    }))
    const pipeline = [
      (dir) => Effect.runPromise(Effect.provide(Effect.gen(function* () { return yield* tw.Output.OutputStore }), tw.Output.OutputStore.layer({ dir, maxSessionBytes: 10 * 1024 ** 3 }).pipe(Layer.provide(NodeServices.layer)))),
      (_dir, store) => Effect.runPromise(tw.Output.finalizeBatch(entries, tw.Output.DEFAULT_OUTPUT_LIMITS).pipe(Effect.provideService(tw.Output.OutputStore, store)))
    ]
    const raw = [
      () => undefined,
      (dir) => Promise.all(entries.map((_, i) => fs.promises.writeFile(path.join(dir, `f${i}`), text, { mode: 0o600 })))
    ]
    const samples = smoke ? 1 : Math.max(7, runs)
    await timed(...pipeline)
    await timed(...raw)
    const ours = []
    const limit = []
    let written = 0
    for (let i = 0; i < samples; i++) {
      const a = await timed(...pipeline)
      written = a.written
      ours.push(a.ms)
      limit.push((await timed(...raw)).ms)
    }
    const o = median(ours)
    const l = median(limit)
    rows.push({ scenario: name, size: `${count} × 1 MB`, ours: o, limit: l, unit: "ms", limitName: "fs.writeFile of the same bytes", ratio: o / l, note: `${(written / 1024 ** 2).toFixed(0)} MiB written (files 0600, SHA-256 in each stub); median of ${samples}, alternating` })
  }
  return rows
}
