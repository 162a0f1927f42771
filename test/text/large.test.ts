import { assert, describe, it } from "@effect/vitest"
import { findMatchedSlice, normalizeEditStrings, resolveEdit } from "../../src/text/index.js"

const TARGET = 20 * 1024 * 1024

const buildFile = (line: (i: number) => string): { readonly content: string; readonly lines: number } => {
  const parts: Array<string> = []
  let size = 0
  let i = 0
  while (size < TARGET) {
    const text = line(i++)
    parts.push(text)
    size += text.length + 1
  }
  return { content: parts.join("\n") + "\n", lines: i }
}

describe("large inputs (20 MB, linear ladder)", () => {
  it("a distinct-lines file: a miss runs the whole ladder and still finds the near-miss", () => {
    const { content, lines } = buildFile((i) => `    const value_${i} = compute(${i}, "x");`)
    assert.isAtLeast(content.length, TARGET)
    const at = Math.floor(lines / 2)
    const needle = [at, at + 1, at + 2].map((i) => `    const value_${i} = compute(${i}, "x");`)
    needle[1] = needle[1]!.replace("\"x\"", "\"y\"")
    const result = resolveEdit(content, needle.join("\n"), "replacement")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, at + 2)
    assert.strictEqual(result.nearMiss?.diff, "…${0}= compute(${1}, \"[-y-]{+x+}\");".replace("${0}", `const value_${at + 1} `.slice(-24 + `= compute(${at + 1}, "`.length)).replace("${1}", String(at + 1)))
  })

  it("a file of identical lines: a long needle that misses stays linear (no lines × needle lines)", () => {
    const { content, lines } = buildFile(() => "    return value;")
    const needle = "return value;\n".repeat(2000) + "return other;\n"
    const result = resolveEdit(content, needle, "x")
    assert.strictEqual(result._tag, "NoMatch")
    assert.isAbove(lines, 1_000_000)
    assert.isNull(findMatchedSlice(content, needle))
    assert.strictEqual(normalizeEditStrings(content, needle, "x").oldString, needle)
  })
})
