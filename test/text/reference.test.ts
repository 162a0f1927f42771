import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { extractEditSnippet, SNIPPET_CONTEXT_LINES, SNIPPET_MAX_LINES, UNICODE_EQUIVALENTS } from "../../src/text/index.js"
import { removeTrailingNewline } from "../../src/text/replace.js"
import {
  applyReplacement,
  countOccurrences,
  findMatchedSlice,
  maybeAugmentOldStringForDeletion,
  normalizeEditStrings
} from "../support/reference.js"

describe("normalizeEditStrings (reference §3.5 vectors)", () => {
  it("keeps an exact old_string and a new_string with extra indentation unchanged", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("const one = 1;\nconst two = 2;\n", "const two = 2;", "  const two = 42;"),
      { oldString: "const two = 2;", newString: "  const two = 42;" }
    )
  })

  it("maps curly quotes in old_string to the file's straight ones", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("const greeting = 'Don't';\n", "const greeting = \u2018Don\u2019t\u2019;", "const greeting = \"Hello\";"),
      { oldString: "const greeting = 'Don't';", newString: "const greeting = \"Hello\";" }
    )
  })

  it("maps an en dash in old_string and keeps new_string verbatim (en dash, trailing spaces)", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("const range = \"1-2\";\n", "const range = \"1\u20132\";", "const range = \"3\u20135\";   "),
      { oldString: "const range = \"1-2\";", newString: "const range = \"3\u20135\";   " }
    )
  })

  it("maps a no-break space in old_string and keeps the one in new_string", () => {
    assert.deepStrictEqual(
      normalizeEditStrings(
        "const label = \"hello world\";\n",
        "const label = \"hello\u00a0world\";",
        "const label = \"hello\u00a0there\";"
      ),
      { oldString: "const label = \"hello world\";", newString: "const label = \"hello\u00a0there\";" }
    )
  })

  it("drops the needle's final line break when the file has none, and one from new_string", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("console.log(\"hi\")", "console.log(\"hi\")\n", "console.log(\"bye\")\n"),
      { oldString: "console.log(\"hi\")", newString: "console.log(\"bye\")" }
    )
  })

  it("ignores trailing whitespace of old_string but keeps new_string's", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("value = 1;\n", "value = 1;   \n", "value = 2;   \n"),
      { oldString: "value = 1;\n", newString: "value = 2;   \n" }
    )
  })

  it("takes the file's trailing whitespace into old_string", () => {
    assert.deepStrictEqual(
      normalizeEditStrings("value = 1;   \n", "value = 1;\n", "value = 2;\n"),
      { oldString: "value = 1;   \n", newString: "value = 2;\n" }
    )
  })

  it("leaves strings unchanged for a missing file or an empty old_string", () => {
    assert.deepStrictEqual(normalizeEditStrings(null, "", "content with trailing tab\t\n"), {
      oldString: "",
      newString: "content with trailing tab\t\n"
    })
    assert.deepStrictEqual(normalizeEditStrings("abc", "", "x"), { oldString: "", newString: "x" })
  })

  it("leaves strings unchanged when nothing matches", () => {
    assert.deepStrictEqual(normalizeEditStrings("x", "missing text", "y"), { oldString: "missing text", newString: "y" })
  })
})

describe("findMatchedSlice (reference §3.5 vectors)", () => {
  it("keeps the file's curly quotes when the needle has straight ones", () => {
    assert.deepStrictEqual(findMatchedSlice("x = \u201chi\u201d;\n", "x = \"hi\";"), {
      slice: "x = \u201chi\u201d;",
      removedTrailingFinalEmptyLine: false
    })
  })

  it("matches through the trimEnd pass and returns the file's trailing spaces", () => {
    assert.deepStrictEqual(findMatchedSlice("  foo  \nbar\n", "  foo\nbar"), {
      slice: "  foo  \nbar",
      removedTrailingFinalEmptyLine: false
    })
  })

  it("never relaxes indentation", () => {
    assert.isNull(findMatchedSlice("    foo\n    bar", "  foo\n  bar"))
  })

  it("drops the needle's final empty line when needed", () => {
    assert.deepStrictEqual(findMatchedSlice("a\nb", "a\nb\n"), { slice: "a\nb", removedTrailingFinalEmptyLine: true })
  })

  it("returns null for an empty needle", () => {
    assert.isNull(findMatchedSlice("anything", ""))
    assert.isNull(findMatchedSlice("", ""))
  })

  it("returns the literal hit first", () => {
    assert.deepStrictEqual(findMatchedSlice("a-b a\u2013b", "a\u2013b"), { slice: "a\u2013b", removedTrailingFinalEmptyLine: false })
  })

  it("keeps the reference quirk: the empty line after a final break must match a file line", () => {
    // Reference semantics: the pattern ["x  ", ""] first fits the window [x, ""] (the second x).
    assert.deepStrictEqual(findMatchedSlice("x\nx\n", "x  \n"), { slice: "x\n", removedTrailingFinalEmptyLine: false })
    assert.deepStrictEqual(findMatchedSlice("x\nnext\n", "x  \n"), { slice: "x", removedTrailingFinalEmptyLine: true })
  })

  it("uses the folded pass last, with the file's own characters in the slice", () => {
    assert.deepStrictEqual(findMatchedSlice("a \u2014 b  \nc\n", "a - b\nc"), {
      slice: "a \u2014 b  \nc",
      removedTrailingFinalEmptyLine: false
    })
  })
})

