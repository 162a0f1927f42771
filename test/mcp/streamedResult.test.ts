// An upstream result whose text is past the MCP tools' own limit enters the output pipeline as a
// stream of chunks: the model gets a bounded result naming the saved file, the store gets the whole
// text, and the live tap sees the same parts as they go in.
import { assert, describe, it, layer } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { Effect, Layer, Stream } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { MCP_TEXT_CHUNK_CHARS, MCP_TOOL_MAX_OUTPUT_CHARS } from "../../src/mcp/constants.js"
import { partsStream, toToolResult } from "../../src/mcp/content.js"
import { OutputStore } from "../../src/output/store.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { llmText, type LivePart, type LlmPart, type PartOrigin } from "../../src/tool/result.js"
import { testSession } from "../support/session.js"
import { fixtureEntry } from "./support.js"

/** What the fixture's `big` tool returns for `size`. */
const bigText = (size: number): string => ("x".repeat(99) + "\n").repeat(Math.ceil(size / 100)).slice(0, size)

describe("upstream results as output streams", () => {
  it.effect("parts become chunks: text parts joined by a line break, a surrogate pair never split, media kept", () =>
    Effect.gen(function*() {
      const image: LlmPart = { type: "image", data: "aGk=", mimeType: "image/png" }
      const parts: Array<LlmPart> = [{ type: "text", text: "ab😀cd" }, image, { type: "text", text: "😀😀e" }]
      const chunks = yield* Stream.runCollect(partsStream(parts, 3))
      const texts = chunks.flatMap((p) => (p.type === "text" ? [p.text] : []))
      assert.strictEqual(texts.join(""), llmText(parts))
      assert.deepStrictEqual(texts, ["ab", "😀c", "d", "\n", "😀", "😀e"])
      assert.deepStrictEqual(chunks.filter((p) => p.type !== "text"), [image])
    }))

  it("a result over the tools' limit is streamed; one at the limit stays finished", () => {
    const at = toToolResult("s", "t", {}, { content: [{ type: "text", text: "y".repeat(MCP_TOOL_MAX_OUTPUT_CHARS) }] })
    assert.isTrue("llmContent" in at && at.stream === undefined && at.llmContent.length === 1)
    const over = toToolResult("s", "t", {}, { content: [{ type: "text", text: "y".repeat(MCP_TOOL_MAX_OUTPUT_CHARS + 1) }] })
    assert.isTrue("llmContent" in over && over.stream !== undefined && over.llmContent.length === 0)
    assert.strictEqual("display" in over ? over.display : undefined, "")
  })
})

const session = Layer.unwrap(Effect.map(
  parseMcpConfig({ mcpServers: { fixture: fixtureEntry() } }).pipe(Effect.orDie),
  (config) => testSession([], { mcp: { config } }).layer
))

layer(session, { timeout: 120_000, excludeTestServices: true })("a 50 MB upstream text part", (it) => {
  it.effect("is saved whole as it enters the pipeline; the model gets the stub naming the file; the tap sees the chunks", () =>
    Effect.gen(function*() {
      const size = 50_000_000
      const expected = createHash("sha256").update(bigText(size)).digest("hex")
      const scheduler = yield* Scheduler
      const store = yield* OutputStore
      const seen = { chars: 0, parts: 0 }
      const onPart = (_: string, part: LivePart, origin: PartOrigin) =>
        Effect.sync(() => {
          if (origin !== "stream" || part.type !== "text") return
          seen.chars += part.text.length
          seen.parts++
        })
      const r = yield* scheduler.runOne({ callId: "big", name: "mcp__fixture__big", args: { size } }, { onPart })
      assert.strictEqual(r._tag, "Success", JSON.stringify(r).slice(0, 500))
      const text = r._tag === "Success" ? llmText(r.llmContent) : ""
      assert.isBelow(text.length, 5_000)
      assert.include(text, "<persisted-output>")
      const file = /saved to: (\S+)/.exec(text)?.[1]
      assert.isDefined(file, text.slice(0, 500))
      const saved = (yield* store.list).find((e) => e.path === file)
      assert.strictEqual(saved?.bytes, size)
      assert.strictEqual(saved?.sha256, expected)
      assert.strictEqual(createHash("sha256").update(fs.readFileSync(file!)).digest("hex"), expected)
      assert.strictEqual(seen.chars, size)
      assert.strictEqual(seen.parts, Math.ceil(size / MCP_TEXT_CHUNK_CHARS))
    }))
})
