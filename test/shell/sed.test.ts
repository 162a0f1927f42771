import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { parseSedEditCommand } from "../../src/shell/command/analysis.js"
import { applySedSubstitution, hasNestedQuantifier, sedPatternToJs } from "../../src/shell/command/sed.js"

describe("parseSedEditCommand (reference §9.7 accept vectors)", () => {
  it("accepts the plain form with every field", () => {
    assert.deepStrictEqual(parseSedEditCommand("sed -i 's/foo/bar/g' src/a.ts"), {
      filePath: "src/a.ts",
      pattern: "foo",
      replacement: "bar",
      flags: "g",
      extendedRegex: false
    })
  })
  it("accepts --in-place with empty flags", () => {
    assert.strictEqual(parseSedEditCommand("sed --in-place 's/foo/bar/' file.txt")?.flags, "")
  })
  it("keeps a trailing $ in the pattern", () => {
    assert.strictEqual(parseSedEditCommand("sed -i 's/foo$/bar/' src/a.ts")?.pattern, "foo$")
  })
  it("accepts the macOS empty suffix and -E", () => {
    const info = parseSedEditCommand("sed -i '' -E 's/foo\\|bar/baz/g' src/a.ts")
    assert.strictEqual(info?.pattern, "foo\\|bar")
    assert.isTrue(info?.extendedRegex)
  })
  it("accepts -Ei and -ri as extended in-place", () => {
    assert.isTrue(parseSedEditCommand("sed -Ei 's/a+/b/' f")?.extendedRegex)
    assert.isTrue(parseSedEditCommand("sed -ri 's/a+/b/' f")?.extendedRegex)
  })
  it("accepts -e, --expression X and --expression=X", () => {
    for (const c of ["sed -i -e 's/foo/bar/' file.txt", "sed -i --expression 's/foo/bar/' file.txt", "sed -i --expression='s/foo/bar/' file.txt"]) {
      assert.deepStrictEqual(parseSedEditCommand(c), { filePath: "file.txt", pattern: "foo", replacement: "bar", flags: "", extendedRegex: false }, c)
    }
  })
  it("accepts swapped backreferences within the group count", () => {
    assert.isNotNull(parseSedEditCommand("sed -i -E 's/(a)(b)/\\2\\1/g' f"))
  })
})

describe("parseSedEditCommand (reference §9.7 reject vectors)", () => {
  const rejected = [
    "sed --in-place '' 's/foo/bar/' file.txt",
    "sed -iE 's/foo|bar/baz/g' src/a.ts",
    "sed -i -e",
    "sed -i 's/foo/bar/' a.ts && echo done",
    "sed -i 's/foo/bar/' *.ts",
    "sed -i 's/foo/bar/' a.ts b.ts",
    "sed -n -i 's/foo/bar/' a.ts",
    "sed -i.bak 's/foo/bar/' a.ts",
    "sed -i 's/foo/bar/e' a.ts",
    "sed -i 's/foo/bar/p' a.ts",
    "sed -i 's/foo/bar/I' a.ts",
    "sed -i 's/foo/bar/1g2' a.ts",
    "sed -i 's/foo/bar/' $FILE",
    "sed -i \"s/$FOO/bar/\" a.ts",
    "sed -i \"s/$1/bar/\" a.ts",
    "sed -i \"s/$(whoami)/root/\" a.ts",
    "sed -i 's/`whoami`/root/' a.ts",
    "sed -i 's/[//g' a.ts",
    "sed -i 's//bar/' a.ts",
    "sed -i 's/foo/\\n/' a.ts",
    "sed -i 's/foo/\\1/' a.ts",
    "sed -i -E 's/(a)b/\\2/g' a.ts",
    "sed -i -E 's/(a)(b)/\\1\\3/g' a.ts",
    "sed -i -E 's/(a*)*b/X/g' a.ts",
    "sed -i -E 's/(a|aa)*b/X/g' a.ts",
    "sed -i 's/[[:space:]]*$//' a.ts",
    "sed -i 's/\\d/X/g' a.ts",
    "sed -i 's/\\</X/g' a.ts",
    "sed 's/foo/bar/' a.ts",
    "sed -i 's/foo/bar/' ~/a.ts",
    "sed -i 's|foo|bar|' a.ts",
    "sed -i 's/foo/bar/0' a.ts",
    "FOO=1 sed -i 's/a/b/' a.ts",
    "sed -i 's/a/b/' 'a.ts' # comment"
  ]
  for (const c of rejected) it(`rejects ${c}`, () => assert.isNull(parseSedEditCommand(c)))
})

