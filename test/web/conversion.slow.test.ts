/**
 * A large page converts off the event loop: while web_fetch turns 5 MB of HTML (cut to the 2 MiB
 * conversion cap) into Markdown, timers keep firing in the session's process, and over the built
 * HTTP door another session's call is answered before the big page is. Slow project: a conversion
 * of 2 MiB takes seconds of CPU.
 */
import { assert, describe, it } from "@effect/vitest"
import type * as http from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { Effect, Layer } from "effect"
import { Approver } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"
import { WEB_FETCH_CONVERT_MAX_BYTES } from "../../src/web/config.js"
import type { WebFetchData } from "../../src/web/webFetch.js"
import { connectHttp, startHttpDoor, textOf } from "../support/httpServe.js"
import { tempDir } from "../support/serve.js"
import { makeTempDir } from "../support/session.js"
import { flatPage, startServer } from "./server.js"

const BIG = flatPage(5 * 1024 * 1024)

/** A server whose /big.html is 5 MB of HTML; `sent()` is true once the whole body has been written. */
const bigPageServer = Effect.gen(function*() {
  let sent = false
  const server = yield* startServer({
    "/big.html": (_req: http.IncomingMessage, res: http.ServerResponse) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" })
      res.end(BIG, () => {
        sent = true
      })
    }
  })
  return { ...server, sent: () => sent }
})

describe("web_fetch converts off the event loop", () => {
  it.live("in a session: timers keep firing while 2 MiB of HTML converts; the result says the page was cut", () =>
    Effect.gen(function*() {
      const server = yield* bigPageServer
      // Timer ticks and the loop's delay, counted from the moment the body is sent until the result.
      let ticks = 0
      const delay = monitorEventLoopDelay({ resolution: 10 })
      const timer = setInterval(() => {
        if (server.sent()) {
          if (ticks === 0) delay.enable()
          ticks++
        }
      }, 10)
      const started = performance.now()
      const r: CallResult = yield* Scheduler.use((s) => s.runOne({ callId: "big", name: "web_fetch", args: { url: `${server.base}/big.html` } }))
      const elapsed = performance.now() - started
      clearInterval(timer)
      delay.disable()
      assert.strictEqual(r._tag, "Success", r._tag === "Failure" ? r.message : "")
      const data = r._tag === "Success" ? r.data as WebFetchData : undefined
      assert.strictEqual(data?.cutAtBytes, WEB_FETCH_CONVERT_MAX_BYTES)
      assert.include(r._tag === "Success" ? llmText(r.llmContent) : "", "Paragraph 0 with [a link](/l/0)")
      // On the main thread the conversion would hold the loop for its whole length: no tick at all
      // until it ended. In a worker the loop runs on; 20 ticks of 10 ms is far below what seconds allow.
      const maxDelayMs = delay.max / 1e6
      assert.isAtLeast(ticks, 20, `ticks ${ticks}, loop delay max ${maxDelayMs.toFixed(0)} ms, fetch ${elapsed.toFixed(0)} ms`)
      assert.isBelow(maxDelayMs, elapsed / 2, `loop delay max ${maxDelayMs.toFixed(0)} ms of a ${elapsed.toFixed(0)} ms fetch`)
    }).pipe(Effect.provide(
      SessionLayer.layer({
        roots: [makeTempDir("tw-conv-root-")],
        stateDir: makeTempDir("tw-conv-state-"),
        webFetch: { allow: ["127.0.0.1"], convertTimeoutMs: 300_000 }
      }).pipe(Layer.provide(Approver.layerFixed({ _tag: "proceed_once" })))
    )), 300_000)

  it.live("over the built HTTP door: another session's call is answered while one session's big page converts", () =>
    Effect.gen(function*() {
      const server = yield* bigPageServer
      const root = yield* tempDir()
      const state = yield* tempDir()
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state, "--web-fetch-allow", "127.0.0.1"], {
        TOOLWRIGHT_WEB_FETCH_CONVERT_TIMEOUT_MS: "300000"
      })
      const a = yield* connectHttp(door.url)
      const b = yield* connectHttp(door.url)
      yield* Effect.promise(() => a.client.callTool({ name: "tool_search", arguments: { query: "select:web_fetch" } }))
      const order: Array<string> = []
      type Result = { readonly content?: unknown; readonly isError?: unknown }
      const big = Effect.promise((): Promise<Result> =>
        a.client.callTool({ name: "web_fetch", arguments: { url: `${server.base}/big.html` } }, undefined, { timeout: 300_000 })
          .then((r) => r as Result)
      ).pipe(Effect.tap(() => Effect.sync(() => order.push("big page"))))
      // Session b asks once the big body has been sent (its conversion is then under way).
      const small = Effect.gen(function*() {
        while (!server.sent()) yield* Effect.sleep(20)
        const listed = yield* Effect.promise((): Promise<Result> =>
          b.client.callTool({ name: "tool_search", arguments: { query: "select:web_fetch" } }).then((r) => r as Result)
        )
        order.push("other session")
        return listed
      })
      const [page, other] = yield* Effect.all([big, small], { concurrency: 2 })
      assert.isUndefined(page.isError, textOf(page))
      assert.include(textOf(page), "text/html converted to Markdown")
      assert.include(textOf(page), `only its first ${WEB_FETCH_CONVERT_MAX_BYTES} bytes were converted`)
      assert.include(textOf(other), "web_fetch")
      assert.deepStrictEqual(order, ["other session", "big page"], door.stderr())
    }), 300_000)
})
