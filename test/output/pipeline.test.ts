import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { createHash } from "node:crypto"
import { NodeServices } from "@effect/platform-node"
import fc from "fast-check"
import { Effect, Layer } from "effect"
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "../../src/output/config.js"
import { finalizeBatch, type PipelineEntry, slotText } from "../../src/output/pipeline.js"
import { OutputStore } from "../../src/output/store.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { makeTempDir, testSession } from "../support/session.js"
import { bigTool, makeText } from "../support/tools.js"

const call = (name: string, args: unknown, callId = name) => ({ callId, name, args })
const textOf = (r: CallResult | undefined) => (r ? slotText(r) : "")
const fileIn = (text: string): string => /saved to: (\S+)/.exec(text)?.[1] ?? /artifact: (\S+)/.exec(text)?.[1] ?? ""

const run = (tools: Parameters<typeof testSession>[0], calls: ReadonlyArray<ReturnType<typeof call>>, outputLimits?: OutputLimits) => {
  const s = testSession(tools, { mode: "yolo", ...(outputLimits ? { outputLimits } : {}) })
  return Effect.gen(function*() {
    const scheduler = yield* Scheduler
    return yield* scheduler.runBatch(calls)
  }).pipe(Effect.provide(s.layer))
}

describe("persistence gate", () => {
  it.effect("replaces a single-text result over 28,000 chars by a stub naming a 0600 file with its sha256", () =>
    Effect.gen(function*() {
      const content = makeText(28_001)
      const batch = yield* run([bigTool("big", { maxOutputChars: Infinity })], [call("big", { size: 28_001 })])
      const text = textOf(batch.results[0])
      assert.match(text, /^<persisted-output>\nOutput too large \(27 KB\)\. Full output saved to: \S+\.output\nSHA-256: [0-9a-f]{64}\n/)
      const file = fileIn(text)
      assert.strictEqual(fs.readFileSync(file, "utf8"), content)
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.include(text, `SHA-256: ${createHash("sha256").update(content).digest("hex")}`)
      assert.include(text, "read_file")
      assert.isTrue(text.endsWith("</persisted-output>"))
      assert.strictEqual(batch.output.offloaded, 1)
    }))

  it.effect("leaves a result of exactly 28,000 chars to the per-tool step", () =>
    Effect.gen(function*() {
      const batch = yield* run([bigTool("big", { maxOutputChars: Infinity })], [call("big", { size: 28_000 })])
      assert.strictEqual(textOf(batch.results[0]).length, 28_000)
    }))

  it.effect("skips exempt tools, failures, multi-part/media results and already-truncated text", () =>
    Effect.gen(function*() {
      const batch = yield* run([
        bigTool("read_file", { maxOutputChars: Infinity }),
        bigTool("failing", { maxOutputChars: Infinity }),
        bigTool("with_image", { maxOutputChars: Infinity, withImage: true })
      ], [
        call("read_file", { size: 40_000 }),
        call("failing", { size: 40_000, fail: true }),
        call("with_image", { size: 40_000 })
      ])
      for (const r of batch.results) assert.notInclude(textOf(r), "<persisted-output>")
      assert.strictEqual(textOf(batch.results[0]).length, 40_000)
      assert.strictEqual(batch.results[1]!._tag, "Failure")
      const media = batch.results[2]!
      assert.isTrue(media._tag === "Success" && media.llmContent.some((p) => p.type === "image"))
      assert.strictEqual(batch.output.offloaded, 0)
    }))

  it.effect("already-truncated text is never cut again", () =>
    Effect.gen(function*() {
      const dir = makeTempDir()
      const text = "<persisted-output>\n" + "y".repeat(50_000)
      const out = yield* finalizeBatch([{ result: success("t", text), tool: { name: "t", maxOutputChars: undefined, truncateKeep: "both" } }], DEFAULT_OUTPUT_LIMITS)
        .pipe(Effect.provide(OutputStore.layer({ dir }).pipe(Layer.provide(NodeServices.layer))))
      assert.strictEqual(textOf(out.results[0]), text)
    }))
})

