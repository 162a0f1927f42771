import { describe, expect, it } from "@effect/vitest"
import * as fc from "fast-check"
import { byNameOrder, compareText, sortTools } from "../../src/tool/index.js"

// The fast path must never disagree with the collator it stands in for.
const sign = (n: number) => Math.sign(n)

// Characters chosen to hit every branch: case pairs, digits, punctuation the collator may treat
// specially, control characters (ignorable), and non-ASCII letters that sort among ASCII ones.
const alphabet = fc.constantFrom(
  "a", "A", "b", "B", "z", "Z", "0", "1", "9", "_", "-", ".", " ", "~", "$", "\t", "\u0001", "é", "E", "ß", "ü", "😀", "i", "I"
)
const word = fc.array(alphabet, { maxLength: 8 }).map((cs) => cs.join(""))
const asciiWord = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 10 })

describe("compareText", () => {
  it("orders every pair as localeCompare does", () => {
    fc.assert(fc.property(word, word, (a, b) => sign(compareText(a, b)) === sign(a.localeCompare(b))), { numRuns: 20_000 })
  })

  it("orders printable ASCII (the fast path) as localeCompare does", () => {
    fc.assert(fc.property(asciiWord, asciiWord, (a, b) => sign(compareText(a, b)) === sign(a.localeCompare(b))), { numRuns: 20_000 })
    // Shared prefixes and case-only differences, where the fast path hands over to the collator.
    fc.assert(fc.property(asciiWord, asciiWord, asciiWord, (p, a, b) => {
      const x = p + a
      const y = p.toUpperCase() + b
      return sign(compareText(x, y)) === sign(x.localeCompare(y))
    }), { numRuns: 10_000 })
  })

  it("sorts tool names exactly as the localeCompare sort did", () => {
    const names = ["read_file", "Read", "read", "mcp__github__create_issue", "mcp__git-hub__x", "tool_10", "tool_9", "tool-9", "Tool_9", "web_fetch", "webfetch", "écrire", "zeta"]
    const tools = names.map((name, i) => ({ name, displayName: `D${i % 3}` }))
    const expected = [...tools].sort((a, b) => a.name.localeCompare(b.name) || a.displayName.localeCompare(b.displayName))
    expect(sortTools(tools).map((t) => t.name)).toEqual(expected.map((t) => t.name))
    expect(byNameOrder({ name: "a", displayName: "B" }, { name: "a", displayName: "b" })).toBe(sign("B".localeCompare("b")))
  })
})
