import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { NodeServices } from "@effect/platform-node"
import fc from "fast-check"
import { Effect, Fiber, Layer, Stream } from "effect"
import { DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "../../src/output/config.js"
import { OutputTooLarge, OutputWriteFailed, SessionBudgetExhausted } from "../../src/output/errors.js"
import { slotText } from "../../src/output/pipeline.js"
import { OutputStore } from "../../src/output/store.js"
import { drainOutput, streamPlan } from "../../src/output/stream.js"
import { truncateToolOutput, windowedPreview } from "../../src/output/truncate.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { LivePart, PartOrigin } from "../../src/tool/result.js"
import { progressTool } from "../support/progressTool.js"
import { makeTempDir, testSession } from "../support/session.js"
import { bigTool, makeText } from "../support/tools.js"
import { chunksOf, streamTool } from "./support/streamTool.js"

const call = (name: string, args: unknown, callId = name) => ({ callId, name, args })
const textOf = (r: CallResult | undefined) => (r ? slotText(r) : "")
const sha = (text: string) => createHash("sha256").update(text).digest("hex")
/** The text with the saved files' names (random ids) blanked. */
const samePaths = (text: string) => text.replace(/\/\S+\.output/g, "<file>")
const fileIn = (text: string): string => /saved to: (\S+)/.exec(text)?.[1] ?? ""

const runBatch = (
  tools: Parameters<typeof testSession>[0],
  calls: ReadonlyArray<ReturnType<typeof call>>,
  options: { readonly outputLimits?: OutputLimits; readonly onPart?: (callId: string, part: LivePart, origin: PartOrigin) => Effect.Effect<void> } = {}
) => {
  const s = testSession(tools, { mode: "yolo", ...(options.outputLimits ? { outputLimits: options.outputLimits } : {}) })
  return Effect.gen(function*() {
    const scheduler = yield* Scheduler
    const store = yield* OutputStore
    const batch = yield* scheduler.runBatch(calls, options.onPart ? { onPart: options.onPart } : {})
    return { batch, store }
  }).pipe(Effect.provide(s.layer))
}

/** A store of its own in a fresh directory (or `dir`). */
const storeLayer = (options: { readonly dir?: string; readonly maxFileBytes?: number; readonly maxSessionBytes?: number } = {}) =>
  OutputStore.layer({ dir: options.dir ?? nodePath.join(makeTempDir("tw-stream-"), "out"), ...options }).pipe(
    Layer.provide(NodeServices.layer)
  )

const textStream = (text: string, chunk = 4096) => Stream.fromIterable(chunksOf(text, chunk))

describe("a streamed output ends as the finished one would", () => {
  const cases: ReadonlyArray<readonly [string, { readonly maxOutputChars?: number; readonly truncateKeep?: "head" | "tail" | "both" }, ReadonlyArray<number>]> = [
    // the persistence gate (held up to 28,000 chars, then spilled: the same stub)
    ["big", { maxOutputChars: Infinity }, [0, 1_000, 28_000, 28_001, 200_000]],
    // an exempt tool: per-tool truncation, from the windows once spilled
    ["read_file", {}, [20_000, 26_000, 29_096, 29_097, 200_000]],
    ["read_mcp_resource", { maxOutputChars: 5_000, truncateKeep: "head" }, [5_000, 9_097, 9_098, 100_000]],
    ["read_mcp_resource", { maxOutputChars: 5_000, truncateKeep: "tail" }, [100_000]],
    ["read_mcp_resource", { maxOutputChars: 5_000, truncateKeep: "both" }, [100_000]]
  ]
  for (const [name, options, sizes] of cases) {
    it.effect(`${name} ${JSON.stringify(options)} at ${sizes.join(", ")} chars`, () =>
      Effect.gen(function*() {
        for (const size of sizes) {
          const finished = yield* runBatch([bigTool(name, options)], [call(name, { size })])
          const streamed = yield* runBatch([streamTool(name, options)], [call(name, { size })])
          const a = textOf(finished.batch.results[0])
          const b = textOf(streamed.batch.results[0])
          assert.strictEqual(samePaths(b), samePaths(a), `size ${size}`)
          assert.strictEqual(streamed.batch.output.offloaded, finished.batch.output.offloaded, `size ${size}`)
          const file = fileIn(b)
          if (file !== "") {
            assert.strictEqual(fs.readFileSync(file, "utf8"), makeText(size))
            assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
            const saved = (yield* streamed.store.list).find((e) => e.path === file)
            assert.strictEqual(saved?.sha256, sha(makeText(size)))
            assert.strictEqual(saved?.lines, makeText(size).split("\n").length - (makeText(size).endsWith("\n") ? 1 : 0))
          }
        }
      }), 60_000)
  }

  it.effect("media parts stay whole and the text beside them is cut as a multi-part result", () =>
    Effect.gen(function*() {
      const { batch } = yield* runBatch([streamTool("big", { maxOutputChars: Infinity })], [call("big", { size: 100_000, withImage: true })])
      const r = batch.results[0]!
      assert.strictEqual(r._tag, "Success")
      if (r._tag !== "Success") return
      assert.deepStrictEqual(r.llmContent[1], { type: "image", data: "aGk=", mimeType: "image/png" })
      assert.match(textOf(r), /^Tool output was too large and has been truncated\./)
      assert.strictEqual(fs.readFileSync(fileIn(textOf(r)), "utf8"), makeText(100_000))
    }))
})

describe("windowedPreview", () => {
  it("equals the whole text's preview when each window holds more than the preview", () =>
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "bc", "\n", "é", "xyz\n", "\n\n", "0123456789"), { minLength: 1, maxLength: 400 }),
        fc.integer({ min: 5, max: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom("head" as const, "tail" as const, "both" as const),
        (pieces, chars, lines, keep) => {
          const text = pieces.join("")
          const whole = truncateToolOutput(text, { chars, lines, keep, pathChars: 0 })
          if (!whole.truncated) return
          const windows = { head: text.slice(0, chars + 1), tail: text.slice(-(chars + 1)), lines: text.split("\n").length }
          assert.strictEqual(windowedPreview(windows, { lines, keep, preview: chars }), whole.content)
        }
      ),
      { numRuns: 500 }
    ))
})

