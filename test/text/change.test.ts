import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import iconv from "iconv-lite"
import { anchorBudget, findWindowsByAnchor } from "../../src/text/anchor.js"
import { applyChange, ChangeView, countBreaks, type TextChange } from "../../src/text/change.js"
import { decodeText, encodeText, type TextFormat } from "../../src/text/codec.js"
import { encodeChange } from "../../src/text/encodeChange.js"
import {
  changedOldLines,
  changedOldLinesOf,
  createChangePatch,
  createPatchSmart,
  getChangeDiffStat,
  getDiffStat
} from "../../src/text/diff.js"
import { LineTable } from "../../src/text/lines.js"
import { type LinePass, lineSpan, needleKey, scanLines } from "../../src/text/passes.js"
import { resolveEdit, UNICODE_EQUIVALENTS } from "../../src/text/index.js"
import { extractChangeSnippet, extractEditSnippet } from "../../src/text/snippet.js"
import { utf8HasNoLookalikes } from "../../src/text/unicode.js"

// Few distinct lines, so common heads and tails run past the first window and force it to widen.
const LINES = ["a", "b", "a", "", "  a", "a  ", "x y"]
const textArb = fc.tuple(fc.array(fc.constantFrom(...LINES), { maxLength: 40 }), fc.boolean())
  .map(([ls, end]) => ls.join("\n") + (end && ls.length > 0 ? "\n" : ""))
const pieceArb = fc.array(fc.constantFrom("a", "b", "\n", "a\n", "\n\n", " ", ""), { maxLength: 6 }).map((p) => p.join(""))

/** A text and one change of it (start ≤ end inside the text). */
const changeArb = fc.tuple(textArb, fc.nat(), fc.nat(), pieceArb).map(([text, x, y, replacement]) => {
  const a = text.length === 0 ? 0 : x % (text.length + 1)
  const b = text.length === 0 ? 0 : y % (text.length + 1)
  const change: TextChange = { start: Math.min(a, b), end: Math.max(a, b), replacement }
  return { text, change }
})

const views = (text: string, change: TextChange): ReadonlyArray<ChangeView> => [
  new ChangeView(text, change),
  new ChangeView(text, change, countBreaks(text, 0, change.start))
]

describe("a change computed on a window equals the whole-text computation", () => {
  it("property: patch, diff stat, changed lines and snippet (seeded)", () => {
    fc.assert(
      fc.property(changeArb, ({ text, change }) => {
        const next = applyChange(text, change)
        for (const view of views(text, change)) {
          assert.strictEqual(view.newText(), next)
          assert.strictEqual(view.isNoop, next === text)
          assert.strictEqual(view.newBreaks(), countBreaks(next, 0, next.length))
          assert.strictEqual(createChangePatch("f.ts", view), createPatchSmart("f.ts", text, next))
          assert.strictEqual(createChangePatch("f.ts", view, "Original", "Written"), createPatchSmart("f.ts", text, next, "Original", "Written"))
          assert.deepStrictEqual(getChangeDiffStat(view), getDiffStat("f.ts", text, next, next))
          assert.deepStrictEqual(changedOldLinesOf(view), changedOldLines(text, next))
          assert.deepStrictEqual(extractChangeSnippet(view), extractEditSnippet(text, next))
        }
      }),
      { seed: 20261202, numRuns: 3000 }
    )
  })

  it("a head that runs through the whole rest of the file widens the window to the end", () => {
    const text = "a\n".repeat(500)
    // Inserting "a\n" among identical lines: the common head runs to the last line.
    const change = { start: 20, end: 20, replacement: "a\n" }
    const view = new ChangeView(text, change)
    const next = applyChange(text, change)
    assert.strictEqual(createChangePatch("f", view), createPatchSmart("f", text, next))
    assert.include(createChangePatch("f", view), "@@ -498,3 +498,4 @@")
    assert.deepStrictEqual(extractChangeSnippet(view), extractEditSnippet(text, next))
    assert.deepStrictEqual(extractChangeSnippet(view), { startLine: 497, endLine: 502, totalLines: 502, content: "a\na\na\na\na\n" })
  })

  it("a one-line change in the middle of a 20 MB text: the same patch and snippet, with line numbers from the start", () => {
    const text = Array.from({ length: 400_000 }, (_, i) => `line number ${i} with some text\n`).join("")
    const start = text.indexOf("line number 200000 with")
    const change = { start, end: start + "line number".length, replacement: "LINE NUMBER" }
    const view = new ChangeView(text, change)
    const patch = createChangePatch("big", view)
    assert.include(patch, "@@ -199998,7 +199998,7 @@\n line number 199997")
    assert.strictEqual(patch, createPatchSmart("big", text, view.newText()))
    assert.deepStrictEqual(extractChangeSnippet(view), {
      startLine: 199997,
      endLine: 200005,
      totalLines: 400_001,
      content: Array.from({ length: 9 }, (_, k) => 199996 + k).map((i) => `${i === 200000 ? "LINE NUMBER" : "line number"} ${i} with some text`).join("\n")
    })
  })
})

