/**
 * The parity test: one generated fixture tree (a git repository with `.gitignore`,
 * `.toolwrightignore`, ignored, binary, CRLF, unicode, invalid UTF-8, BOM, symlinked and nested
 * files) and a table of queries, run through every backend forced in turn (plus system grep
 * forced to its POSIX ERE dialect). Every backend must return the identical result.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { selectGrepBackend } from "../../src/search/grep/select.js"
import { makeSystemGrepBackend } from "../../src/search/grep/systemGrep.js"
import type { GrepBackend, GrepBackendName, GrepRequest, GrepResult } from "../../src/search/grep/types.js"
import type { IgnoreOptions } from "../../src/search/ignore/tree.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const root = makeSearchFixture()
afterAll(() => removeTree(root))

const view = (r: GrepResult) => ({
  total: r.totalMatches,
  atLeast: r.totalIsLowerBound === true,
  lines: r.matches.map((m) => `${m.path}:${m.line}:${m.text}`)
})

/** The caps every query also runs with: the search stops one line past them. */
const CAPS = [2]

const allBackends = Effect.gen(function*() {
  const backends: Array<readonly [string, GrepBackend]> = []
  for (const force of ["js", "ripgrep", "git-grep", "grep"] as ReadonlyArray<GrepBackendName>) {
    backends.push([force, yield* selectGrepBackend(root, { force })])
  }
  backends.push(["grep/ere", yield* makeSystemGrepBackend({ dialect: "ere" })])
  return backends
})

interface Query {
  readonly pattern: string
  readonly glob?: string
  readonly sub?: string
  readonly ignore?: IgnoreOptions
  /** Expected `path:line:text` lines (checked on the JS reference), when spelled out. */
  readonly expect?: ReadonlyArray<string>
}

const BOTH: IgnoreOptions = { gitignore: true, toolwrightIgnore: true }
const HELLO_VISIBLE = [
  ".env:1:HELLO=1", ".hidden/config.yml:1:hello: hidden", "README.md:1:Hello World", "README.md:2:hello again",
  "bom.txt:1:\uFEFFhello bom", "keep.log:1:hello keep", "latin1.txt:1:caf\uFFFD hello", "nested/deep/dir/file.txt:1:deep hello 99",
  "src/main.ts:4:  return `hello ${name}`", "src/secret-top.txt:1:hello not anchored", "src/with space.txt:1:hello space",
  "src/ünï.txt:1:hello unicode name", "sub/keep2.log:1:hello keep2", "vendor/lib/lib.txt:1:hello vendored"
]