describe("countOccurrences", () => {
  it("counts non-overlapping occurrences, empty needle 0", () => {
    assert.strictEqual(countOccurrences("aaaa", "aa"), 2)
    assert.strictEqual(countOccurrences("abc", ""), 0)
    assert.strictEqual(countOccurrences("abc", "z"), 0)
    assert.strictEqual(countOccurrences("aaa", "aa"), 1)
  })
})

describe("maybeAugmentOldStringForDeletion", () => {
  const file = "console.log(\"hi\")\nconsole.log(\"bye\")\n"
  it("takes the line break for a deletion", () => {
    assert.strictEqual(maybeAugmentOldStringForDeletion(file, "console.log(\"hi\")", ""), "console.log(\"hi\")\n")
  })
  it("leaves a replacement alone", () => {
    assert.strictEqual(maybeAugmentOldStringForDeletion(file, "console.log(\"hi\")", "replacement"), "console.log(\"hi\")")
  })
  it("leaves a deletion alone when no line break follows", () => {
    assert.strictEqual(maybeAugmentOldStringForDeletion("console.log(\"hi\")", "console.log(\"hi\")", ""), "console.log(\"hi\")")
  })
  it("leaves null content, empty old_string and old_string ending in a break alone", () => {
    assert.strictEqual(maybeAugmentOldStringForDeletion(null, "a", ""), "a")
    assert.strictEqual(maybeAugmentOldStringForDeletion("a\n", "", ""), "")
    assert.strictEqual(maybeAugmentOldStringForDeletion("a\n\n", "a\n", ""), "a\n")
  })
})

describe("applyReplacement", () => {
  it("replaces all occurrences literally", () => {
    assert.strictEqual(applyReplacement("hello old world old", "old", "new", false), "hello new world new")
  })
  it("handles empty old_string, null content and new files", () => {
    assert.strictEqual(applyReplacement("hello world", "", "new", false), "hello world")
    assert.strictEqual(applyReplacement(null, "", "new", false), "new")
    assert.strictEqual(applyReplacement(null, "old", "new", false), "")
    assert.strictEqual(applyReplacement("existing", "old", "new", true), "new")
  })
  it("never interprets $ patterns", () => {
    assert.strictEqual(applyReplacement("hello world", "hello", "$&-replacement", false), "$&-replacement world")
    assert.strictEqual(applyReplacement("prefix-middle-suffix", "middle", "new$`content", false), "prefix-new$`content-suffix")
    assert.strictEqual(applyReplacement("foo bar foo baz", "foo", "test$'end", false), "test$'end bar test$'end baz")
    assert.strictEqual(applyReplacement("price value", "value", "$$100", false), "price $$100")
    assert.strictEqual(applyReplacement("a(b)", "(b)", "$1", false), "a$1")
  })
})

describe("extractEditSnippet", () => {
  it("has the reference constants", () => {
    assert.strictEqual(SNIPPET_CONTEXT_LINES, 4)
    assert.strictEqual(SNIPPET_MAX_LINES, 1000)
  })
  it("shows a one-line change with context", () => {
    assert.deepStrictEqual(extractEditSnippet("a\nb\nc", "a\nX\nc"), { startLine: 1, endLine: 3, totalLines: 3, content: "a\nX\nc" })
  })
  it("clips context to four lines around the change", () => {
    const old = Array.from({ length: 20 }, (_, i) => `L${i + 1}`)
    const edited = old.map((line, i) => (i === 9 ? "CHANGED" : line))
    const snippet = extractEditSnippet(old.join("\n"), edited.join("\n"))
    assert.deepStrictEqual(snippet, { startLine: 6, endLine: 14, totalLines: 20, content: edited.slice(5, 14).join("\n") })
  })
  it("handles a removed line", () => {
    assert.deepStrictEqual(extractEditSnippet("a\nb\nc", "a\nc"), { startLine: 1, endLine: 2, totalLines: 2, content: "a\nc" })
  })
  it("shows a whole new file", () => {
    assert.deepStrictEqual(extractEditSnippet(null, "x\ny"), { startLine: 1, endLine: 2, totalLines: 2, content: "x\ny" })
  })
  it("returns null for no change, empty new content or a huge change", () => {
    assert.isNull(extractEditSnippet("same", "same"))
    assert.isNull(extractEditSnippet("old", ""))
    const big = Array.from({ length: 1100 }, (_, i) => `n${i}`).join("\n")
    assert.isNull(extractEditSnippet("a\nz", `a\n${big}\nz`))
  })
})