describe("the batch budget over streams", () => {
  it.effect("ten streamed 25,000-char read_file results share 200,000 as 20,000 each (max-min fair, as finished ones)", () =>
    Effect.gen(function*() {
      const calls = Array.from({ length: 10 }, (_, i) => call("read_file", { size: 25_000 }, `c${i}`))
      const { batch } = yield* runBatch([streamTool("read_file")], calls)
      assert.deepStrictEqual(batch.results.map((r) => textOf(r).length), Array.from({ length: 10 }, () => 20_000))
      assert.strictEqual(batch.output.offloaded, 10)
    }))

  it.effect("spilled streams are not saved twice and keep their stub", () =>
    Effect.gen(function*() {
      const calls = Array.from({ length: 3 }, (_, i) => call("big", { size: 300_000 }, `c${i}`))
      const { batch, store } = yield* runBatch([streamTool("big", { maxOutputChars: Infinity })], calls)
      for (const r of batch.results) assert.match(textOf(r), /^<persisted-output>/)
      assert.strictEqual((yield* store.list).length, 3)
    }))
})

describe("failures keep their typed error and wire code", () => {
  it("the output errors carry their wire codes", () => {
    assert.strictEqual(new OutputTooLarge({ toolName: "t", bytes: 2, maxBytes: 1, message: "m" }).code, "output_too_large")
    assert.strictEqual(
      new SessionBudgetExhausted({ toolName: "t", bytes: 2, usedBytes: 0, maxBytes: 1, message: "m" }).code,
      "session_budget_exhausted"
    )
    assert.strictEqual(new OutputWriteFailed({ toolName: "t", path: "/p", message: "m" }).code, "persist_error")
  })

  const drainBig = (size: number) =>
    drainOutput(textStream(makeText(size)), { toolName: "big", limits: DEFAULT_OUTPUT_LIMITS })

  it.effect("output_too_large: over the per-file cap, nothing is kept and the stub has the whole output's size and digest", () =>
    Effect.gen(function*() {
      const out = yield* drainBig(100_000)
      const text = (out.llmContent[0] as { text: string }).text
      assert.match(text, /^Output too large \(98 KB\)\. \(file too large to persist\)\nSHA-256: /)
      assert.include(text, `SHA-256: ${sha(makeText(100_000))}`)
      assert.deepStrictEqual(out.persisted, [])
      const store = yield* OutputStore
      assert.deepStrictEqual(yield* store.list, [])
      assert.strictEqual((yield* store.usage).usedBytes, 0)
      assert.deepStrictEqual(fs.existsSync(store.dir) ? fs.readdirSync(store.dir) : [], [])
    }).pipe(Effect.provide(storeLayer({ maxFileBytes: 50_000 }))))

  it.effect("a stream of exactly the per-file cap is saved", () =>
    Effect.gen(function*() {
      const out = yield* drainBig(50_000)
      assert.strictEqual(out.persisted.length, 1)
      assert.strictEqual(fs.statSync(out.persisted[0]!).size, 50_000)
    }).pipe(Effect.provide(storeLayer({ maxFileBytes: 50_000 }))))

  it.effect("session_budget_exhausted: the session cap stops the save and gives its room back", () =>
    Effect.gen(function*() {
      const out = yield* drainBig(100_000)
      assert.include((out.llmContent[0] as { text: string }).text, "(session disk budget exhausted)")
      const store = yield* OutputStore
      assert.strictEqual((yield* store.usage).usedBytes, 0)
    }).pipe(Effect.provide(storeLayer({ maxSessionBytes: 50_000 }))))

  it.effect("persist_error: a directory that cannot be made gives the unavailable note", () => {
    const blocker = nodePath.join(makeTempDir("tw-stream-"), "file")
    fs.writeFileSync(blocker, "")
    return Effect.gen(function*() {
      const out = yield* drainBig(100_000)
      assert.include((out.llmContent[0] as { text: string }).text, "(disk persistence unavailable)")
      assert.deepStrictEqual(out.persisted, [])
    }).pipe(Effect.provide(storeLayer({ dir: nodePath.join(blocker, "out") })))
  })

  it.effect("a stream that fails fails the call with its own code, and its partial save is removed", () =>
    Effect.gen(function*() {
      const { batch, store } = yield* runBatch([streamTool("big")], [call("big", { size: 1, failAfter: 100_000 })])
      const r = batch.results[0]!
      assert.strictEqual(r._tag, "Failure")
      if (r._tag === "Failure") {
        assert.strictEqual(r.code, "execution_failed")
        assert.include(r.message, "failed after 100000 chars")
      }
      assert.deepStrictEqual(yield* store.list, [])
      assert.strictEqual((yield* store.usage).usedBytes, 0)
      assert.deepStrictEqual(fs.existsSync(store.dir) ? fs.readdirSync(store.dir) : [], [])
    }))

  it.live("an interrupted drain removes its temp file and gives its room back", () =>
    Effect.gen(function*() {
      const store = yield* OutputStore
      const fiber = yield* Effect.forkChild(
        drainOutput(Stream.concat(textStream(makeText(100_000)), Stream.never), { toolName: "big", limits: DEFAULT_OUTPUT_LIMITS })
      )
      while ((yield* store.usage).usedBytes < 100_000) yield* Effect.sleep("5 millis")
      assert.strictEqual(fs.readdirSync(store.dir).length, 1)
      yield* Fiber.interrupt(fiber)
      assert.strictEqual((yield* store.usage).usedBytes, 0)
      assert.deepStrictEqual(fs.readdirSync(store.dir), [])
    }).pipe(Effect.provide(storeLayer())))
})

