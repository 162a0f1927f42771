import { assert, describe, it } from "@effect/vitest"
import { type EditResolution, resolveEdit, RUNGS } from "../../src/text/index.js"

const match = (result: EditResolution) => {
  if (result._tag !== "Match") assert.fail(`expected a match, got ${JSON.stringify(result)}`)
  return result
}

describe("resolveEdit: reference rungs", () => {
  it("exact: unique literal hit with position data", () => {
    const content = "a\nconst two = 2;\nz\n"
    const m = match(resolveEdit(content, "const two = 2;", "const two = 42;"))
    assert.strictEqual(m.rung, "exact")
    assert.strictEqual(m.occurrences, 1)
    assert.strictEqual(m.oldString, "const two = 2;")
    assert.strictEqual(m.newString, "const two = 42;")
    assert.strictEqual(m.startLine, 2)
    assert.strictEqual(m.endLine, 2)
    assert.strictEqual(m.startOffset, 2)
    assert.strictEqual(m.endOffset, 16)
    assert.strictEqual(m.newContent, "a\nconst two = 42;\nz\n")
  })

  it("exact: several hits without replaceAll is an occurrence mismatch", () => {
    assert.deepStrictEqual(resolveEdit("x = 1\nx = 1\n", "x = 1", "x = 2"), {
      _tag: "OccurrenceMismatch",
      expected: 1,
      occurrences: 2
    })
  })

  it("exact: replaceAll edits every occurrence", () => {
    const m = match(resolveEdit("x = 1\nx = 1\n", "x = 1", "x = 2", { replaceAll: true }))
    assert.strictEqual(m.occurrences, 2)
    assert.strictEqual(m.newContent, "x = 2\nx = 2\n")
    assert.strictEqual(m.startLine, 1)
  })

  it("exact: expectedOccurrences is checked", () => {
    assert.deepStrictEqual(resolveEdit("ab ab ab", "ab", "c", { expectedOccurrences: 2 }), {
      _tag: "OccurrenceMismatch",
      expected: 2,
      occurrences: 3
    })
    assert.strictEqual(match(resolveEdit("ab ab ab", "ab", "c", { expectedOccurrences: 3 })).newContent, "c c c")
  })

  it("unicode_normalized: the real slice keeps the file's characters, new_string is verbatim", () => {
    const content = "say(\u201chi\u201d);\n"
    const m = match(resolveEdit(content, "say(\"hi\");", "say(\u201cbye\u201d);  "))
    assert.strictEqual(m.rung, "unicode_normalized")
    assert.strictEqual(m.oldString, "say(\u201chi\u201d);")
    assert.strictEqual(m.newContent, "say(\u201cbye\u201d);  \n")
  })

  it("trim_end_lines: trailing whitespace differences on whole lines", () => {
    const content = "function f() {  \n  return 1;\t\n}\n"
    const m = match(resolveEdit(content, "function f() {\n  return 1;\n}\n", "function f() {\n  return 2;\n}\n"))
    assert.strictEqual(m.rung, "trim_end_lines")
    assert.strictEqual(m.oldString, content)
    assert.strictEqual(m.startLine, 1)
    assert.strictEqual(m.endLine, 3)
    assert.strictEqual(m.newContent, "function f() {\n  return 2;\n}\n")
  })

  it("trim_end_lines: a needle ending in a break needs a break after the window, not an empty line", () => {
    const m = match(resolveEdit("value = 1;\nnext\n", "value = 1;   \n", "value = 2;   \n"))
    assert.strictEqual(m.rung, "trim_end_lines")
    assert.strictEqual(m.oldString, "value = 1;\n")
    assert.strictEqual(m.newContent, "value = 2;   \nnext\n")
  })

  it("normalized_trim_end_lines: look-alikes and trailing whitespace together", () => {
    const content = "a \u2014 b  \nc\n"
    const m = match(resolveEdit(content, "a - b\nc", "A\nC"))
    assert.strictEqual(m.rung, "normalized_trim_end_lines")
    assert.strictEqual(m.oldString, "a \u2014 b  \nc")
    assert.strictEqual(m.newContent, "A\nC\n")
  })

  it("dropped_trailing_empty_line: the last line of a file without a final break", () => {
    const m = match(resolveEdit("first\nconsole.log(\"hi\")", "console.log(\"hi\")  \n", "console.log(\"bye\")\n"))
    assert.strictEqual(m.rung, "dropped_trailing_empty_line")
    assert.strictEqual(m.oldString, "console.log(\"hi\")")
    assert.strictEqual(m.newString, "console.log(\"bye\")")
    assert.strictEqual(m.newContent, "first\nconsole.log(\"bye\")")
    assert.strictEqual(m.startLine, 2)
  })

  it("fuzzy rungs refuse two places instead of taking the first", () => {
    const content = "x = \"a\";\ny = 0;\nx = \"a\";\n"
    assert.deepStrictEqual(resolveEdit(content, "x = \u201ca\u201d;", "x = 1;"), {
      _tag: "Ambiguous",
      rung: "unicode_normalized",
      occurrences: 2,
      lines: [1, 3]
    })
    assert.deepStrictEqual(resolveEdit("a  \nb\na \nb\n", "a\nb\n", "c\n"), {
      _tag: "Ambiguous",
      rung: "trim_end_lines",
      occurrences: 2,
      lines: [1, 3]
    })
  })

  it("fuzzy rungs with replaceAll edit all places only when they are byte-identical", () => {
    const same = "x = \"a\";\ny = 0;\nx = \"a\";\n"
    const m = match(resolveEdit(same, "x = \u201ca\u201d;", "x = 1;", { replaceAll: true }))
    assert.strictEqual(m.occurrences, 2)
    assert.strictEqual(m.newContent, "x = 1;\ny = 0;\nx = 1;\n")
    const different = "x = \"a\";\nx = \u201ca\u201d;\n"
    assert.deepStrictEqual(resolveEdit(different, "x = \u201fa\u201f;", "x = 1;", { replaceAll: true }), {
      _tag: "Ambiguous",
      rung: "unicode_normalized",
      occurrences: 2,
      lines: [1, 2]
    })
  })

  it("a unique fuzzy hit with a different expectedOccurrences is a mismatch", () => {
    assert.deepStrictEqual(resolveEdit("x = \"a\";\n", "x = \u201ca\u201d;", "y", { expectedOccurrences: 2 }), {
      _tag: "OccurrenceMismatch",
      expected: 2,
      occurrences: 1
    })
  })

  it("an empty old_string is no match (file creation is the caller's business)", () => {
    assert.deepStrictEqual(resolveEdit("abc", "", "x"), { _tag: "NoMatch" })
  })

  it("identical old and new strings resolve to unchanged content (the caller reports edit_no_change)", () => {
    const m = match(resolveEdit("a\nb\n", "a", "a"))
    assert.strictEqual(m.newContent, "a\nb\n")
  })

  it("writes $ patterns in new_string literally", () => {
    assert.strictEqual(match(resolveEdit("price value", "value", "$& $' $` $1 $$")).newContent, "price $& $' $` $1 $$")
  })
})