const FORMATS: ReadonlyArray<TextFormat> = [
  { encoding: "utf-8", bom: false, lineEnding: "lf", escapedBytes: false },
  { encoding: "utf-8", bom: true, lineEnding: "crlf", escapedBytes: false },
  { encoding: "utf-8", bom: false, lineEnding: "mixed", escapedBytes: false },
  { encoding: "utf-16le", bom: true, lineEnding: "lf", escapedBytes: false },
  { encoding: "gbk", bom: false, lineEnding: "crlf", escapedBytes: false }
]
const charArb = fc.constantFrom("a", "b", "\n", "é", "中", "\u2019", "😀", " ", "\t")
const unicodeTextArb = fc.array(charArb, { maxLength: 40 }).map((cs) => cs.join(""))

describe("encodeChange", () => {
  it("property: the file's bytes around the change plus the encoded replacement equal the whole new text encoded (seeded)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...FORMATS), unicodeTextArb, fc.nat(), fc.nat(), unicodeTextArb, (format, raw, x, y, replacement) => {
        const text = format.encoding === "gbk" ? raw.replace(/😀|\u2019/g, "x") : raw
        const bytes = encodeText(text, format)
        const decoded = decodeText(bytes, { legacyEncoding: format.encoding === "gbk" ? "gbk" : undefined })
        const t = decoded.text
        // Offsets anywhere, surrogate pairs cut included (those are encoded whole).
        const a = x % (t.length + 1)
        const b = y % (t.length + 1)
        const change = { start: Math.min(a, b), end: Math.max(a, b), replacement: format.encoding === "gbk" ? replacement.replace(/😀|\u2019/g, "y") : replacement }
        const view = new ChangeView(t, change)
        const chunks = encodeChange(bytes, view, decoded.format)
        assert.deepStrictEqual(Buffer.concat(chunks.map((c) => Buffer.from(c))), Buffer.from(encodeText(view.newText(), decoded.format)))
      }),
      { seed: 4242, numRuns: 1500 }
    )
  })

  it("property: UTF-8 files with stray bytes round-trip too (seeded)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 60 }), fc.nat(), fc.nat(), unicodeTextArb, (bytes, x, y, replacement) => {
        const decoded = decodeText(bytes)
        const t = decoded.text
        const a = x % (t.length + 1)
        const b = y % (t.length + 1)
        const view = new ChangeView(t, { start: Math.min(a, b), end: Math.max(a, b), replacement })
        if (!decoded.format.encoding.startsWith("utf")) return
        assert.deepStrictEqual(
          Buffer.concat(encodeChange(bytes, view, decoded.format).map((c) => Buffer.from(c))),
          Buffer.from(encodeText(view.newText(), decoded.format))
        )
      }),
      { seed: 99, numRuns: 800 }
    )
  })

  it("plain UTF-8 reuses the file's own bytes around the change (three chunks, no copy); other formats are encoded whole", () => {
    const text = "héllo\nwörld\n"
    const bytes = Buffer.from(text, "utf8")
    const view = new ChangeView(text, { start: 6, end: 11, replacement: "WÖRLD" })
    const chunks = encodeChange(bytes, view, { encoding: "utf-8", bom: false, lineEnding: "lf", escapedBytes: false })
    assert.strictEqual(chunks.length, 3)
    assert.strictEqual(chunks[0]!.buffer, bytes.buffer)
    assert.strictEqual(Buffer.concat(chunks).toString("utf8"), "héllo\nWÖRLD\n")
    const gbkText = "你好\n世界\n"
    const gbk = iconv.encode(gbkText, "gbk")
    const gbkView = new ChangeView(gbkText, { start: 3, end: 5, replacement: "天下" })
    const whole = encodeChange(gbk, gbkView, { encoding: "gbk", bom: false, lineEnding: "lf", escapedBytes: false })
    assert.strictEqual(whole.length, 1)
    assert.strictEqual(iconv.decode(Buffer.from(whole[0]!), "gbk"), "你好\n天下\n")
  })
})

