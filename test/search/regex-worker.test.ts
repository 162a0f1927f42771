import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit } from "effect"
import { ExecutionTimeout, GrepExecutionError } from "../../src/tool/errors.js"
import { MAX_MATCH_LINE_CHARS } from "../../src/search/constants.js"
import { makeRegexMatcher } from "../../src/search/grep/regexWorker.js"
import { compileGrepPattern } from "../../src/search/regex/compile.js"

const compiled = (pattern: string) => {
  const result = compileGrepPattern(pattern)
  if (!result.ok) throw new Error(result.message)
  return result.value.regex
}

describe("regex worker", () => {
  it.live("answers the indices the regex matches, as RegExp.test would", () =>
    Effect.gen(function*() {
      const lines = ["Foo bar", "nothing", "FOO", "\u00e9t\u00e9 foo", "\udc80 foo", "", "foofoo"]
      for (const pattern of ["foo", "^foo$", "\\bfoo\\b", "(f)o\\1?o", "(?<=t\u00e9 )foo", "[^a-z]"]) {
        const regex = compiled(pattern)
        const matcher = yield* makeRegexMatcher(regex)
        const found = yield* matcher.matchLines(lines)
        assert.deepStrictEqual([...found.hits], lines.flatMap((line, i) => (regex.test(line) ? [i] : [])), pattern)
        assert.deepStrictEqual([...found.at], found.hits.map(() => -1), pattern)
        assert.deepStrictEqual(yield* matcher.matchLines([]), { hits: [], at: [] })
      }
    }).pipe(Effect.scoped), 30_000)

  it.live("says where the first hit of a line longer than MAX_MATCH_LINE_CHARS starts", () =>
    Effect.gen(function*() {
      const long = `${"x".repeat(MAX_MATCH_LINE_CHARS)} été FOO then foo`
      const matcher = yield* makeRegexMatcher(compiled("foo"))
      const found = yield* matcher.matchLines(["foo short", "none", long])
      assert.deepStrictEqual(found, { hits: [0, 2], at: [-1, long.indexOf("FOO")] })
    }).pipe(Effect.scoped), 30_000)

  it.live("a catastrophic pattern spins in the worker: the event loop keeps ticking and its deadline stops it", () =>
    Effect.gen(function*() {
      const matcher = yield* makeRegexMatcher(compiled("(a+)+$"), 600)
      let ticks = 0
      const timer = setInterval(() => ticks++, 10)
      const started = performance.now()
      const exit = yield* matcher.matchLines([`${"a".repeat(40)}!`]).pipe(Effect.exit)
      const elapsed = performance.now() - started
      clearInterval(timer)
      assert.isTrue(Exit.isFailure(exit), "2^40 steps cannot finish in 600 ms")
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, ExecutionTimeout)
      assert.include((error as ExecutionTimeout).message, "took more than 0.6 s to match 1 line(s)")
      // the main thread was free: up to 60 ticks of 10 ms in 600 ms; on the main thread the regex would allow none
      assert.isAbove(ticks, 5, `only ${ticks} timer ticks while the regex ran`)
      assert.isBelow(elapsed, 5_000)
    }).pipe(Effect.scoped), 30_000)

  it.live("a worker over its heap cap fails with grep_execution_error, saying to simplify the pattern", () =>
    Effect.gen(function*() {
      // an 8 MB heap cannot hold 64 MB of lines: the worker dies of ERR_WORKER_OUT_OF_MEMORY
      const matcher = yield* makeRegexMatcher(compiled("x"), 30_000, 8)
      const lines = Array.from({ length: 64 }, (_, i) => `${"y".repeat(1024 * 1024 - 1)}${i}`)
      const exit = yield* matcher.matchLines(lines).pipe(Effect.exit)
      const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.instanceOf(error, GrepExecutionError)
      assert.match((error as GrepExecutionError).message, /ran out of memory \(over 8 MB\) while matching\. Simplify the pattern/)
    }).pipe(Effect.scoped), 60_000)
})