const QUERIES: ReadonlyArray<Query> = [
  // plain words and case variants; ignored, binary, symlinked, nested-repo and .git files stay out
  { pattern: "hello", expect: HELLO_VISIBLE },
  { pattern: "HELLO", expect: HELLO_VISIBLE },
  { pattern: "HeLLo wOrLd", expect: ["README.md:1:Hello World"] },
  // regex classes
  { pattern: "\\d+" }, { pattern: "\\w+_\\w+", expect: ["src/main.ts:6:foo_bar baz"] },
  { pattern: "\\d{4}-\\d{2}-\\d{2}", expect: ["src/util/numbers.js:3:see 2024-01-15 today"] },
  { pattern: "\\w+\\s*=\\s*\\d" }, { pattern: "[\\W\\d]ay" }, { pattern: "[-.]" }, { pattern: "[[\\]]" }, { pattern: "\\." },
  { pattern: "\\x41" }, { pattern: "." }, { pattern: "^\\S+$" }, { pattern: "TODO:?" }, { pattern: "x{2,}|a{2}" },
  // anchors and alternation (CRLF lines: `$` before the `\r`, and the `\r` never shown)
  { pattern: "^hello" },
  { pattern: "line$", expect: ["latin1.txt:2:plain line", "src/util/crlf.txt:1:alpha line", "src/util/crlf.txt:2:Beta LINE", "src/util/crlf.txt:5:last line no newline"] },
  { pattern: "^end$", expect: ["src/util/crlf.txt:3:end"] },
  { pattern: "\\s$", expect: ["src/util/crlf.txt:4:space at end "] },
  { pattern: "[^a-z ]+$" }, { pattern: "^$", expect: ["README.md:3:"] },
  { pattern: "cat|qux" }, { pattern: "(?:foo|ba[rz])$" },
  { pattern: "\\bcat\\b", expect: ["words.txt:1:cat", "words.txt:4:CAT", "words.txt:5:the cat sat"] },
  { pattern: "\\Bell" },
  // unicode (case folding is Unicode simple folding everywhere)
  { pattern: "straße" }, { pattern: "äpfel", expect: ["src/util/strings.ts:2:ÄPFEL und äpfel"] }, { pattern: "na.ve" },
  { pattern: "😀" }, { pattern: "caf\\u00e9" }, { pattern: "kelvin|\\u212a" }, { pattern: "\\u00df" },
  { pattern: "\\u2126|\\u03c9" }, { pattern: "\\u0131" }, { pattern: "I" }, { pattern: "\\u017f" },
  // invalid UTF-8: the byte never matches a class, the line is still found and shown lossily
  { pattern: "caf. hello", expect: [] }, { pattern: "caf\\S hello", expect: [] },
  // glob filters
  { pattern: "hello", glob: "*.md", expect: ["README.md:1:Hello World", "README.md:2:hello again"] },
  { pattern: "\\d+", glob: "*.{ts,js}" }, { pattern: "hello", glob: "src/**" }, { pattern: "hello", glob: "!*.txt" },
  { pattern: "hello", glob: "*.LOG", expect: ["keep.log:1:hello keep", "sub/keep2.log:1:hello keep2"] },
  // files hidden by .gitignore, .toolwrightignore, binary detection (early and late NUL)
  { pattern: "hello (log|keep|secret|private|pem|dist|tmp|generated|out|vlog)", expect: ["keep.log:1:hello keep", "sub/keep2.log:1:hello keep2"] },
  { pattern: "binary", expect: [] }, { pattern: "hello first", expect: [] }, { pattern: "repository", expect: [] },
  // constructs some dialects cannot express: those backends hand the query to the JS engine
  { pattern: "a\\rb", expect: ["cr-mid.txt:1:a\rb"] }, { pattern: "a.b", expect: [] }, { pattern: "a\\sb", expect: [] },
  { pattern: "(?<=x-)ray", expect: ["src/main.ts:8:x-ray 7"] }, { pattern: "(\\w)\\1" }, { pattern: "^(?!hello).*o$" },
  // sub-directory and file roots (paths relative to the root; an explicitly named ignored file is searched)
  { pattern: "hello", sub: "src" }, { pattern: "ÄPFEL", sub: "src/util/strings.ts", expect: ["strings.ts:2:ÄPFEL und äpfel"] },
  { pattern: "hello", sub: "debug.log", expect: ["debug.log:1:hello log"] }, { pattern: "hello", sub: "private/notes.md", expect: [] },
  { pattern: "hello", sub: "dist", expect: ["bundle.js:1:hello from dist"] },
  // ignore switches
  {
    pattern: "hello (log|secret|private|pem|dist|tmp|generated|out|vlog)",
    ignore: { gitignore: false, toolwrightIgnore: true },
    expect: [
      "debug.log:1:hello log", "nested/deep/gen-x.ts:1:hello generated", "nested/deep/x.tmp:1:hello tmp",
      "secret-top.txt:1:hello secret", "vendor/lib/v.log:1:hello vlog", "vendor/lib/x.out:1:hello out"
    ]
  },
  {
    pattern: "hello (log|secret|private|pem|dist)",
    ignore: { gitignore: true, toolwrightIgnore: false },
    expect: ["cert.pem:1:hello pem", "private/notes.md:1:hello private"]
  },
  { pattern: "hello", ignore: { gitignore: false, toolwrightIgnore: false } }
]

describe("grep parity across backends", () => {
  it.effect("every backend answers every query identically", () =>
    Effect.gen(function*() {
      const backends = yield* allBackends
      const fallbacks: Array<string> = []
      for (const q of QUERIES) {
        const request: GrepRequest = {
          pattern: q.pattern,
          root: q.sub === undefined ? root : `${root}/${q.sub}`,
          ignore: q.ignore ?? BOTH,
          ...(q.glob === undefined ? {} : { glob: q.glob })
        }
        const results = yield* Effect.forEach(backends, ([name, b]) => Effect.map(b.search(request), (r) => [name, r] as const))
        const reference = view(results[0]![1])
        if (q.expect !== undefined) assert.deepStrictEqual(reference.lines, q.expect, `expected lines for ${JSON.stringify(q)}`)
        for (const [name, r] of results) {
          assert.deepStrictEqual(view(r), reference, `${name} differs for ${JSON.stringify(q)}`)
          if (r.engine !== name.split("/")[0]) {
            assert.strictEqual(r.engine, "js")
            assert.isString(r.fallbackReason)
            fallbacks.push(`${name} -> js for ${q.pattern}`)
          }
        }
        // with a cap in play: the first lines of the uncapped answer, and a lower bound once more lines match
        for (const limit of CAPS) {
          const capped = yield* Effect.forEach(backends, ([name, b]) => Effect.map(b.search({ ...request, limit }), (r) => [name, r] as const))
          const expected = reference.total > limit
            ? { total: limit + 1, atLeast: true, lines: reference.lines.slice(0, limit) }
            : reference
          for (const [name, r] of capped) assert.deepStrictEqual(view(r), expected, `${name} differs for ${JSON.stringify({ ...q, limit })}`)
        }
      }
      // the fallbacks are exactly the dialect gaps: Rust has no lookaround, backrefs or literal CR; ERE no \b either
      assert.deepStrictEqual(fallbacks.filter((f) => f.startsWith("ripgrep")), [
        "ripgrep -> js for a\\rb", "ripgrep -> js for (?<=x-)ray", "ripgrep -> js for (\\w)\\1", "ripgrep -> js for ^(?!hello).*o$"
      ])
      assert.isTrue(fallbacks.every((f) => f.startsWith("ripgrep") || f.startsWith("grep/ere")))
    }), 400_000)
})