const PASSES: ReadonlyArray<LinePass> = ["identity", "trim_end", "fold_trim_end"]
const fileLineArb = fc.constantFrom("a", "a  ", "b", "", "  a", "a\u00a0", "\u201cq\u201d", "\"q\"", "x\r")
const fileArb = fc.array(fileLineArb, { maxLength: 30 }).map((ls) => ls.join("\n"))
const needleArb = fc.array(fileLineArb, { minLength: 1, maxLength: 4 })

describe("line windows by anchor", () => {
  it("property: the anchor search finds exactly the windows the all-lines scan finds (seeded)", () => {
    fc.assert(
      fc.property(fileArb, needleArb, fc.constantFrom(...PASSES), fc.boolean(), (text, lines, pass, withBreak) => {
        const table = new LineTable(text)
        const n = lines.length
        const accept = withBreak ? (start: number) => table.hasBreakAfter(start + n - 1) : undefined
        const expected = scanLines(table, lines, pass, accept).map((start) => lineSpan(table, start, n, withBreak))
        const found = findWindowsByAnchor({
          text: pass === "fold_trim_end" ? table.normalized() : text,
          keys: lines.map((line) => needleKey(pass, line)),
          trimEnd: pass !== "identity",
          withBreak
        })
        if (found !== undefined) assert.deepStrictEqual(found, expected)
        else assert.isTrue(lines.every((line) => needleKey(pass, line) === ""), "only all-blank needles fall back on small texts")
      }),
      { seed: 7, numRuns: 3000 }
    )
  })

  it("gives up exactly when its step budget is spent (so the caller scans all lines instead)", () => {
    // Every line is the anchor: each occurrence costs one step per needle line.
    const build = (lines: number) => "}\n".repeat(lines)
    const query = (text: string) => ({ text, keys: ["}"], trimEnd: true, withBreak: true })
    const budget = anchorBudget(build(1024).length)
    assert.strictEqual(budget, 1024, "short texts get the minimum budget")
    assert.strictEqual(findWindowsByAnchor(query(build(budget)))?.length, budget)
    assert.isUndefined(findWindowsByAnchor(query(build(budget + 1))))
    // A larger text gets a budget of one step per 64 characters.
    const big = build(40_000)
    assert.strictEqual(anchorBudget(big.length), 1250)
    assert.isUndefined(findWindowsByAnchor(query(big)))
    const sparse = "}\n" + "a line of sixty-two characters, never the anchor itself.....\n".repeat(40_000)
    assert.deepStrictEqual(findWindowsByAnchor(query(sparse)), [[0, 2]])
  })
})

describe("the look-alike hint", () => {
  it("utf8HasNoLookalikes: false for every look-alike and for any E2 lead byte; true for other UTF-8", () => {
    for (const ch of Object.keys(UNICODE_EQUIVALENTS)) assert.isFalse(utf8HasNoLookalikes(Buffer.from(`a${ch}b`, "utf8")), ch)
    assert.isFalse(utf8HasNoLookalikes(Buffer.from("a → b", "utf8")), "another E2 character: maybe")
    assert.isTrue(utf8HasNoLookalikes(Buffer.from("plain ASCII, é, 中, 😀, \u00a1", "utf8")))
    assert.isTrue(utf8HasNoLookalikes(new Uint8Array(0)))
    // A view into a larger buffer only looks at its own bytes.
    const outer = Buffer.from("\u00a0abc", "utf8")
    assert.isTrue(utf8HasNoLookalikes(outer.subarray(2)))
  })

  it("property: with the hint, resolveEdit answers exactly as without it on content without look-alikes (seeded)", () => {
    const contentArb = fc.array(fc.constantFrom("a", "a  ", "  a", "b", "", "\"q\"", "x - y"), { maxLength: 20 }).map((ls) => ls.join("\n"))
    const needleArb = fc.array(fc.constantFrom("a", "a ", "  a", "b", "\u201cq\u201d", "x \u2013 y", "\"q\"", ""), { minLength: 1, maxLength: 3 })
      .map((ls) => ls.join("\n"))
    fc.assert(
      fc.property(contentArb, needleArb, fc.boolean(), (content, needle, replaceAll) => {
        assert.deepStrictEqual(
          resolveEdit(content, needle, "Z", { replaceAll, noLookalikes: true }),
          resolveEdit(content, needle, "Z", { replaceAll })
        )
      }),
      { seed: 11, numRuns: 1500 }
    )
  })
})
