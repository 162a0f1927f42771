import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import iconv from "iconv-lite"
import { Effect } from "effect"
import { FIRST_CHUNK_BYTES, MAX_CHUNK_BYTES, STREAM_THRESHOLD_BYTES } from "../../src/files/readText.js"
import { READ_PROGRESS_BYTES } from "../../src/files/readKinds.js"
import type { LivePart, ProgressPart } from "../../src/tool/result.js"
import { fileWorld, textOf } from "./helpers.js"

/** `lines` lines of `width` characters (the line number first), each ending in `\n`. */
const numbered = (lines: number, width: number): string =>
  Array.from({ length: lines }, (_, i) => `${i}:`.padEnd(width, "x") + "\n").join("")

/** A file of exactly `size` bytes: 100-byte lines, the last one shortened (and still ending in `\n`). */
const sized = (size: number): string => {
  const full = numbered(Math.floor(size / 100), 99)
  const rest = size - full.length
  return rest === 0 ? full : full + "r".repeat(rest - 1) + "\n"
}

describe("read_file: streaming of large files at its thresholds", () => {
  it("the thresholds: streamed from 10 MiB, first read 64 KiB, reads double up to 1 MiB", () => {
    assert.strictEqual(STREAM_THRESHOLD_BYTES, 10 * 1024 * 1024)
    assert.strictEqual(FIRST_CHUNK_BYTES, 64 * 1024)
    assert.strictEqual(MAX_CHUNK_BYTES, 1024 * 1024)
  })

  it.effect("one byte below 10 MiB: decoded whole, exact total; at and above 10 MiB: only the page is read", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      for (const [size, streamed] of [[STREAM_THRESHOLD_BYTES - 1, false], [STREAM_THRESHOLD_BYTES, true], [STREAM_THRESHOLD_BYTES + 1, true]] as const) {
        const file = w.file(`f${size}.txt`, sized(size))
        assert.strictEqual(fs.statSync(file).size, size)
        const total = sized(size).split("\n").length - 1
        const r = yield* w.read.call({ file_path: file, offset: 0, limit: 3 })
        const t = textOf(r)
        assert.include(t, `0:${"x".repeat(97)}\n1:${"x".repeat(97)}\n2:${"x".repeat(97)}`)
        if (streamed) {
          assert.match(t, /^Showing lines 1-3 of at least \d+ total lines\./, `${size}`)
          assert.match(String(r.display), /^Read lines 1-3 of at least \d+ from /)
          assert.isFalse(r.data.lines?.totalKnown)
          // Only the first read (64 KiB of 100-byte lines) was decoded.
          assert.strictEqual(r.data.lines?.total, Math.floor(FIRST_CHUNK_BYTES / 100) + 1)
        } else {
          assert.isTrue(t.startsWith(`Showing lines 1-3 of ${total} total lines.`), `${size}`)
          assert.include(t, `[${total - 3} more lines. To read on, call read_file with offset: 3.]`)
          assert.isTrue(r.data.lines?.totalKnown)
        }
      }
    }))

  it.effect("a page reaching the end of a streamed file has the exact total; an offset past the end is refused with it", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const content = sized(STREAM_THRESHOLD_BYTES + 1)
      const total = content.split("\n").length - 1
      const file = w.file("big.txt", content)
      const end = yield* w.read.call({ file_path: file, offset: total - 2 })
      assert.isTrue(textOf(end).startsWith(`Showing lines ${total - 1}-${total} of ${total} total lines.`))
      assert.notInclude(textOf(end), "more lines")
      assert.deepStrictEqual(end.data.lines, { start: total - 1, end: total, total, totalKnown: true })
      const past = yield* Effect.flip(w.read.call({ file_path: file, offset: total }))
      assert.strictEqual(past.code, "invalid_tool_params")
      assert.include(past.message, `which has ${total} lines`)
    }))

  it.effect("lines and a multi-byte character split across the 64 KiB first read and the doubling reads stay whole", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      // "é" (2 bytes) straddles the first read's end (655 lines of 100 bytes, then 35 more bytes);
      // 38-byte lines straddle every later read boundary.
      const head = "a".repeat(99).concat("\n").repeat(655) + "b".repeat(35) + "é\n"
      assert.strictEqual(Buffer.byteLength(head.slice(0, -2)), FIRST_CHUNK_BYTES - 1)
      const body = numbered(Math.ceil((STREAM_THRESHOLD_BYTES + 4 * MAX_CHUNK_BYTES) / 38), 37)
      const file = w.file("split.txt", head + body)
      const first = yield* w.read.call({ file_path: file, offset: 654, limit: 3 })
      assert.strictEqual(first.data.encoding, "utf-8")
      assert.include(textOf(first), `${"a".repeat(99)}\n${"b".repeat(35)}é\n0:`)
      // A page 3 MiB in: reached through reads of 128, 256, 512 KiB and then 1 MiB each.
      const lineAt = Math.floor((3 * MAX_CHUNK_BYTES) / 38)
      const deep = yield* w.read.call({ file_path: file, offset: 656 + lineAt, limit: 40 })
      const rows = textOf(deep).split("\n\n---\n\n")[1]!.split("\n")
      assert.strictEqual(rows.length, 40)
      rows.forEach((row, k) => assert.strictEqual(row, `${lineAt + k}:`.padEnd(37, "x")))
    }))

  it.effect("the encoding is detected on the first read even when it ends inside a UTF-8 character", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      // ASCII but for one "€" (3 bytes) cut after its first byte by the 64 KiB sample: still UTF-8.
      const head = "a".repeat(99).concat("\n").repeat(655) + "b".repeat(35) + "€\n"
      assert.strictEqual(Buffer.byteLength(head.slice(0, -2)), FIRST_CHUNK_BYTES - 1)
      const file = w.file("cut.txt", head + numbered(STREAM_THRESHOLD_BYTES / 50, 50))
      const r = yield* w.read.call({ file_path: file, offset: 655, limit: 1 })
      assert.strictEqual(r.data.encoding, "utf-8")
      assert.strictEqual(textOf(r).split("\n\n---\n\n")[1], `${"b".repeat(35)}€`)
    }))

  it.effect("UTF-16 and GBK files of 10 MB and more are streamed and stop at the page as well", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const text = numbered(STREAM_THRESHOLD_BYTES / 40, 40).replace(/x{10}/g, "你好世界的")
      const utf16 = w.file("wide.txt", Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, "utf-16le")]))
      const r16 = yield* w.read.call({ file_path: utf16, offset: 5, limit: 2 })
      assert.strictEqual(r16.data.encoding, "utf-16le")
      assert.include(textOf(r16), `Showing lines 6-7 of at least`)
      assert.include(textOf(r16), text.split("\n")[5]!)
      const gbk = w.file("gbk.txt", iconv.encode(text, "gbk"))
      assert.isAtLeast(fs.statSync(gbk).size, STREAM_THRESHOLD_BYTES)
      const rg = yield* w.read.call({ file_path: gbk, offset: 1000, limit: 1 })
      assert.strictEqual(rg.data.encoding, "gbk")
      assert.include(textOf(rg), text.split("\n")[1000]!)
    }))

  it.effect("a page cut by the character budget stops the stream too; the cut line's rest counts as unread", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("wide-lines.txt", ("y".repeat(30_000) + "\n").repeat(Math.ceil(STREAM_THRESHOLD_BYTES / 30_001)))
      const r = yield* w.read.call({ file_path: file })
      const t = textOf(r)
      assert.match(t, /^Showing lines 1-1 of at least \d+ total lines\./)
      assert.include(t, "... [truncated]")
      assert.isTrue(r.data.truncated)
    }))
})

