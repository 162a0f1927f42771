import { assert, describe, it } from "@effect/vitest"
import { resolveEdit } from "../../src/text/index.js"
import { findMatchedSlice } from "../support/reference.js"

const buildFile = (bytes: number, line: (i: number) => string): { readonly content: string; readonly lines: number } => {
  const parts: Array<string> = []
  let size = 0
  let i = 0
  while (size < bytes) {
    const text = line(i++)
    parts.push(text)
    size += text.length + 1
  }
  return { content: parts.join("\n") + "\n", lines: i }
}

const MB = 1024 * 1024

describe("large inputs (linear ladder, bounded near-miss)", () => {
  it("20 MB of distinct lines: a miss runs every rung and still finds the near-miss", () => {
    const line = (i: number) => `    const value_${i} = compute(${i}, "x", options.defaults, context);`
    const { content, lines } = buildFile(20 * MB, line)
    assert.isAtLeast(content.length, 20 * MB)
    const at = Math.floor(lines / 2)
    const needle = [at, at + 1, at + 2].map(line)
    needle[1] = needle[1]!.replace("\"x\"", "\"y\"")
    const result = resolveEdit(content, needle.join("\n"), "replacement")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, at + 2)
    assert.strictEqual(result.nearMiss?.expected, needle[1])
    assert.match(result.nearMiss?.diff ?? "", /compute\(\d+, "\[-y-\]\{\+x\+\}", options\.defaults, con…$/)
  })

  it("20 MB of identical lines: a long needle that misses at its last line stays linear", () => {
    const content = "    return value;\n".repeat(Math.ceil((20 * MB) / 18))
    assert.isAbove(content.length, 20 * MB - 1)
    // Every file line equals the needle's first 2000 lines, so a window-by-window scan would do
    // lines × 2000 comparisons; the line passes run KMP over line ids instead.
    const needle = "    return value;\n".repeat(2000) + "    return other;\n"
    const result = resolveEdit(content, needle, "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag === "NoMatch") assert.strictEqual(result.nearMiss?.expected, "    return other;")
  })

  it("20 MB on a single line (minified): a miss stays linear and the near-miss is clipped", () => {
    const content = "let value=1;".repeat(2 * MB)
    assert.isAtLeast(content.length, 20 * MB)
    const result = resolveEdit(content, "let value=1;value=2;", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, 1)
    assert.isAtMost(result.nearMiss?.actual.length ?? 0, 401)
    assert.isAtMost(result.nearMiss?.diff.length ?? 0, 200)
    assert.match(result.nearMiss?.diff ?? "", /^let value=1;[^\n]*\[-/)
  })

  it("the reference path is linear too, and the indentation rung's budget bounds look-alike windows", () => {
    const content = "    return value;\n".repeat(Math.ceil((4 * MB) / 18))
    // 200k windows × 2000 lines would be 4e8 indentation comparisons without the budget.
    const shifted = "  return value;\n".repeat(2000) + "return value;\n"
    assert.strictEqual(resolveEdit(content, shifted, "x")._tag, "NoMatch")
    // findMatchedSlice / normalizeEditStrings: every pass, then every pass without the final empty line.
    const missing = "    return value;\n".repeat(2000) + "    return other;\n"
    assert.isNull(findMatchedSlice(content, missing))
  })

  it("20 MB of identical lines: the any-column check of an approximate hit stays linear", () => {
    const body = "    return value;\n".repeat(Math.ceil((20 * MB) / 18))
    const content = body + "    return other;\n"
    // A trim-end hit at the end of the file: the needle's first 2000 lines occur at every line,
    // so the check for the same text at another column finds the whole-line part everywhere.
    const needle = "    return value;  \n".repeat(2000) + "    return other;"
    const result = resolveEdit(content, needle, "x")
    assert.strictEqual(result._tag, "Match")
    if (result._tag === "Match") assert.strictEqual(result.rung, "trim_end_lines")
    // A two-line needle whose first line is on every line: every line is a candidate.
    const short = resolveEdit(content, "    return value;  \n    return other;", "x")
    assert.strictEqual(short._tag, "Match")
    // One line occurring on every line, at another column too: refused, listing a few places.
    const single = resolveEdit("  " + content, "return value;  ", "x")
    assert.strictEqual(single._tag, "Ambiguous")
  })

  it("20 MB of dashes: a look-alike needle with dash runs stays linear", () => {
    const content = "x--".repeat(Math.ceil((20 * MB) / 3))
    const result = resolveEdit(content, "x\u2014x\u2014y", "z")
    assert.strictEqual(result._tag, "NoMatch")
    const twice = resolveEdit(content + "y\n", "x\u2014x\u2014y", "z")
    assert.strictEqual(twice._tag, "Match")
  })
})
