// The pipeline reserves every save of a batch in call order and writes them several at once. It must
// give what the sequential pipeline gave: same texts (file names aside), same files, same report.
import * as nodeFs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import fc from "fast-check"
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "../../src/output/config.js"
import { finalizeBatch, type PipelineEntry, type PipelineOutput, slotText } from "../../src/output/pipeline.js"
import { OutputStore } from "../../src/output/store.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { LlmPart } from "../../src/tool/result.js"
import { recordLogs } from "../support/logs.js"
import { finalizeSequential } from "./support/sequentialPipeline.js"

const SEED = 20261202

const tempDir = () => nodeFs.realpathSync(nodeFs.mkdtempSync(nodePath.join(os.tmpdir(), "tw-saves-")))

/** Runs a pipeline; its warning logs (an output not saved) go to `logs`, not to the console. */
const runIn = (dir: string, limits: OutputLimits, run: typeof finalizeBatch, entries: ReadonlyArray<PipelineEntry>, logs = recordLogs()) =>
  Effect.runPromise(
    run(entries, limits).pipe(
      Effect.provide(
        OutputStore.layer({ dir, maxFileBytes: limits.maxOutputFileBytes, maxSessionBytes: limits.maxSessionOutputBytes })
          .pipe(Layer.provide(NodeServices.layer))
      ),
      Effect.provide(logs.layer)
    )
  )

/** The output with every saved-file path replaced by the file's content, and the files left in `dir`. */
const normalise = (out: PipelineOutput, dir: string) => {
  const files = nodeFs.existsSync(dir) ? nodeFs.readdirSync(dir).sort() : []
  const contentOf = new Map(files.map((f) => [nodePath.join(dir, f), nodeFs.readFileSync(nodePath.join(dir, f), "utf8")]))
  const ids = new Map<string, string>()
  const rename = (text: string) =>
    text.replace(/\/[^\s]*\.output/g, (path) => {
      const content = contentOf.get(path)
      if (content === undefined) return `<missing ${path}>`
      if (!ids.has(path)) ids.set(path, `<saved#${ids.size}:${content.length}:${content.slice(0, 20)}>`)
      return ids.get(path)!
    })
  return {
    texts: out.results.map((r) => rename(slotText(r))),
    tags: out.results.map((r) => r._tag),
    report: { ...out.report, warnings: out.report.warnings.map(rename) },
    files: Array.from(contentOf.values()).sort(),
    modes: files.map((f) => nodeFs.statSync(nodePath.join(dir, f)).mode & 0o777)
  }
}

const success = (name: string, parts: ReadonlyArray<LlmPart>, i: number): CallResult => ({
  _tag: "Success",
  callId: `c${i}`,
  name,
  llmContent: parts,
  text: "",
  display: "",
  resultFilePaths: [],
  data: undefined
})

// Texts around every threshold: the gate (28,000), per-call truncation (25,000 chars / 1,000 lines),
// the small-save path (64 KiB), the write buffer (256 KiB); ASCII, accents, emoji, many short lines.
const textArb = fc.tuple(
  fc.constantFrom(0, 3, 1_000, 24_999, 25_001, 27_999, 28_001, 40_000, 65_535, 65_537, 140_000, 262_144, 262_145, 300_000),
  fc.constantFrom("x".repeat(79) + "\n", "é".repeat(39) + "\n", "a😀b", "\n", "line\n", " ")
).map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length)).slice(0, n))

const entryArb = fc.record({
  name: fc.constantFrom("shell", "read_file", "mcp__x__y"),
  kind: fc.constantFrom("text", "text", "text", "two", "image", "failure"),
  text: textArb,
  own: fc.constantFrom(undefined, undefined, 20_000, 1_000, Infinity),
  keep: fc.constantFrom("both" as const, "head" as const, "tail" as const)
})

const limitsArb = fc.record({
  batchBudget: fc.constantFrom(200_000, 1_000_000, 30_000, Infinity),
  maxOutputFileBytes: fc.constantFrom(50 * 1024 * 1024, 200_000),
  maxSessionOutputBytes: fc.constantFrom(500 * 1024 * 1024, 700_000)
}).map((l): OutputLimits => ({ ...DEFAULT_OUTPUT_LIMITS, ...l }))

const toEntries = (raw: ReadonlyArray<typeof entryArb extends fc.Arbitrary<infer T> ? T : never>): Array<PipelineEntry> =>
  raw.map((e, i): PipelineEntry => {
    const tool = { name: e.name, maxOutputChars: e.own, truncateKeep: e.keep }
    if (e.kind === "failure") {
      return { tool, result: { _tag: "Failure", callId: `c${i}`, name: e.name, code: "execution_failed", message: e.text, display: "" } }
    }
    if (e.kind === "two") return { tool, result: success(e.name, [{ type: "text", text: e.text }, { type: "text", text: e.text.slice(0, 30_000) }], i) }
    if (e.kind === "image") {
      return { tool, result: success(e.name, [{ type: "text", text: e.text }, { type: "image", data: "AAAA", mimeType: "image/png" }], i) }
    }
    return { tool, result: success(e.name, [{ type: "text", text: e.text }], i) }
  })