describe("per-tool truncation", () => {
  it.effect("a tool without its own budget gets 25,000 chars and 1,000 lines; its full text is saved", () =>
    Effect.gen(function*() {
      const batch = yield* run([bigTool("plain")], [call("plain", { size: 26_000 })])
      const text = textOf(batch.results[0])
      assert.isTrue(text.startsWith("Tool output was too large and has been truncated."))
      assert.include(text, "... [CONTENT TRUNCATED] ...")
      assert.strictEqual(fs.readFileSync(fileIn(text), "utf8"), makeText(26_000))
      assert.isBelow(text.length, 26_000)
    }))

  it.effect("a tool with its own budget keeps its cap and has no line cap; Infinity is exempt", () =>
    Effect.gen(function*() {
      // 150 lines × 100 chars: over 1,000 lines? no; under 20,000 chars: untouched with an own budget
      const batch = yield* run([bigTool("capped", { maxOutputChars: 20_000 }), bigTool("free", { maxOutputChars: Infinity })], [
        call("capped", { size: 15_000 }),
        call("free", { size: 27_000 })
      ])
      assert.strictEqual(textOf(batch.results[0]).length, 15_000)
      assert.strictEqual(textOf(batch.results[1]).length, 27_000)
    }))
})

describe("batch budget", () => {
  it.effect("the reference example: ten 25,000-char read_file results share 200,000 as 20,000 each", () =>
    Effect.gen(function*() {
      const calls = Array.from({ length: 10 }, (_, i) => call("read_file", { size: 25_000 }, `c${i}`))
      const batch = yield* run([bigTool("read_file", { maxOutputChars: Infinity })], calls)
      assert.strictEqual(batch.output.charsBefore, 250_000)
      for (const r of batch.results) {
        const text = textOf(r)
        assert.strictEqual(text.length, 20_000)
        assert.match(text, /^Tool output truncated\. Persisted tool-output artifact: \S+\n\n/)
        assert.strictEqual(fs.readFileSync(fileIn(text), "utf8"), makeText(25_000))
      }
      assert.strictEqual(batch.output.charsAfter, 200_000)
      assert.strictEqual(batch.output.offloaded, 10)
      assert.deepStrictEqual(batch.output.warnings, [])
    }))

  it.effect("warns with figures when a batch cannot get under its budget", () =>
    Effect.gen(function*() {
      const limits = { ...DEFAULT_OUTPUT_LIMITS, batchBudget: 40 }
      const calls = Array.from({ length: 4 }, (_, i) => call("read_file", { size: 500 }, `c${i}`))
      const batch = yield* run([bigTool("read_file", { maxOutputChars: Infinity })], calls, limits)
      // every result keeps its header naming the saved file: the pointer is never cut off
      for (const r of batch.results) assert.match(textOf(r), /^Tool output truncated\. Persisted tool-output artifact: \S+\.output\n\n/)
      assert.isAbove(batch.output.charsAfter, 40)
      assert.deepStrictEqual(batch.output.warnings, [
        `The batch cannot get under its budget: ${batch.output.charsAfter} chars after offloading, budget 40 chars, 4 results (each keeps at least its header).`
      ])
    }))

  it.effect("warns when a tool's own cap is larger than the batch budget", () =>
    Effect.gen(function*() {
      const limits = { ...DEFAULT_OUTPUT_LIMITS, batchBudget: 10_000 }
      const batch = yield* run([bigTool("mcp_like", { maxOutputChars: 500_000 })], [call("mcp_like", { size: 12_000 })], limits)
      assert.isTrue(batch.output.warnings.some((w) => w.includes("allows 500000 chars") && w.includes("10000")))
      assert.isAtMost(batch.output.charsAfter, 10_000)
    }))

  it("property: the batch total is within budget whenever the budget leaves room for the headers", async () => {
    const dir = makeTempDir()
    const layer = OutputStore.layer({ dir }).pipe(Layer.provide(NodeServices.layer))
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3_000 }), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 12_000 }),
        async (sizes, budget) => {
          const limits = { ...DEFAULT_OUTPUT_LIMITS, batchBudget: budget }
          const entries: Array<PipelineEntry> = sizes.map((n, i) => ({
            result: success(`t${i}`, makeText(n) || "x"),
            tool: { name: "read_file", maxOutputChars: Infinity, truncateKeep: "both" }
          }))
          const out = await Effect.runPromise(finalizeBatch(entries, limits).pipe(Effect.provide(layer)))
          const total = out.results.reduce((n, r) => n + textOf(r).length, 0)
          // each cut slot keeps at least the header naming its file; below that the budget is not achievable
          const headerRoom = 400 * sizes.length
          if (budget >= headerRoom) assert.isAtMost(total, budget)
          else if (total > budget) assert.isTrue(out.report.warnings.some((w) => w.includes("cannot get under")))
          assert.strictEqual(out.results.length, sizes.length)
        }
      ),
      { seed: 11, numRuns: 60 }
    )
  })
})

const success = (name: string, text: string): CallResult => ({
  _tag: "Success",
  callId: name,
  name,
  llmContent: [{ type: "text", text }],
  text,
  display: text,
  resultFilePaths: [],
  data: undefined
})
