/**
 * Long matching lines (issue 18): a line over `MAX_MATCH_LINE_CHARS` is shown as a window around
 * its first hit with the characters cut on each side counted, identically on every backend (the
 * hit's place comes from ripgrep's submatches, git grep's `--column`, the JS worker, and for
 * system grep the JS worker afterwards); and one minified line no longer starves the output.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { MATCH_LINE_CHARS_BEFORE_HIT, MAX_MATCH_LINE_CHARS } from "../../src/search/constants.js"
import { cutAroundHit } from "../../src/search/grep/cutLine.js"
import { formatGrepResult } from "../../src/search/grep/format.js"
import { selectGrepBackend } from "../../src/search/grep/select.js"
import { makeSystemGrepBackend } from "../../src/search/grep/systemGrep.js"
import type { GrepBackend, GrepBackendName, GrepRequest, GrepResult } from "../../src/search/grep/types.js"
import type { GrepSearchData } from "../../src/search/index.js"
import { call, dataOf, okText, searchSession, tempDir, write } from "./tools.support.js"

const BOTH = { gitignore: true, toolwrightIgnore: true }

/** A minified line of exactly `length` characters: `filler` repeated, with `inserts` placed at their offsets. */
const minified = (length: number, inserts: ReadonlyArray<readonly [number, string]>, filler = "var a=1;"): string => {
  let line = filler.repeat(Math.ceil(length / filler.length) + 1).slice(0, length)
  for (const [at, text] of inserts) line = line.slice(0, at) + text + line.slice(at + text.length)
  return line.slice(0, length)
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-long-lines-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))
// hits at the start, in the middle after multi-byte characters, near the end; a CRLF long line; an emoji at a window edge
const MIDDLE = minified(18_745, [[3_000, "héllo wörld ÄPFEL ✓ "], [9_000, "zebraFind(1)"], [15_000, "zebraFind(2)"]])
const EMOJI = minified(2_000, [[1_000 - MATCH_LINE_CHARS_BEFORE_HIT - 1, "😀"], [1_000, "quagga"], [1_000 + MAX_MATCH_LINE_CHARS - MATCH_LINE_CHARS_BEFORE_HIT - 1, "😀"]], "bcd")
write(root, "dist/app.min.js", `${minified(5_000, [[0, "startHit"]])}\n${MIDDLE}\nshort zebraFind line\n${minified(3_000, [[2_990, "endHit"]])}\n`)
write(root, "dist/crlf.min.js", `${minified(1_200, [[700, "zebraFind(crlf)"]])}\r\nshort\r\n`)
write(root, "emoji.txt", `${EMOJI}\n`)
write(root, "words.txt", "startHit short\nendhit short\n")
// invalid UTF-8 (a Latin-1 byte) before the hit: shown as U+FFFD, one character, on every backend
write(root, "latin1.min.txt", Buffer.concat([Buffer.from(minified(300, [])), Buffer.from("caf\xe9 ", "latin1"), Buffer.from(minified(900, [[300, "quokka"]]))]))

const allBackends = Effect.gen(function*() {
  const backends: Array<readonly [string, GrepBackend]> = []
  for (const force of ["js", "ripgrep", "git-grep", "grep"] as ReadonlyArray<GrepBackendName>) {
    backends.push([force, yield* selectGrepBackend(root, { force })])
  }
  backends.push(["grep/ere", yield* makeSystemGrepBackend({ dialect: "ere" })])
  return backends
})

const view = (r: GrepResult) => ({
  total: r.totalMatches,
  atLeast: r.totalIsLowerBound === true,
  lines: r.matches.map((m) => [m.path, m.line, m.cutBefore ?? -1, m.text, m.cutAfter ?? -1] as const)
})

const QUERIES = ["startHit", "endhit", "zebraFind\\(\\d\\)", "zebraFind", "äpfel|ÖRLD", "quagga", "(?<=a=1;)zebra", "crlf\\)", "quokka"]