describe("removeTrailingNewline", () => {
  it("removes exactly one \\r\\n, \\n or \\r", () => {
    assert.strictEqual(removeTrailingNewline("a\r\n"), "a")
    assert.strictEqual(removeTrailingNewline("a\n\n"), "a\n")
    assert.strictEqual(removeTrailingNewline("a\r"), "a")
    assert.strictEqual(removeTrailingNewline("a"), "a")
  })
})

describe("findMatchedSlice against a direct reading of §3.5", () => {
  // A deliberately naive transcription of the reference algorithm, used as the oracle.
  const fold = (s: string) => [...s].map((c) => UNICODE_EQUIVALENTS[c] ?? c).join("")
  const naive = (haystack: string, needle: string): { slice: string; removedTrailingFinalEmptyLine: boolean } | null => {
    if (needle === "") return null
    if (haystack.includes(needle)) return { slice: needle, removedTrailingFinalEmptyLine: false }
    const folded = fold(haystack).indexOf(fold(needle))
    if (folded !== -1) return { slice: haystack.slice(folded, folded + needle.length), removedTrailingFinalEmptyLine: false }
    const lines = haystack.split("\n")
    const offsets = lines.map((_, i) => lines.slice(0, i).join("\n").length + (i > 0 ? 1 : 0))
    const passes = [(s: string) => s, (s: string) => s.trimEnd(), (s: string) => fold(s).trimEnd()]
    const seek = (pattern: ReadonlyArray<string>) => {
      for (const t of passes) {
        for (let i = 0; i + pattern.length <= lines.length; i++) {
          if (pattern.every((p, k) => t(lines[i + k]!) === t(p))) return i
        }
      }
      return undefined
    }
    const pattern = needle.split("\n")
    const endsWithBreak = needle.endsWith("\n")
    const at = seek(pattern)
    if (at !== undefined) {
      const count = pattern.length - (endsWithBreak ? 1 : 0)
      const end = endsWithBreak ? offsets[at + count]! : offsets[at + count - 1]! + lines[at + count - 1]!.length
      return { slice: haystack.slice(offsets[at]!, end), removedTrailingFinalEmptyLine: false }
    }
    if (pattern[pattern.length - 1] === "") {
      const shorter = pattern.slice(0, -1)
      if (shorter.length === 0) return null
      const again = seek(shorter)
      if (again !== undefined) {
        const last = again + shorter.length - 1
        return { slice: haystack.slice(offsets[again]!, offsets[last]! + lines[last]!.length), removedTrailingFinalEmptyLine: true }
      }
    }
    return null
  }

  it("agrees with the naive reading on random inputs", () => {
    const unit = fc.constantFrom("a", "b", " ", "\t", "\n", "\n", "-", "\u2013", "\"", "\u201c", "\u00a0")
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 30 }), fc.string({ unit, maxLength: 10 }), (haystack, needle) => {
        assert.deepStrictEqual(findMatchedSlice(haystack, needle), naive(haystack, needle))
      }),
      { seed: 42, numRuns: 300 }
    )
  })

  it("agrees with the naive reading when the needle is a perturbed slice of the haystack", () => {
    const unit = fc.constantFrom("a", "b", " ", "\t", "\n", "-", "\u2013", "\u00a0")
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 30 }), fc.nat(), fc.nat(), fc.nat({ max: 5 }), (haystack, i, j, pad) => {
        const a = i % haystack.length
        const b = a + 1 + (j % (haystack.length - a))
        const needle = haystack.slice(a, b).split("\n").map((line) => line.trimEnd() + " ".repeat(pad % 3)).join("\n")
        assert.deepStrictEqual(findMatchedSlice(haystack, needle), naive(haystack, needle))
      }),
      { seed: 42, numRuns: 300 }
    )
  })
})
