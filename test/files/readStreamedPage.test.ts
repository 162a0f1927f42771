// read_file pages too long to hold (a file of 10 MB or more read with a character budget over
// STREAMED_PAGE_CHARS) are streamed into the output pipeline: the model gets the head and tail
// windows naming the saved file, the store gets the whole page, and the read cache records the read
// when the stream ends. A page that turns out short is the finished read's result exactly.
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { STREAMED_PAGE_CHARS } from "../../src/files/readKinds.js"
import { STREAM_THRESHOLD_BYTES } from "../../src/files/readText.js"
import { DEFAULT_OUTPUT_LIMITS } from "../../src/output/config.js"
import { OutputStore } from "../../src/output/store.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { FileReadCache } from "../../src/session/readCache.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"
import { testSession } from "../support/session.js"

const UNLIMITED = { ...DEFAULT_OUTPUT_LIMITS, truncateChars: Infinity }

const textOf = (r: CallResult): string => (r._tag === "Success" ? llmText(r.llmContent) : r.message)

/** `lines` lines of 99 characters (the line number first), each ending in `\n`. */
const numbered = (lines: number): string => Array.from({ length: lines }, (_, i) => `${i}:`.padEnd(99, "x") + "\n").join("")

const LINES = Math.ceil((STREAM_THRESHOLD_BYTES + 2 * 1024 * 1024) / 100)
const CONTENT = numbered(LINES)

const world = (outputLimits = UNLIMITED) => {
  const s = testSession([], { builtins: true, mode: "yolo", outputLimits })
  fs.writeFileSync(path.join(s.root, "big.txt"), CONTENT)
  return { ...s, file: path.join(s.root, "big.txt") }
}

const savedPath = (text: string): string => {
  const file = /saved to: (\S+)/.exec(text)?.[1]
  assert.isDefined(file, text.slice(0, 500))
  return file!
}

describe("read_file: a page too long to hold streams into the output pipeline", () => {
  it.live("a whole 12 MiB file read with no character budget: head and tail shown, the whole page saved, the read recorded", () => {
    const w = world()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const store = yield* OutputStore
      const cache = yield* FileReadCache
      const r = yield* scheduler.runOne({ callId: "1", name: "read_file", args: { file_path: "big.txt", limit: LINES + 10 } })
      const text = textOf(r)
      assert.strictEqual(r._tag, "Success", text.slice(0, 500))
      assert.isBelow(text.length, 60_000)
      assert.include(text, "Showing a long page of big.txt from line 1;")
      assert.include(text, `0:${"x".repeat(97)}`)
      const trailer = `\n\n---\n\n[Shown: lines 1-${LINES} of ${LINES} total lines of big.txt.]`
      assert.isTrue(text.includes(trailer.trim()), text.slice(-500))
      const file = savedPath(text)
      const saved = fs.readFileSync(file, "utf8")
      assert.isTrue(saved.endsWith(trailer))
      assert.strictEqual(saved.slice(saved.indexOf("\n\n---\n\n") + 7, -trailer.length), CONTENT.slice(0, -1))
      const entry = (yield* store.list).find((e) => e.path === file)
      assert.strictEqual(entry?.bytes, Buffer.byteLength(saved))
      const status = yield* cache.check(fs.statSync(w.file), w.file)
      assert.strictEqual(status.state, "fresh")
      assert.isDefined(status.state === "fresh" ? status.entry.lastReadAt : undefined)
    }).pipe(Effect.provide(w.layer))
  }, 120_000)

  it.live("line numbers are written as the page streams, and an offset starts the page there", () => {
    const w = world()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const from = 20_000
      const r = yield* scheduler.runOne({
        callId: "1",
        name: "read_file",
        args: { file_path: "big.txt", offset: from, limit: LINES, line_numbers: true }
      })
      const text = textOf(r)
      assert.strictEqual(r._tag, "Success", text.slice(0, 500))
      assert.include(text, `Showing a long page of big.txt from line ${from + 1};`)
      const saved = fs.readFileSync(savedPath(text), "utf8")
      const rows = saved.split("\n\n---\n\n")[1]!.split("\n")
      assert.strictEqual(rows.length, LINES - from)
      assert.strictEqual(rows[0], `${String(from + 1).padStart(6)}\t${`${from}:`.padEnd(99, "x")}`)
      assert.strictEqual(rows.at(-1), `${String(LINES).padStart(6)}\t${`${LINES - 1}:`.padEnd(99, "x")}`)
      assert.include(text, `[Shown: lines ${from + 1}-${LINES} of ${LINES} total lines of big.txt.]`)
    }).pipe(Effect.provide(w.layer))
  }, 120_000)

  it.live("a streamed page that stays short is the finished read's result, and an offset past the end is refused", () => {
    const w = world()
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      assert.isAbove(UNLIMITED.truncateChars, STREAMED_PAGE_CHARS)
      const r = yield* scheduler.runOne({ callId: "1", name: "read_file", args: { file_path: "big.txt", offset: 5, limit: 3 } })
      const text = textOf(r)
      assert.match(text, /^Showing lines 6-8 of at least \d+ total lines\.\n\n---\n\n5:x+\n6:x+\n7:x+\n\n---\n\n\[More lines follow in this \d+-byte file/)
      assert.include(text, "To read on, call read_file with offset: 8.]")
      const end = yield* scheduler.runOne({ callId: "2", name: "read_file", args: { file_path: "big.txt", offset: LINES - 1 } })
      assert.strictEqual(textOf(end), `Showing lines ${LINES}-${LINES} of ${LINES} total lines.\n\n---\n\n${CONTENT.slice(-100, -1)}`)
      const past = yield* scheduler.runOne({ callId: "3", name: "read_file", args: { file_path: "big.txt", offset: LINES } })
      assert.strictEqual(past._tag, "Failure")
      assert.include(textOf(past), `which has ${LINES} lines`)
    }).pipe(Effect.provide(w.layer))
  }, 120_000)
})