describe("grep: long lines cut around their first hit", () => {
  it("cutAroundHit: a window of MAX_MATCH_LINE_CHARS from MATCH_LINE_CHARS_BEFORE_HIT before the hit, shifted back near the end", () => {
    const line = "x".repeat(10_000)
    assert.deepStrictEqual(cutAroundHit(1, "short", 2), [1, "short", 0, 0])
    const [, text, before, after] = cutAroundHit(1, line, 5_000)
    assert.deepStrictEqual([text.length, before, after], [MAX_MATCH_LINE_CHARS, 5_000 - MATCH_LINE_CHARS_BEFORE_HIT, 10_000 - 5_000 + MATCH_LINE_CHARS_BEFORE_HIT - MAX_MATCH_LINE_CHARS])
    assert.deepStrictEqual(cutAroundHit(1, line, 10).slice(2), [0, 10_000 - MAX_MATCH_LINE_CHARS])
    assert.deepStrictEqual(cutAroundHit(1, line, 9_999).slice(2), [10_000 - MAX_MATCH_LINE_CHARS, 0])
    // a surrogate pair at either edge is left out whole, never split
    const [, emoji, b, a] = cutAroundHit(1, EMOJI, 1_000)
    assert.isFalse(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(emoji))
    assert.strictEqual(b + emoji.length + a, EMOJI.length)
    assert.strictEqual(emoji.length, MAX_MATCH_LINE_CHARS - 2)
  })

  it.effect("every backend cuts every long line to the same window, with and without a cap", () =>
    Effect.gen(function*() {
      const backends = yield* allBackends
      for (const pattern of QUERIES) {
        const request: GrepRequest = { pattern, root, ignore: BOTH }
        const results = yield* Effect.forEach(backends, ([name, b]) => Effect.map(b.search(request), (r) => [name, r] as const))
        const reference = view(results[0]![1])
        assert.isAbove(reference.total, 0, pattern)
        for (const [name, r] of results) assert.deepStrictEqual(view(r), reference, `${name} differs for ${pattern}`)
        const capped = yield* Effect.forEach(backends, ([name, b]) => Effect.map(b.search({ ...request, limit: 1 }), (r) => [name, r] as const))
        const expected = reference.total > 1 ? { total: 2, atLeast: true, lines: reference.lines.slice(0, 1) } : reference
        for (const [name, r] of capped) assert.deepStrictEqual(view(r), expected, `${name} differs for ${pattern} with limit 1`)
      }
      // the reference windows themselves (JS engine)
      const js = backends[0]![1]
      const lines = (yield* js.search({ pattern: "zebraFind|startHit|endHit", root, ignore: BOTH })).matches
      const byLine = Object.fromEntries(lines.map((m) => [`${m.path}:${m.line}`, m]))
      const middle = byLine["dist/app.min.js:2"]!
      assert.deepStrictEqual([middle.cutBefore, middle.text.length, middle.cutAfter], [9_000 - MATCH_LINE_CHARS_BEFORE_HIT, MAX_MATCH_LINE_CHARS, 18_745 - 9_000 + MATCH_LINE_CHARS_BEFORE_HIT - MAX_MATCH_LINE_CHARS])
      assert.strictEqual(middle.text.indexOf("zebraFind(1)"), MATCH_LINE_CHARS_BEFORE_HIT)
      assert.deepStrictEqual([byLine["dist/app.min.js:1"]!.cutBefore, byLine["dist/app.min.js:1"]!.text.slice(0, 8)], [0, "startHit"])
      assert.deepStrictEqual([byLine["dist/app.min.js:4"]!.cutAfter, byLine["dist/app.min.js:4"]!.text.slice(-10)], [0, "endHita=1;"])
      const crlf = byLine["dist/crlf.min.js:1"]!
      assert.deepStrictEqual([crlf.cutBefore, crlf.cutAfter, crlf.text.endsWith("\r")], [700 - MATCH_LINE_CHARS_BEFORE_HIT, 1_200 - 700 + MATCH_LINE_CHARS_BEFORE_HIT - MAX_MATCH_LINE_CHARS, false])
      assert.deepStrictEqual([byLine["dist/app.min.js:3"]!.text, byLine["dist/app.min.js:3"]!.cutBefore], ["short zebraFind line", undefined])
      const latin1 = (yield* js.search({ pattern: "quokka", root, ignore: BOTH })).matches[0]!
      assert.deepStrictEqual([latin1.cutBefore, latin1.text.slice(MATCH_LINE_CHARS_BEFORE_HIT, MATCH_LINE_CHARS_BEFORE_HIT + 6)], [305 + 300 - MATCH_LINE_CHARS_BEFORE_HIT, "quokka"])
    }), 300_000)

  it.effect("the output marks each cut side with the characters cut", () =>
    Effect.gen(function*() {
      const result = yield* (yield* selectGrepBackend(root, { force: "js" })).search({ pattern: "zebraFind\\(1\\)", root, ignore: BOTH })
      const out = formatGrepResult(result, { pattern: "zebraFind\\(1\\)", location: { _tag: "Workspace", directories: 1 } })
      const cutAfter = 18_745 - 9_000 + MATCH_LINE_CHARS_BEFORE_HIT - MAX_MATCH_LINE_CHARS
      const window = MIDDLE.slice(9_000 - MATCH_LINE_CHARS_BEFORE_HIT, 9_000 - MATCH_LINE_CHARS_BEFORE_HIT + MAX_MATCH_LINE_CHARS)
      assert.include(out.llmContent, `dist/app.min.js:2:[…${9_000 - MATCH_LINE_CHARS_BEFORE_HIT} chars cut]${window}[${cutAfter} chars cut…]\n`)
      assert.include(out.llmContent, `[Lines over ${MAX_MATCH_LINE_CHARS} chars are shown as ${MAX_MATCH_LINE_CHARS} chars around their first match;`)
    }))
})