describe("the live tap", () => {
  it.effect("onPart sees every part of a stream in order as it arrives, and a finished result's parts", () =>
    Effect.gen(function*() {
      const seen: Array<[string, LivePart]> = []
      const origins = new Map<string, Set<PartOrigin>>()
      const { batch } = yield* runBatch(
        [streamTool("big", { maxOutputChars: Infinity }), bigTool("small")],
        [call("big", { size: 100_000 }), call("small", { size: 10 })],
        {
          onPart: (callId, part, origin) =>
            Effect.sync(() => {
              seen.push([callId, part])
              origins.set(callId, (origins.get(callId) ?? new Set()).add(origin))
            })
        }
      )
      assert.deepStrictEqual([...origins.get("big")!], ["stream"])
      assert.deepStrictEqual([...origins.get("small")!], ["result"])
      const streamed = seen.filter(([id]) => id === "big").map(([, p]) => (p as { text: string }).text)
      assert.strictEqual(streamed.length, Math.ceil(100_000 / 4096))
      assert.strictEqual(streamed.join(""), makeText(100_000))
      assert.deepStrictEqual(seen.filter(([id]) => id === "small").map(([, p]) => p), [{ type: "text", text: makeText(10) }])
      assert.match(textOf(batch.results[0]), /^<persisted-output>/)
    }))

  it.effect("a tool's emitted parts reach the tap as live parts while it runs, before its result, and are not part of it", () =>
    Effect.gen(function*() {
      const seen: Array<[LivePart, PartOrigin]> = []
      const { batch } = yield* runBatch([progressTool()], [call("progress", { steps: 3, delayMs: 0 })], {
        onPart: (_, part, origin) => Effect.sync(() => void seen.push([part, origin]))
      })
      assert.deepStrictEqual(seen, [
        [{ type: "progress", message: "step 1", progress: 1, total: 3 }, "live"],
        [{ type: "progress", message: "step 2", progress: 2, total: 3 }, "live"],
        [{ type: "progress", message: "step 3", progress: 3, total: 3 }, "live"],
        [{ type: "text", text: "done after 3 steps" }, "result"]
      ])
      assert.strictEqual(textOf(batch.results[0]), "done after 3 steps")
      // Without a tap, the tool gets no emit and runs the same.
      const quiet = yield* runBatch([progressTool()], [call("progress", { steps: 3, delayMs: 0 })])
      assert.strictEqual(textOf(quiet.batch.results[0]), "done after 3 steps")
    }))
})

