import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import iconv from "iconv-lite"
import { LINE_CUT_MARKER, pageBytes, pageStream, type PageOptions, type TextPage } from "../../src/files/readText.js"

/** A deterministic pseudo-random generator (mulberry32), so a failure reproduces. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** Streams `bytes` as if it were a file: the first `firstBytes`, then the reads pageStream asks for. */
const streamed = (bytes: Uint8Array, options: PageOptions, firstBytes: number, legacy?: string) => {
  let reads = 0
  let bytesRead = Math.min(firstBytes, bytes.length)
  const page = Effect.runSync(pageStream(bytes.subarray(0, firstBytes), bytes.length, options, (position, length) =>
    Effect.sync(() => {
      reads++
      bytesRead += Math.min(length, bytes.length - position)
      return bytes.subarray(position, position + length)
    }), legacy))
  return { page, reads, bytesRead }
}

const shown = (p: TextPage) => ({ content: p.content, start: p.start, end: p.end, cut: p.cut })

describe("read_file: a line fed in pieces is paged as if it were whole", () => {
  it("streamed pages equal whole-file pages (content, window, cut) over 600 random files and windows", () => {
    const next = random(23)
    const pick = (n: number) => Math.floor(next() * n)
    const pieces = ["a", "bc", " ", "\t", "\r", "é", "😀", "xyz", "  ", "\u00a0"]
    for (let trial = 0; trial < 600; trial++) {
      const lines = Array.from({ length: 1 + pick(8) }, () => {
        const long = next() < 0.2
        return Array.from({ length: long ? 50 + pick(400) : pick(12) }, () => pieces[pick(pieces.length)]).join("")
      })
      const text = lines.join(next() < 0.5 ? "\n" : "\r\n") + (next() < 0.5 ? "\n" : "")
      const bytes = Buffer.from(text, "utf8")
      const options = { offset: pick(3), limit: 1 + pick(6), charLimit: pick(2) === 0 ? 5 + pick(20) : 20 + pick(400) }
      const whole = pageBytes(bytes, options)
      if (whole.total > 0 && options.offset >= whole.total) continue
      const { page } = streamed(bytes, options, 1 + pick(16))
      const context = JSON.stringify({ trial, text, options })
      assert.deepStrictEqual(shown(page), shown(whole), context)
      if (page.totalKnown) assert.strictEqual(page.total, whole.total, context)
      else assert.isAtMost(page.total, whole.total, context)
    }
  })

  it("a 64 MiB line without a break: the first page is its first characters, after reading no more than the page needs", () => {
    const bytes = Buffer.alloc(64 * 1024 * 1024, "q")
    const { page, bytesRead } = streamed(bytes, { offset: 0, limit: 1000, charLimit: 25_000 }, 64 * 1024)
    assert.strictEqual(page.content, "q".repeat(25_000) + LINE_CUT_MARKER)
    assert.deepStrictEqual([page.start, page.end, page.cut, page.totalKnown, page.total], [1, 1, true, false, 1])
    assert.strictEqual(bytesRead, 64 * 1024)
  })

  it("a line of trailing whitespace longer than any read is read to its end and shown trimmed, not cut", () => {
    const text = "head" + " ".repeat(3 * 1024 * 1024) + "\nnext\n"
    const { page } = streamed(Buffer.from(text), { offset: 0, limit: 10, charLimit: 100 }, 1024)
    assert.deepStrictEqual(shown(page), { content: "head\nnext", start: 1, end: 2, cut: false })
    assert.deepStrictEqual([page.total, page.totalKnown], [2, true])
  })

  it("past a long line by offset: only counted, never assembled, and the page after it is exact", () => {
    const text = "x".repeat(8 * 1024 * 1024) + "\nsecond\nthird"
    const { page } = streamed(Buffer.from(text), { offset: 1, limit: 5, charLimit: 100 }, 4096)
    assert.deepStrictEqual(shown(page), { content: "second\nthird", start: 2, end: 3, cut: false })
    assert.deepStrictEqual([page.total, page.totalKnown], [3, true])
  })

  it("UTF-16 and a legacy encoding (windows-1251) on the same path: a long line is cut at the page", () => {
    const line = "Привет мир ".repeat(200_000)
    for (const [encoding, bytes] of [
      ["utf-16le", Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(line + "\nnext", "utf-16le")])],
      ["windows-1251", iconv.encode(line + "\nnext", "windows-1251")]
    ] as const) {
      const { page, bytesRead } = streamed(bytes, { offset: 0, limit: 10, charLimit: 1000 }, 64 * 1024, encoding === "windows-1251" ? encoding : undefined)
      assert.strictEqual(page.encoding, encoding)
      assert.strictEqual(page.content, line.slice(0, 1000) + LINE_CUT_MARKER, encoding)
      assert.isFalse(page.totalKnown)
      assert.strictEqual(bytesRead, 64 * 1024, encoding)
    }
  })
})