describe("grep_search: a cut line is not a line seen whole", () => {
  it.live("readEvidence ranges: the short hit counts as seen, the cut one does not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      write(dir, "mixed.js", `short target\n${minified(2_000, [[1_000, "target"]])}\nline 3\n`)
      const stateDir = yield* tempDir("tw-search-state-")
      yield* Effect.gen(function*() {
        assert.include(okText(yield* call("grep_search", { pattern: "target" })), "mixed.js:2:[…")
        const unseen = yield* call("edit", { file_path: "mixed.js", old_string: "var a=1;target", new_string: "var a=1;x" })
        assert.strictEqual(unseen._tag, "Failure")
        assert.include(unseen._tag === "Failure" ? unseen.message : "", "This edit changes line 2 of")
        assert.include(unseen._tag === "Failure" ? unseen.message : "", "(lines seen so far: 1)")
      }).pipe(Effect.provide(searchSession({ roots: [dir], stateDir, readEvidence: "ranges" })))
    }).pipe(Effect.scoped))
})

describe("grep_search: one minified line cannot starve the rest", () => {
  for (const backend of ["ripgrep", "git-grep", "grep", "js"] as const) {
    it.live(`${backend}: an 18,745-char minified line among 150 matching lines, limit 100: all 100 come back`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir()
        write(dir, "a/bundle.min.js", `${minified(18_745, [[9_000, "needle()"]])}\n`)
        for (let i = 0; i < 150; i++) write(dir, `b/f${String(i).padStart(3, "0")}.txt`, `the needle ${i}\n`)
        const stateDir = yield* tempDir("tw-search-state-")
        const result = yield* call("grep_search", { pattern: "needle", limit: 100 }).pipe(
          Effect.provide(searchSession({ roots: [dir], stateDir, grep: { backend } }))
        )
        const text = okText(result)
        const data = dataOf<GrepSearchData>(result)
        assert.strictEqual(data.matches.length, 100)
        assert.isFalse(text.includes("truncated]"), text.slice(-300))
        const shown = text.split("\n").filter((l) => /^(a|b)\//.test(l))
        assert.strictEqual(shown.length, 100)
        const head = `a/bundle.min.js:1:[…${9_000 - MATCH_LINE_CHARS_BEFORE_HIT} chars cut]`
        assert.strictEqual(shown[0]!.indexOf("needle()"), head.length + MATCH_LINE_CHARS_BEFORE_HIT, shown[0]!.slice(0, 80))
        assert.isTrue(shown[0]!.startsWith(head) && shown[0]!.endsWith(`[${18_745 - 9_000 + MATCH_LINE_CHARS_BEFORE_HIT - MAX_MATCH_LINE_CHARS} chars cut…]`))
        assert.strictEqual(shown[99], "b/f098.txt:1:the needle 98")
        assert.strictEqual(data.engines[0], backend)
      }).pipe(Effect.scoped), 60_000)
  }
})