describe("resolveEdit: deletions", () => {
  it("a whole-line deletion takes its line break and leaves no blank line", () => {
    const m = match(resolveEdit("console.log(\"hi\")\nconsole.log(\"bye\")\n", "console.log(\"hi\")", ""))
    assert.strictEqual(m.oldString, "console.log(\"hi\")\n")
    assert.strictEqual(m.newContent, "console.log(\"bye\")\n")
  })

  it("a deletion of an indented line takes the indentation and trailing spaces too", () => {
    const m = match(resolveEdit("{\n    foo();  \n    bar();\n}\n", "foo();", ""))
    assert.strictEqual(m.oldString, "    foo();  \n")
    assert.strictEqual(m.startLine, 2)
    assert.strictEqual(m.endLine, 2)
    assert.strictEqual(m.newContent, "{\n    bar();\n}\n")
  })

  it("a deletion inside a line never joins lines", () => {
    const m = match(resolveEdit("x = foo\ny\n", "foo", ""))
    assert.strictEqual(m.newContent, "x = \ny\n")
  })

  it("a deletion of the last line without a break leaves the previous break", () => {
    assert.strictEqual(match(resolveEdit("a\nb", "b", "")).newContent, "a\n")
  })

  it("a fuzzy multi-line deletion takes its break", () => {
    const m = match(resolveEdit("keep\ndrop  \nme\nkeep2\n", "drop\nme", ""))
    assert.strictEqual(m.rung, "trim_end_lines")
    assert.strictEqual(m.newContent, "keep\nkeep2\n")
  })

  it("replaceAll deletions each take their own break", () => {
    const m = match(resolveEdit("a\nlog();\nb\n  log();\nc\n", "log();", "", { replaceAll: true }))
    assert.strictEqual(m.newContent, "a\nb\nc\n")
  })
})