describe("finalizeBatch with concurrent saves", () => {
  it("gives what the sequential pipeline gave: texts, saved files (0600), counts, warnings", async () => {
    let saved = 0
    let failures = 0
    await fc.assert(
      fc.asyncProperty(fc.array(entryArb, { minLength: 1, maxLength: 9 }), limitsArb, async (raw, limits) => {
        const entries = toEntries(raw)
        const a = tempDir()
        const b = tempDir()
        try {
          const ourLogs = recordLogs()
          const referenceLogs = recordLogs()
          const ours = normalise(await runIn(a, limits, finalizeBatch, entries, ourLogs), a)
          const reference = normalise(await runIn(b, limits, finalizeSequential, entries, referenceLogs), b)
          assert.deepStrictEqual(ours, reference)
          assert.deepStrictEqual([...ourLogs.lines].sort(), [...referenceLogs.lines].sort())
          saved += ours.report.offloaded
          failures += ours.report.offloadFailures
        } finally {
          nodeFs.rmSync(a, { recursive: true, force: true })
          nodeFs.rmSync(b, { recursive: true, force: true })
        }
      }),
      { seed: SEED, numRuns: 60 }
    )
    assert.isAbove(saved, 50)
    assert.isAbove(failures, 5)
  })

  it.live("reserves in call order: when the session budget runs out, the earliest results are the ones saved", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const limits = { ...DEFAULT_OUTPUT_LIMITS, maxSessionOutputBytes: 100_000, batchBudget: Infinity }
      const entries = Array.from({ length: 6 }, (_, i) => ({
        tool: { name: "shell", maxOutputChars: undefined, truncateKeep: "both" as const },
        result: success("shell", [{ type: "text", text: String(i).repeat(30_000) }], i)
      }))
      const logs = recordLogs()
      const out = yield* Effect.promise(() => runIn(dir, limits, finalizeBatch, entries, logs))
      const texts = out.results.map(slotText)
      for (const text of texts.slice(0, 3)) assert.isTrue(text.startsWith("<persisted-output>"))
      for (const text of texts.slice(3)) assert.isTrue(text.startsWith("Output too large (29 KB). (session disk budget exhausted)"))
      assert.strictEqual(out.report.offloaded, 3)
      assert.strictEqual(out.report.offloadFailures, 3)
      assert.deepStrictEqual(nodeFs.readdirSync(dir).map((f) => nodeFs.readFileSync(nodePath.join(dir, f), "utf8")[0]).sort(), ["0", "1", "2"])
      assert.deepStrictEqual(logs.lines, Array.from({ length: 3 }, () =>
        "WARN Saving 30000 more bytes of shell output would exceed this session's 100000-byte budget for saved outputs (90000 bytes used), so it was not saved to a file."))
      nodeFs.rmSync(dir, { recursive: true, force: true })
    }))

  it.live("an interrupted batch gives back the room of the saves that never ran", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const entries = Array.from({ length: 40 }, (_, i) => ({
        tool: { name: "shell", maxOutputChars: undefined, truncateKeep: "both" as const },
        result: success("shell", [{ type: "text", text: "z".repeat(300_000) }], i)
      }))
      const layer = OutputStore.layer({ dir }).pipe(Layer.provide(NodeServices.layer))
      const usage = yield* Effect.gen(function*() {
        const store = yield* OutputStore
        const fiber = yield* Effect.forkChild(finalizeBatch(entries, DEFAULT_OUTPUT_LIMITS))
        // Interrupt once the first save is done: the others are being written or not started.
        while ((yield* store.list).length === 0) yield* Effect.sleep("1 millis")
        yield* Fiber.interrupt(fiber)
        const list = yield* store.list
        const used = (yield* store.usage).usedBytes
        return { list, used }
      }).pipe(Effect.provide(layer))
      // Only what was written is counted: every reservation was either saved or given back, and
      // no temp file is left behind.
      assert.isAbove(usage.list.length, 0)
      assert.strictEqual(usage.used, usage.list.reduce((n, e) => n + e.bytes, 0))
      assert.deepStrictEqual(nodeFs.readdirSync(dir).sort(), usage.list.map((e) => `${e.id}.output`).sort())
      nodeFs.rmSync(dir, { recursive: true, force: true })
    }))
})
