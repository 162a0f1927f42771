/**
 * The HTML → Markdown converter of web_fetch: real worker threads running src/web/htmlWorker.mjs.
 * A conversion past its time cap and a worker out of heap each fail only their own conversion,
 * with their own code; the worker is replaced and the next conversion works; closing the scope
 * terminates every worker.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Scope } from "effect"
import * as Exit from "effect/Exit"
import { makeHtmlConverter } from "../../src/web/converter.js"
import { flatPage, nestedPage, PAGE_HTML } from "./server.js"

const URL_ = "http://example.test/page"
const GENEROUS = 120_000

describe("HtmlConverter (worker threads)", () => {
  it.live("converts in a worker, scripts and styles removed; one worker serves one conversion after another", () =>
    Effect.gen(function*() {
      const converter = yield* makeHtmlConverter({ workers: 2 })
      assert.strictEqual(yield* converter.workers, 0, "no worker before the first conversion")
      const first = yield* converter.toMarkdown({ html: PAGE_HTML, url: URL_, timeoutMs: GENEROUS })
      assert.include(first, "# Install guide")
      assert.include(first, "Run `npm install toolwright` and then [read on](/next).")
      assert.notInclude(first, "window.secret")
      assert.notInclude(first, "color:red")
      const second = yield* converter.toMarkdown({ html: "<p>two <em>words</em></p>", url: URL_, timeoutMs: GENEROUS })
      assert.strictEqual(second, "two *words*")
      assert.strictEqual(yield* converter.workers, 1, "conversions one after another share one worker")
    }).pipe(Effect.scoped), 60_000)

  it.live("a conversion past its time cap (deep nesting, which turndown takes minutes over) is fetch_conversion_timeout; the next one works", () =>
    Effect.gen(function*() {
      const converter = yield* makeHtmlConverter({ workers: 1 })
      const stuck = yield* Effect.flip(converter.toMarkdown({ html: nestedPage(100_000), url: URL_, timeoutMs: 1500 }))
      assert.strictEqual(stuck.code, "fetch_conversion_timeout")
      assert.include(stuck.message, `Converting ${URL_} from HTML to Markdown took longer than 1500 ms`)
      assert.include(stuck.message, "format \"html\"")
      assert.strictEqual(yield* converter.workers, 0, "the stuck worker was terminated")
      const next = yield* converter.toMarkdown({ html: PAGE_HTML, url: URL_, timeoutMs: GENEROUS })
      assert.include(next, "# Install guide")
    }).pipe(Effect.scoped), 60_000)

  it.live("a worker out of heap fails its conversion with fetch_conversion_failed; the process lives on and the next one works", () =>
    Effect.gen(function*() {
      const converter = yield* makeHtmlConverter({ workers: 1, heapMb: 16 })
      const failed = yield* Effect.flip(converter.toMarkdown({ html: flatPage(2_000_000), url: URL_, timeoutMs: GENEROUS }))
      assert.strictEqual(failed.code, "fetch_conversion_failed")
      assert.include(failed.message, "needs more than the converter's 16 MiB of memory")
      const next = yield* converter.toMarkdown({ html: PAGE_HTML, url: URL_, timeoutMs: GENEROUS })
      assert.include(next, "# Install guide")
    }).pipe(Effect.scoped), 90_000)

  it.live("two conversions at once use two workers; closing the scope terminates them", () =>
    Effect.gen(function*() {
      const scope = yield* Scope.make()
      const converter = yield* makeHtmlConverter({ workers: 2 }).pipe(Scope.provide(scope))
      const both = yield* Effect.all([
        converter.toMarkdown({ html: flatPage(50_000), url: URL_, timeoutMs: GENEROUS }),
        converter.toMarkdown({ html: flatPage(50_000), url: URL_, timeoutMs: GENEROUS })
      ], { concurrency: 2 })
      assert.strictEqual(both[0], both[1])
      assert.strictEqual(yield* converter.workers, 2)
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(yield* converter.workers, 0)
    }), 60_000)
})