describe("resolveEdit: indentation shift", () => {
  const file = "class A {\n    method() {\n        if (x) {\n            go();\n        }\n    }\n}\n"

  it("old_string two spaces short: new_string is re-indented line by line", () => {
    const m = match(resolveEdit(file, "  method() {\n      if (x) {\n          go();", "  method() {\n      if (y) {\n          stop();\n        more();"))
    assert.strictEqual(m.rung, "indentation_shift")
    assert.strictEqual(m.oldString, "    method() {\n        if (x) {\n            go();")
    assert.strictEqual(m.newString, "    method() {\n        if (y) {\n            stop();\n          more();")
    assert.strictEqual(m.startLine, 2)
    assert.strictEqual(m.endLine, 4)
    assert.strictEqual(
      m.newContent,
      "class A {\n    method() {\n        if (y) {\n            stop();\n          more();\n        }\n    }\n}\n"
    )
  })

  it("old_string with extra indentation is shifted back", () => {
    const m = match(resolveEdit("a\n  b\n    c\nd\n", "      b\n        c\n", "      B\n\n        C\n"))
    assert.strictEqual(m.rung, "indentation_shift")
    assert.strictEqual(m.oldString, "  b\n    c\n")
    assert.strictEqual(m.newContent, "a\n  B\n\n    C\nd\n")
  })

  it("four spaces where the file has a tab", () => {
    const tabbed = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n"
    const m = match(resolveEdit(tabbed, "    if ok {\n        run()\n    }", "    if ok {\n        run(1)\n        log()\n    }"))
    assert.strictEqual(m.rung, "indentation_shift")
    assert.strictEqual(m.oldString, "\tif ok {\n\t\trun()\n\t}")
    assert.strictEqual(m.newContent, "func main() {\n\tif ok {\n\t\trun(1)\n\t\tlog()\n\t}\n}\n")
  })

  it("a tab where the file has four spaces", () => {
    const spaced = "def f():\n    if x:\n        y()\n"
    const m = match(resolveEdit(spaced, "\tif x:\n\t\ty()\n", "\tif x:\n\t\tz()\n"))
    assert.strictEqual(m.newContent, "def f():\n    if x:\n        z()\n")
  })

  it("a shift that is not uniform never edits", () => {
    const result = resolveEdit(file, "  method() {\n        if (x) {\n          go();", "changed")
    assert.strictEqual(result._tag, "NoMatch")
  })

  it("a new_string line the shift cannot apply to refuses the rung", () => {
    // Needle has 4 extra spaces; a new line with only 2 spaces cannot lose 4.
    const result = resolveEdit("a\nb\nc\n", "    b\n    c", "  b\n    c")
    assert.strictEqual(result._tag, "NoMatch")
  })

  it("two places with the same shifted text are ambiguous", () => {
    const content = "  foo();\n  bar();\nx\n  foo();\n  bar();\n"
    assert.deepStrictEqual(resolveEdit(content, "foo();\nbar();\n", "baz();\n"), {
      _tag: "Ambiguous",
      rung: "indentation_shift",
      occurrences: 2,
      lines: [1, 4]
    })
  })

  it("blank lines inside the needle match blank lines whatever their whitespace", () => {
    const m = match(resolveEdit("    a\n      \n    b\n", "a\n\nb", "A\n\nB"))
    assert.strictEqual(m.newContent, "    A\n\n    B\n")
  })
})