describe("read_file: live progress of a large read", () => {
  it.effect("a read through a 40 MiB file emits a progress part each 16 MiB read, with the bytes and the size", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const size = 40 * 1024 * 1024
      const file = w.file("big.txt", sized(size))
      const lines = Math.floor(size / 100)
      const seen: Array<LivePart> = []
      const r = yield* w.read.call({ file_path: file, offset: lines - 1, limit: 1 }, {
        emit: (part) => Effect.sync(() => void seen.push(part))
      })
      assert.include(textOf(r), `${lines - 1}:`)
      // Once past each 16 MiB mark, at the end of the read (at most 1 MiB) that crossed it.
      assert.strictEqual(seen.length, 2)
      seen.forEach((p, i) => {
        assert.strictEqual(p.type, "progress")
        const { progress, total } = p as ProgressPart
        assert.strictEqual(total, size)
        assert.isAtLeast(progress!, (i + 1) * READ_PROGRESS_BYTES)
        assert.isBelow(progress!, (i + 1) * READ_PROGRESS_BYTES + MAX_CHUNK_BYTES)
      })
      assert.match((seen[0] as ProgressPart).message, /^read_file big\.txt: 1[67] MiB of 40 MiB read$/)
      // A small read, or nobody listening: no progress.
      seen.length = 0
      yield* w.read.call({ file_path: file, offset: 0, limit: 1 }, { emit: (part) => Effect.sync(() => void seen.push(part)) })
      assert.deepStrictEqual(seen, [])
    }))
})