describe("streamPlan", () => {
  it("holds up to the gate, or a tool's own limit plus a margin, or the batch budget, or 1 Mi chars", () => {
    assert.strictEqual(streamPlan("big", undefined, DEFAULT_OUTPUT_LIMITS).holdChars, 28_000)
    assert.strictEqual(streamPlan("read_file", undefined, DEFAULT_OUTPUT_LIMITS).holdChars, 25_000 + 4096)
    assert.strictEqual(streamPlan("read_file", { maxOutputChars: Infinity, truncateKeep: "both" }, DEFAULT_OUTPUT_LIMITS).holdChars, 200_000 + 4096)
    const unlimited = { ...DEFAULT_OUTPUT_LIMITS, batchBudget: Infinity }
    assert.strictEqual(streamPlan("read_file", { maxOutputChars: Infinity, truncateKeep: "both" }, unlimited).holdChars, 1024 * 1024)
  })
})

describe("OutputStore.openWriter", () => {
  it.effect("appends text and bytes as they come, then records the file (0600) with its size, digest and lines", () =>
    Effect.gen(function*() {
      const store = yield* OutputStore
      const { facts, saved } = yield* Effect.scoped(Effect.gen(function*() {
        const writer = yield* store.openWriter("my tool")
        yield* writer.append("é line one\n")
        yield* writer.append(Buffer.from("line two\nno newline"))
        return yield* writer.finish
      }))
      const text = "é line one\nline two\nno newline"
      assert.deepStrictEqual(facts, { bytes: Buffer.byteLength(text), sha256: sha(text), lines: 3 })
      assert.isTrue(saved._tag === "Success")
      if (saved._tag !== "Success") return
      assert.match(saved.success.path, /\/my_tool_[0-9a-f]{16}\.output$/)
      assert.strictEqual(fs.readFileSync(saved.success.path, "utf8"), text)
      assert.strictEqual(fs.statSync(saved.success.path).mode & 0o777, 0o600)
      assert.deepStrictEqual(yield* store.get(saved.success.id), saved.success)
      assert.strictEqual((yield* store.read(saved.success.id, { offsetLine: 1, limitLines: 1 })).content, "line two\n")
      assert.strictEqual((yield* store.usage).usedBytes, facts.bytes)
    }).pipe(Effect.provide(storeLayer())))

  it.effect("an empty output is an empty file of 0 lines", () =>
    Effect.gen(function*() {
      const store = yield* OutputStore
      const { facts, saved } = yield* Effect.scoped(Effect.flatMap(store.openWriter("t"), (w) => w.finish))
      assert.deepStrictEqual(facts, { bytes: 0, sha256: sha(""), lines: 0 })
      assert.isTrue(saved._tag === "Success" && fs.statSync(saved.success.path).size === 0)
    }).pipe(Effect.provide(storeLayer())))
})
