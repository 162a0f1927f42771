// The output pipeline on a batch of 100 × 1 MB results, against raw fs.writeFile of the same bytes.
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot, distDir, tempDir, timeMedian } from "../lib.mjs"

export const name = "output pipeline"

export const run = async ({ runs, smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer } = await import("effect")
  const { NodeServices } = await import("@effect/platform-node")
  const rows = []
  const counts = smoke ? [10] : [25, 50, 100]
  for (const count of counts) {
    const mb = "x".repeat(99) + "\n"
    const text = mb.repeat(10_486)
    const entries = Array.from({ length: count }, (_, i) => ({
      result: { _tag: "Success", callId: `c${i}`, name: "big", llmContent: [{ type: "text", text }], display: "", resultFilePaths: [], data: undefined },
      tool: { name: "big", maxOutputChars: undefined, truncateKeep: "both" }
    }))
    let written = 0
    const ours = await timeMedian(async () => {
      const dir = tempDir()
      const layer = tw.Output.OutputStore.layer({ dir, maxSessionBytes: 10 * 1024 ** 3 }).pipe(Layer.provide(NodeServices.layer))
      await Effect.runPromise(tw.Output.finalizeBatch(entries, tw.Output.DEFAULT_OUTPUT_LIMITS).pipe(Effect.provide(layer)))
      written = fs.readdirSync(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
      fs.rmSync(dir, { recursive: true, force: true })
    }, { runs })
    const limit = await timeMedian(async () => {
      const dir = tempDir()
      await Promise.all(entries.map((_, i) => fs.promises.writeFile(path.join(dir, `f${i}`), text, { mode: 0o600 })))
      fs.rmSync(dir, { recursive: true, force: true })
    }, { runs })
    rows.push({ scenario: name, size: `${count} × 1 MB`, ours, limit, unit: "ms", limitName: "fs.writeFile of the same bytes", ratio: ours / limit, note: `${(written / 1024 ** 2).toFixed(0)} MiB written` })
  }
  return rows
}