describe("resolveEdit: over-escaped old_string", () => {
  it("literal \\n and \\\" in old_string and new_string", () => {
    const content = "if (x) {\n  say(\"hi\");\n}\n"
    const m = match(resolveEdit(content, "say(\\\"hi\\\");\\n}", "say(\\\"bye\\\");\\n}"))
    assert.strictEqual(m.rung, "unescaped")
    assert.strictEqual(m.oldString, "say(\"hi\");\n}")
    assert.strictEqual(m.newString, "say(\"bye\");\n}")
    assert.strictEqual(m.newContent, "if (x) {\n  say(\"bye\");\n}\n")
  })

  it("new_string without the pattern is written verbatim", () => {
    const m = match(resolveEdit("a\tb\n", "a\\tb", "x\ty"))
    assert.strictEqual(m.rung, "unescaped")
    assert.strictEqual(m.newContent, "x\ty\n")
  })

  it("new_string written plainly (a bare quote) with another escape kind is written verbatim", () => {
    const m = match(resolveEdit("msg = \"a\"\n", "msg = \\\"a\\\"", "msg = \"a\\nb\""))
    assert.strictEqual(m.newContent, "msg = \"a\\nb\"\n")
  })

  it("new_string over-escaped with more kinds than the needle: every kind seen is unescaped", () => {
    // the needle escaped its quotes; new_string escapes its quotes and the newline it adds
    const m = match(resolveEdit("msg = \"a\"\n", "msg = \\\"a\\\"", "msg = \\\"a\\\"\\nnext = 1"))
    assert.strictEqual(m.rung, "unescaped")
    assert.strictEqual(m.newContent, "msg = \"a\"\nnext = 1\n")
  })

  it("new_string with only other escape kinds and no plain evidence is refused, not guessed", () => {
    const result = resolveEdit("msg = \"a\"\n", "msg = \\\"a\\\"", "x = 1\\ny = 2")
    assert.strictEqual(result._tag, "NoMatch")
  })

  it("doubled backslashes", () => {
    const m = match(resolveEdit("re = /\\d+/\n", "re = /\\\\d+/", "re = /\\\\w+/"))
    assert.strictEqual(m.rung, "unescaped")
    assert.strictEqual(m.newContent, "re = /\\w+/\n")
  })

  it("is used only when the unescaped needle is unique", () => {
    const result = resolveEdit("say('a')\nsay('a')\n", "say(\\'a\\')", "x")
    assert.deepStrictEqual(result, { _tag: "Ambiguous", rung: "unescaped", occurrences: 2, lines: [1, 2] })
  })
})

