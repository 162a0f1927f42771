/**
 * The `rg --json` reader: lazy parsing (begin and text-file end events never parsed), the 20 MiB
 * cap applied from `bytes_searched` and match offsets (with a file's remaining matches skipped
 * unparsed), binary files, non-UTF-8 paths and lines, and the `--debug` stderr scan for `.rgignore`.
 */
import { assert, describe, it } from "@effect/vitest"
import { MAX_SEARCH_FILE_BYTES } from "../../src/search/constants.js"
import { makeRgCollector, type RgField } from "../../src/search/grep/rgJson.js"

const CAP = MAX_SEARCH_FILE_BYTES

const field = (path: string): RgField => ({ text: path })
const begin = (path: RgField) => JSON.stringify({ type: "begin", data: { path } })
const match = (path: RgField, line: number, text: string, offset = 0) =>
  JSON.stringify({
    type: "match",
    data: { path, lines: { text }, line_number: line, absolute_offset: offset, submatches: [] }
  })
const end = (path: RgField, bytes: number | undefined, binary: number | null = null) =>
  JSON.stringify({
    type: "end",
    data: { path, binary_offset: binary, stats: bytes === undefined ? { searches: 1 } : { bytes_searched: bytes, searches: 1 } }
  })
const summary = JSON.stringify({ type: "summary", data: { stats: {} } })

/** Feeds lines to a fresh collector; `sizes` answers the stat fallback. */
const collect = (lines: ReadonlyArray<string | Buffer>, sizes: Record<string, number> = {}) => {
  const asked: Array<string> = []
  const collector = makeRgCollector({
    keep: 1000,
    fileSize: (path) => {
      const name = path?.text ?? ""
      asked.push(name)
      return sizes[name]
    }
  })
  for (const line of lines) collector.onLine(typeof line === "string" ? Buffer.from(line) : line)
  for (const rel of collector.dropped) collector.raw.files.delete(rel)
  const files = Object.fromEntries([...collector.raw.files].map(([rel, f]) => [rel, { count: f.count, lines: f.lines.map(([n, t]) => `${n}:${t}`) }]))
  return { files, state: collector.state, asked, collector }
}

