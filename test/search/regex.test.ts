import { assert, describe, it } from "@effect/vitest"
import { compileGrepPattern, validateGrepPattern } from "../../src/search/regex/compile.js"
import { emitPattern } from "../../src/search/regex/emit.js"
import { caseClosure } from "../../src/search/regex/fold.js"
import { parsePattern } from "../../src/search/regex/parse.js"

const emit = (pattern: string, dialect: "js" | "rust" | "pcre" | "ere") => {
  const parsed = parsePattern(pattern)
  assert.strictEqual(parsed._tag, "Parsed", pattern)
  return parsed._tag === "Parsed" ? emitPattern(parsed.node, dialect) : undefined
}

describe("validateGrepPattern", () => {
  it("accepts what new RegExp accepts", () => {
    assert.isUndefined(validateGrepPattern("foo(bar)?\\d+"))
    assert.isUndefined(validateGrepPattern("\\-"))
  })

  it("reports the reference message for an invalid pattern", () => {
    assert.strictEqual(
      validateGrepPattern("("),
      "Invalid regular expression pattern: (. Error: Invalid regular expression: /(/: Unterminated group"
    )
    const compiled = compileGrepPattern("[a")
    assert.isFalse(compiled.ok)
  })
})

describe("parsePattern keeps the meaning of new RegExp(pattern, 'i')", () => {
  // Annex B corner cases: the canonical matcher must agree with the raw pattern on these lines
  // (single lines: a line never holds `\n` or `\r`, which no class of ours matches).
  const patterns = [
    "\\u{41}", "\\p{L}", "a{,3}", "x{2}", "[\\b]", "\\cJ", "\\c1", "\\0", "\\012", "\\8", "(a)\\1", "(?<n>a)\\k<n>",
    "[a-]", "[\\d-z]", "]", "}", "\\/", "\\-", "[^]", "[]", "a|", "(?:)", "\\x4", "\\u12", "a{2,}?", "[\\w.]+@",
    "\\bfoo\\B", "(?=a)a", "(?!b).", "(?<=a)b", "(?<!a)b", "^\\s*$", "[^\\s\\d]", "\\W\\D\\S", "[\\W\\d]", "[^\\W]",
    "\\k", "(\\d)(\\d)\\2\\1", "\\12", "a{1,2}{", "{", "x{1", "\\$\\^", "[\\]\\\\]", "\\t\\v\\f"
  ]
  const lines = [
    "", "uuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuuu", "p{L}", "A", "xx", "\b", "\u0011", "\0", "8",
    "aa", "a-", "5-z", "]", "}", "/", "-", "anything", "{", "a", "\u0004", "u12", "ab", "joe.doe@x", "foo bar",
    "fooX", "ba", "   ", "x y", "!!", "1a2", "1221", "a{1,2}{", "x{1", "$^", "]\\", "\t\u000b\f", "k"
  ]
  for (const pattern of patterns) {
    it(`agrees on ${JSON.stringify(pattern)}`, () => {
      const compiled = compileGrepPattern(pattern)
      assert.isTrue(compiled.ok)
      if (!compiled.ok) return
      const raw = new RegExp(pattern, "i")
      for (const line of lines) {
        assert.strictEqual(compiled.value.regex.test(line), raw.test(line), `${pattern} on ${JSON.stringify(line)}`)
      }
    })
  }

  it("leaves constructs it cannot re-emit to the JS engine", () => {
    for (const pattern of ["😀+", "\\ud83d", "(?=a)*", "[😀]"]) {
      const compiled = compileGrepPattern(pattern)
      assert.isTrue(compiled.ok && compiled.value.jsOnlyReason !== undefined, pattern)
    }
  })
})

describe("emitPattern", () => {
  it("spells classes out as code point sets without line breaks", () => {
    assert.deepStrictEqual(emit("\\d", "rust"), { _tag: "Emitted", source: "[\\x{30}-\\x{39}]" })
    assert.deepStrictEqual(emit(".", "pcre"), { _tag: "Emitted", source: "[^\\x{A}\\x{D}\\x{2028}-\\x{2029}]" })
    assert.deepStrictEqual(emit("a$", "pcre"), { _tag: "Emitted", source: "a(?=\\r?$)" })
    assert.deepStrictEqual(emit("\\bx", "rust"), { _tag: "Emitted", source: "(?-u:\\b)x" })
  })

  it("reports what each dialect cannot express", () => {
    assert.strictEqual(emit("(?<=a)b", "rust")?._tag, "Unsupported")
    assert.strictEqual(emit("(a)\\1", "rust")?._tag, "Unsupported")
    assert.strictEqual(emit("a\\rb", "rust")?._tag, "Unsupported")
    assert.strictEqual(emit("a{1001}", "rust")?._tag, "Unsupported")
    assert.strictEqual(emit("(?<=a+)b", "pcre")?._tag, "Unsupported")
    assert.strictEqual(emit("(?<=ab|cd)e", "pcre")?._tag, "Emitted")
    assert.strictEqual(emit("\\bx", "ere")?._tag, "Unsupported")
    assert.strictEqual(emit("[\\u4e00-\\u9fff]", "ere")?._tag, "Unsupported")
  })

  it("writes ERE brackets with the special characters where POSIX wants them", () => {
    assert.deepStrictEqual(emit("[\\]\\-^x]", "ere"), { _tag: "Emitted", source: "[]Xx^-]" })
    assert.deepStrictEqual(emit("\\^", "ere"), { _tag: "Emitted", source: "\\^" })
    assert.deepStrictEqual(emit("k", "ere"), { _tag: "Emitted", source: "[Kk\u212A]" })
  })
})

describe("caseClosure", () => {
  it("follows Unicode simple case folding, as JS iu matching does", () => {
    const has = (set: ReturnType<typeof caseClosure>, cp: number) => set.some(([lo, hi]) => cp >= lo && cp <= hi)
    assert.isTrue(has(caseClosure([[0x6b, 0x6b]]), 0x212a)) // k → KELVIN SIGN
    assert.isTrue(has(caseClosure([[0x73, 0x73]]), 0x17f)) // s → LONG S
    assert.isTrue(has(caseClosure([[0xdf, 0xdf]]), 0x1e9e)) // ß → ẞ
    assert.isFalse(has(caseClosure([[0x131, 0x131]]), 0x69)) // dotless ı is not i
  })
})
