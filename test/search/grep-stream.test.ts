// grep_search's formatted result enters the output pipeline as a stream of text chunks: the live
// tap sees the chunks as they go in (origin "stream"), and the result is the formatted text whole.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Scheduler } from "../../src/run/scheduler.js"
import { GREP_MAX_OUTPUT_CHARS } from "../../src/search/constants.js"
import { type LivePart, type PartOrigin, TEXT_CHUNK_CHARS } from "../../src/tool/result.js"
import { okText, searchSession, tempDir, write } from "./tools.support.js"

describe("grep_search output as a stream", () => {
  it.live("the tap sees the formatted result in chunks; the model gets it whole", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-search-state-")
      // 400 matching lines of ~90 chars: past one chunk, under the tool's own cap.
      write(root, "a.txt", Array.from({ length: 400 }, (_, i) => `needle ${i} `.padEnd(80, "-")).join("\n") + "\n")
      const seen: Array<{ readonly text: string; readonly origin: PartOrigin }> = []
      const onPart = (_: string, part: LivePart, origin: PartOrigin) =>
        Effect.sync(() => {
          if (part.type === "text") seen.push({ text: part.text, origin })
        })
      const r = yield* Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "g", name: "grep_search", args: { pattern: "needle" } }, { onPart })).pipe(
        Effect.provide(searchSession({ roots: [root], stateDir: state, grep: { backend: "js" } }))
      )
      const text = okText(r)
      assert.match(text, /^Found 400 matches for pattern "needle" in the workspace directory:\n---\na\.txt:1:needle 0 -+\n/)
      assert.isAbove(text.length, TEXT_CHUNK_CHARS)
      assert.isBelow(text.length, GREP_MAX_OUTPUT_CHARS + 200)
      assert.isTrue(seen.every((s) => s.origin === "stream"))
      assert.strictEqual(seen.length, Math.ceil(text.length / TEXT_CHUNK_CHARS))
      assert.strictEqual(seen.map((s) => s.text).join(""), text)
    }))
})