describe("rg --json reader", () => {
  it("keeps the matches of text files, strips line endings, and never parses begin or text-file end events", () => {
    const a = field("./a.txt")
    const { files, state, asked } = collect([
      // a begin or end event that would not parse as JSON is still read by its first bytes
      `{"type":"begin","data":{"path":{"text":"./a.txt"}}} not json`,
      match(a, 1, "one\n"),
      match(a, 3, "three\r\n"),
      `{"type":"end","data":{"path":{"text":"./a.txt"},"binary_offset":null,"stats":{"bytes_searched":12}} not json`,
      summary
    ])
    assert.deepStrictEqual(files, { "a.txt": { count: 2, lines: ["1:one", "3:three"] } })
    assert.isTrue(state.sawSummary)
    assert.isUndefined(state.parseFailure)
    assert.deepStrictEqual(asked, [])
  })

  it("drops a file by its end event's bytes_searched: kept at exactly 20 MiB, dropped one byte over", () => {
    const at = field("./at.txt")
    const over = field("./over.txt")
    const { files } = collect([
      begin(at), match(at, 1, "x\n"), end(at, CAP),
      begin(over), match(over, 1, "x\n"), end(over, CAP + 1)
    ])
    assert.deepStrictEqual(Object.keys(files), ["at.txt"])
  })

  it("drops a file at its first match past the cap and skips its remaining matches unparsed", () => {
    const big = field("./big.txt")
    const bigger = field("./big.txt2")
    const small = field("./big")
    const { files, state } = collect([
      begin(big),
      match(big, 1, "early\n", 0),
      match(big, 9, "late\n", CAP),
      // the same file's next match event is skipped by its first bytes: this one would not parse
      `{"type":"match","data":{"path":{"text":"./big.txt"},"lines":{"text": broken`,
      end(big, CAP + 100),
      // files whose paths share a prefix with it are read as usual
      begin(bigger), match(bigger, 2, "kept\n", 10), end(bigger, 100),
      begin(small), match(small, 4, "kept too\n", 10), end(small, 100)
    ])
    assert.isUndefined(state.parseFailure)
    assert.deepStrictEqual(files, { "big.txt2": { count: 1, lines: ["2:kept"] }, "big": { count: 1, lines: ["4:kept too"] } })
  })

  it("stops skipping at the next file, even one with the same path prefix", () => {
    const big = field("./x")
    const next = field("./x,y")
    const { files, state } = collect([
      begin(big), match(big, 1, "far\n", CAP + 5),
      begin(next), match(next, 1, "near\n"), end(next, 10)
    ])
    assert.isUndefined(state.parseFailure)
    assert.deepStrictEqual(files, { "x,y": { count: 1, lines: ["1:near"] } })
  })

  it("drops files with a NUL byte (binary_offset) and falls back to a stat when bytes_searched is missing", () => {
    const bin = field("./bin.dat")
    const old = field("./old.txt")
    const huge = field("./huge.txt")
    const { files, asked } = collect([
      begin(bin), match(bin, 1, "x\n"), end(bin, 50, 20),
      begin(old), match(old, 1, "x\n"), end(old, undefined),
      begin(huge), match(huge, 1, "x\n"), end(huge, undefined)
    ], { "./old.txt": 10, "./huge.txt": CAP + 1 })
    assert.deepStrictEqual(Object.keys(files), ["old.txt"])
    assert.deepStrictEqual(asked, ["./old.txt", "./huge.txt"])
  })

  it("decodes base64 paths and lines (invalid UTF-8 shown lossily)", () => {
    const raw: RgField = { bytes: Buffer.from("./caf\xe9.txt", "latin1").toString("base64") }
    const line = JSON.stringify({
      type: "match",
      data: { path: raw, lines: { bytes: Buffer.from("caf\xe9 hello\r\n", "latin1").toString("base64") }, line_number: 7, absolute_offset: 0 }
    })
    const { files } = collect([begin(raw), line, end(raw, 20)])
    assert.deepStrictEqual(files, { "caf\uFFFD.txt": { count: 1, lines: ["7:caf\uFFFD hello"] } })
  })

  it("asks the post-filter once per file, at its first match, and keeps nothing of a hidden file", () => {
    const shown = field("./shown.txt")
    const hidden = field("./hidden.txt")
    const asked: Array<string> = []
    const collector = makeRgCollector({
      keep: 1000,
      fileSize: () => undefined,
      visible: (rel) => {
        asked.push(rel)
        return rel !== "hidden.txt"
      }
    })
    for (const line of [begin(hidden), match(hidden, 1, "a\n"), match(hidden, 2, "b\n"), end(hidden, 10), begin(shown), match(shown, 1, "c\n"), match(shown, 5, "d\n"), end(shown, 10)]) {
      collector.onLine(Buffer.from(line))
    }
    assert.deepStrictEqual(asked, ["hidden.txt", "shown.txt"])
    assert.deepStrictEqual([...collector.raw.files.keys()], ["shown.txt"])
    assert.strictEqual(collector.raw.files.get("shown.txt")!.count, 2)
  })

  it("reports output that is not rg --json", () => {
    const { state } = collect(["this is not json"])
    assert.strictEqual(state.parseFailure, "this is not json")
  })

  it("stores at most `keep` lines in all, counts the rest unparsed, and calls onCapped once the ended files hold more than `keep`", () => {
    let capped = 0
    const collector = makeRgCollector({ keep: 3, fileSize: () => undefined, onCapped: () => capped++ })
    const a = field("./a.txt")
    const b = field("./b.txt")
    const c = field("./c.txt")
    const feed = (line: string) => collector.onLine(Buffer.from(line))
    for (const line of [begin(a), match(a, 1, "x\n"), match(a, 2, "x\n"), end(a, 10)]) feed(line)
    assert.strictEqual(collector.state.committed, 2)
    feed(begin(b))
    feed(match(b, 1, "x\n"))
    // past the 3 lines stored, a match of the same file is only counted: this one would not parse
    feed(`{"type":"match","data":{"path":{"text":"./b.txt"},"lines":{"text": broken`)
    assert.strictEqual(capped, 0) // b has not ended: it may still turn out binary
    feed(end(b, 10))
    assert.strictEqual(capped, 1)
    assert.isTrue(collector.state.capped)
    // after the cap, nothing more is read
    for (const line of [begin(c), match(c, 1, "x\n"), end(c, 10), "not json"]) feed(line)
    assert.strictEqual(capped, 1)
    assert.isUndefined(collector.state.parseFailure)
    assert.strictEqual(collector.raw.stored, 3)
    assert.deepStrictEqual([...collector.raw.files].map(([rel, f]) => [rel, f.count, f.lines.length]), [["a.txt", 2, 2], ["b.txt", 2, 1]])
  })

  it("frees the lines of a file that ends binary for the files after it, and does not count it", () => {
    let capped = 0
    const collector = makeRgCollector({ keep: 2, fileSize: () => undefined, onCapped: () => capped++ })
    const bin = field("./a.bin")
    const txt = field("./b.txt")
    const lines = [begin(bin), match(bin, 1, "x\n"), match(bin, 2, "x\n"), match(bin, 3, "x\n"), end(bin, 50, 20), begin(txt), match(txt, 4, "y\n"), match(txt, 5, "y\n"), end(txt, 10)]
    for (const line of lines) collector.onLine(Buffer.from(line))
    assert.strictEqual(capped, 0)
    assert.strictEqual(collector.state.committed, 2)
    assert.deepStrictEqual([...collector.raw.files].map(([rel, f]) => [rel, f.lines.map(([n]) => n)]), [["b.txt", [4, 5]]])
  })

  it("unordered (a parallel walk): keeps `keep` lines per file, trimmed to the first `keep` in tree order as files end; counts stay whole", () => {
    const collector = makeRgCollector({ keep: 2, fileSize: () => undefined, ordered: false })
    // files arrive in reverse tree order, three matches each
    for (const name of ["e", "d", "c", "b", "a"]) {
      const f = field(`./${name}.txt`)
      for (const line of [begin(f), match(f, 1, "x\n"), match(f, 2, "x\n"), match(f, 3, "x\n"), end(f, 10)]) collector.onLine(Buffer.from(line))
      assert.isAtMost(collector.raw.stored, 3 * 2)
    }
    const files = collector.raw.files
    assert.deepStrictEqual([...files.values()].map((f) => f.count), [3, 3, 3, 3, 3])
    assert.deepStrictEqual(files.get("a.txt")!.lines.map(([n]) => n), [1, 2])
    assert.strictEqual(collector.state.committed, 15)
    assert.isFalse(collector.state.capped)
  })
})