const apply = (command: string, input: string) => {
  const info = parseSedEditCommand(`sed -i ${command} f`)
  assert.isNotNull(info, command)
  return applySedSubstitution(input, info!)
}

describe("applySedSubstitution (reference §9.7 apply vectors)", () => {
  const vectors: ReadonlyArray<readonly [string, string, string]> = [
    ["'s/a\\+/X/g'", "aa aaa b", "X X b"],
    ["'s/foo/[&]/g'", "foo foo", "[foo] [foo]"],
    ["'s/foo/\\&/g'", "foo foo", "& &"],
    ["'s/foo/\\//g'", "foo foo", "/ /"],
    ["'s/foo/\\\\bar/g'", "foo foo", "\\bar \\bar"],
    ["'s/a{2}/X/g'", "aa a{2} aaa", "aa X aaa"],
    ["'s/a\\{2\\}/X/g'", "aa a{2} aaa", "X a{2} Xa"],
    ["'s/foo/bar/'", "foo foo\nfoo foo", "bar foo\nbar foo"],
    ["-E 's/(foo)/[\\1]/2'", "foo foo foo", "foo [foo] foo"],
    ["'s/x/y/10'", "xxxxxxxxxxx", "xxxxxxxxxyx"],
    ["'s/foo/bar/2g'", "foo foo foo foo", "foo bar bar bar"],
    ["'s/\\r$//g'", "foo\r\n", "foo\n"],
    ["'s/foo$/bar/'", "foo\r\n", "foo\r\n"],
    ["'s/$/!/g'", "hello\n", "hello!\n"],
    ["'s/$/!/g'", "\n", "!\n"],
    ["'s/$/!/g'", "", ""],
    ["'s/^$/X/g'", "line1\n\nline3", "line1\nX\nline3"],
    ["'s/a*/X/g'", "aaa", "X"],
    ["'s/a*/X/g'", "aabaaa", "XbX"],
    ["'s/ */_/g'", "a  b c", "_a_b_c_"],
    ["'s/[0-9]*/N/g'", "x12y3z", "NxNyNzN"],
    ["'s/a*/foo/g'", "bbb", "foobfoobfoobfoo"]
  ]
  for (const [command, input, expected] of vectors) {
    it(`${command} on ${JSON.stringify(input)}`, () => assert.strictEqual(apply(command, input), expected))
  }

  it("translates BRE to JavaScript: operators, literals, anchors, brackets", () => {
    assert.strictEqual(sedPatternToJs("a\\(b\\)\\{2\\}", false), "a(b){2}")
    assert.strictEqual(sedPatternToJs("a(b){2}+?|", false), "a\\(b\\)\\{2\\}\\+\\?\\|")
    assert.strictEqual(sedPatternToJs("a^b$c", false), "a\\^b\\$c")
    assert.strictEqual(sedPatternToJs("^*x", false), "^\\*x")
    assert.strictEqual(sedPatternToJs("[\\]x", false), "[\\\\]x")
    assert.strictEqual(sedPatternToJs("a\\/b", false), "a\\/b")
    assert.strictEqual(sedPatternToJs("a.*", false), "a.*")
    assert.strictEqual(sedPatternToJs("(a|b)+", true), "(a|b)+")
  })

  it("matches `.` against a carriage return like sed", () => {
    assert.strictEqual(apply("'s/.*$/X/'", "foo\r\n"), "X\n")
  })

  it("finds nested quantifiers", () => {
    assert.isTrue(hasNestedQuantifier("(a+)+"))
    assert.isTrue(hasNestedQuantifier("((a|b)c)*"))
    assert.isFalse(hasNestedQuantifier("(ab)*c+"))
    assert.isFalse(hasNestedQuantifier("[(a+)]*"))
  })

  it("literal substitutions agree with String.replaceAll (property)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z]{1,3}$/), fc.stringMatching(/^[a-z]{0,3}$/), fc.array(fc.stringMatching(/^[a-z ]{0,12}$/), { maxLength: 5 }), (from, to, lines) => {
        const text = lines.join("\n")
        const out = applySedSubstitution(text, { filePath: "f", pattern: from, replacement: to, flags: "g", extendedRegex: false })
        assert.strictEqual(out, lines.map((l) => l.replaceAll(from, to)).join("\n"))
      }),
      { seed: 7, numRuns: 300 }
    )
  })
})