describe("resolveEdit: near-miss", () => {
  it("points at the first differing line with a character diff", () => {
    const content = "function f() {\n  const a = 1;\n  const b = 2;\n  return a + b;\n}\n"
    const result = resolveEdit(content, "  const a = 1;\n  const b = 3;\n  return a + b;", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.deepStrictEqual(result.nearMiss, {
      line: 3,
      expected: "  const b = 3;",
      actual: "  const b = 2;",
      diff: "  const b = [-3-]{+2+};"
    })
  })

  it("shows indentation differences with visible tabs", () => {
    const result = resolveEdit("a()\n\tb()\n  c()\n", "a()\n    b()\nc()", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, 2)
    assert.strictEqual(result.nearMiss?.diff, "[-    -]{+\\t+}b()")
  })

  it("falls back to the longest word when no line matches", () => {
    const result = resolveEdit("alpha\ncompute(total, 1)\nomega\n", "compute(totl, 1)", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, 2)
    assert.strictEqual(result.nearMiss?.actual, "compute(total, 1)")
    assert.strictEqual(result.nearMiss?.diff, "compute(tot{+a+}l, 1)")
  })

  it("has no near-miss when nothing is shared", () => {
    assert.deepStrictEqual(resolveEdit("abc\n", "zz", "x"), { _tag: "NoMatch" })
  })
})

describe("resolveEdit: fuzzy uniqueness across rungs", () => {
  it("a place that fits only a more lenient rung still makes a fuzzy hit ambiguous", () => {
    // The folded needle fits line 1 exactly and line 3 once trailing spaces are dropped.
    const content = "x-y = 1\nz\nx-y = 1  \n"
    assert.deepStrictEqual(resolveEdit(content, "x\u2013y = 1\n", "w\n"), {
      _tag: "Ambiguous",
      rung: "unicode_normalized",
      occurrences: 2,
      lines: [1, 3]
    })
  })

  it("the same place found by several rungs counts once", () => {
    const m = match(resolveEdit("a \u201cq\u201d\nb\n", "a \"q\"", "A"))
    assert.strictEqual(m.rung, "unicode_normalized")
    assert.strictEqual(m.occurrences, 1)
    assert.strictEqual(m.newContent, "A\nb\n")
  })

  it("a unique exact hit wins even when fuzzy places exist elsewhere", () => {
    const m = match(resolveEdit("x-y\nx\u2013y\n", "x-y", "w"))
    assert.strictEqual(m.rung, "exact")
    assert.strictEqual(m.newContent, "w\nx\u2013y\n")
  })
})

describe("resolveEdit: near-miss edges", () => {
  it("a needle running past the end of the file reports the first missing line", () => {
    const result = resolveEdit("one\ntwo", "one\ntwo\nthree", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.deepStrictEqual(result.nearMiss, { line: 3, expected: "three", actual: "", diff: "[-three-]" })
  })

  it("a non-uniform shift is reported at its first differing line", () => {
    const result = resolveEdit("f() {\n  a()\n  b()\n}\n", "f() {\na()\n  b()\n}", "x")
    assert.strictEqual(result._tag, "NoMatch")
    if (result._tag !== "NoMatch") return
    assert.strictEqual(result.nearMiss?.line, 2)
    assert.strictEqual(result.nearMiss?.diff, "{+  +}a()")
  })
})

describe("resolveEdit: deletions next to each other", () => {
  it("never widens a deleted span into its neighbour", () => {
    const m = match(resolveEdit("  \nx\n", " ", "", { replaceAll: true }))
    assert.strictEqual(m.occurrences, 2)
    assert.strictEqual(m.newContent, "\nx\n")
    const lines = match(resolveEdit("x\nx\ny\n", "x", "", { replaceAll: true }))
    assert.strictEqual(lines.newContent, "y\n")
  })
})

describe("the ladder table", () => {
  it("lists every rung once, in the order tried, each approximate one with its explanation", () => {
    assert.deepStrictEqual(RUNGS.map((row) => row.rung), [
      "exact",
      "unicode_normalized",
      "trim_end_lines",
      "normalized_trim_end_lines",
      "dropped_trailing_empty_line",
      "indentation_shift",
      "unescaped"
    ])
    assert.deepStrictEqual(RUNGS.map((row) => row.fuzzy), ["none", "reference", "reference", "reference", "reference", "unique", "unique"])
    for (const row of RUNGS.slice(1)) assert.isAbove(row.explanation.length, 20, row.rung)
  })
})
