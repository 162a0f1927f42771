import { assert, describe, it } from "@effect/vitest"
import { describeGrepLocation, formatGrepResult } from "../../src/search/grep/format.js"
import type { GrepMatch, GrepResult } from "../../src/search/grep/types.js"

const match = (path: string, line: number, text: string): GrepMatch => ({ path, absolutePath: `/ws/${path}`, line, text })
const result = (matches: ReadonlyArray<GrepMatch>, total = matches.length): GrepResult => ({ matches, totalMatches: total, engine: "ripgrep" })
const WS = { _tag: "Workspace", directories: 1 } as const

describe("formatGrepResult", () => {
  it("names the location as the reference does", () => {
    assert.strictEqual(describeGrepLocation({ _tag: "Path", path: "src" }), `in path "src"`)
    assert.strictEqual(describeGrepLocation({ _tag: "Workspace", directories: 3 }), "across 3 workspace directories")
    assert.strictEqual(describeGrepLocation(WS), "in the workspace directory")
  })

  it("says when nothing matched", () => {
    const out = formatGrepResult(result([]), { pattern: "foo", location: { _tag: "Path", path: "src" }, glob: "*.ts" })
    assert.strictEqual(out.llmContent, `No matches found for pattern "foo" in path "src" (filter: "*.ts").`)
    assert.strictEqual(out.display, "No matches found")
    assert.deepStrictEqual(out.resultFilePaths, [])
  })

  it("lists path:line:text under the header (singular for one match)", () => {
    const one = formatGrepResult(result([match("src/a.ts", 10, "const foo = 1")]), { pattern: "foo", location: WS })
    assert.strictEqual(one.llmContent, `Found 1 match for pattern "foo" in the workspace directory:\n---\nsrc/a.ts:10:const foo = 1`)
    assert.strictEqual(one.display, "Found 1 match")
    assert.deepStrictEqual(one.resultFilePaths, ["/ws/src/a.ts"])
    const two = formatGrepResult(result([match("a.ts", 1, "foo"), match("a.ts", 2, "foo()")]), { pattern: "foo", location: WS })
    assert.strictEqual(two.llmContent, `Found 2 matches for pattern "foo" in the workspace directory:\n---\na.ts:1:foo\na.ts:2:foo()`)
    assert.deepStrictEqual(two.resultFilePaths, ["/ws/a.ts"])
    assert.isFalse(two.truncated)
  })

  it("caps lines at the limit with the truncation trailer", () => {
    const matches = [match("a", 1, "x"), match("b", 1, "x"), match("c", 1, "x")]
    const out = formatGrepResult(result(matches.slice(0, 2), 3), { pattern: "x", location: WS, limit: 2 })
    assert.strictEqual(out.llmContent, `Found 3 matches for pattern "x" in the workspace directory:\n---\na:1:x\nb:1:x\n---\n[1 line truncated] ...`)
    assert.strictEqual(out.display, "Found 3 matches (truncated)")
    assert.deepStrictEqual(out.resultFilePaths, ["/ws/a", "/ws/b"])
    const many = formatGrepResult(result(matches, 5), { pattern: "x", location: WS, limit: 3 })
    assert.isTrue(many.llmContent.endsWith("\n---\n[2 lines truncated] ..."))
  })

  it("cuts the line that overflows the character budget and counts it as omitted", () => {
    const matches = [match("a", 1, "x".repeat(20)), match("b", 1, "y".repeat(20)), match("c", 1, "z")]
    const out = formatGrepResult(result(matches), { pattern: "x", location: WS, maxChars: 30 })
    // "a:1:" + 20 = 24 chars fit; the second line gets max(30 - 24 - 1, 10) = 10 chars + "..."
    assert.strictEqual(out.llmContent, `Found 3 matches for pattern "x" in the workspace directory:\n---\na:1:${"x".repeat(20)}\nb:1:yyyyyy...\n---\n[2 lines truncated] ...`)
    assert.deepStrictEqual(out.resultFilePaths, ["/ws/a", "/ws/b"])
    assert.isTrue(out.truncated)
  })

  it("caps at 1,000 lines without a limit", () => {
    const matches = Array.from({ length: 1000 }, (_, i) => match("f", i + 1, "x"))
    const out = formatGrepResult(result(matches, 1500), { pattern: "x", location: WS })
    const lines = out.llmContent.split("\n")
    assert.strictEqual(lines.length, 2 + 1000 + 2)
    assert.strictEqual(lines[lines.length - 1], "[500 lines truncated] ...")
  })
})
