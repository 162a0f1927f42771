/**
 * web_fetch through a real session (the built-in catalog, the scheduler, the output pipeline)
 * against a server the test starts on 127.0.0.1. Every fetch_* code is triggered here, and the
 * refusals are checked to send nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { spawnSync } from "node:child_process"
import * as http from "node:http"
import * as https from "node:https"
import * as path from "node:path"
import type { AddressInfo } from "node:net"
import { Effect, Layer } from "effect"
import { Approver } from "../../src/run/approver.js"
import type { ApprovalMode, PermissionRule } from "../../src/run/policy.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"
import type { WebFetchOptions } from "../../src/web/config.js"
import { type HtmlConverterService, makeHtmlConverter } from "../../src/web/converter.js"
import type { WebFetchData } from "../../src/web/webFetch.js"
import { makeTempDir } from "../support/session.js"
import { startServer } from "./server.js"

const ALLOW_LOCAL: WebFetchOptions = { allow: ["127.0.0.1"] }

const session = (options: {
  readonly webFetch?: WebFetchOptions
  readonly htmlConverter?: HtmlConverterService
  readonly mode?: ApprovalMode
  readonly rules?: ReadonlyArray<PermissionRule>
  readonly approver?: Layer.Layer<Approver>
} = {}) =>
  SessionLayer.layer({
    roots: [makeTempDir("tw-web-root-")],
    stateDir: makeTempDir("tw-web-state-"),
    ...(options.webFetch ? { webFetch: options.webFetch } : {}),
    ...(options.htmlConverter ? { htmlConverter: options.htmlConverter } : {}),
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.rules ? { rules: options.rules } : {})
  }).pipe(Layer.provide(options.approver ?? Approver.layerFixed({ _tag: "proceed_once" })))

const fetchCall = (args: Record<string, unknown>): Effect.Effect<CallResult, never, Scheduler> =>
  Scheduler.use((s) => s.runOne({ callId: `wf-${Math.random().toString(16).slice(2, 10)}`, name: "web_fetch", args }))

const textOf = (r: CallResult) => (r._tag === "Success" ? llmText(r.llmContent) : r.message)
const codeOf = (r: CallResult) => (r._tag === "Failure" ? r.code : r._tag)
const dataOf = (r: CallResult) => (r._tag === "Success" ? r.data as WebFetchData : undefined)

describe("web_fetch against a local server (allowed with webFetch.allow)", () => {
  it.live("an HTML page comes back as Markdown, without scripts and styles, with the prompt above it", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const r = yield* fetchCall({ url: `${server.base}/page.html`, prompt: "the install command" })
      assert.strictEqual(codeOf(r), "Success")
      const text = textOf(r)
      assert.isTrue(text.startsWith("You fetched this page for: the install command\n\n"), text)
      assert.include(text, `Content of ${server.base}/page.html, HTTP 200, text/html converted to Markdown`)
      assert.include(text, "# Install guide")
      assert.include(text, "Run `npm install toolwright` and then [read on](/next).")
      assert.include(text, "-   one")
      assert.notInclude(text, "window.secret")
      assert.notInclude(text, "color:red")
      assert.strictEqual(dataOf(r)?.status, 200)
      assert.isTrue(dataOf(r)?.converted)
      assert.include(server.userAgents()[0], "toolwright-web-fetch")
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)

  it.live("format html returns the source; JSON and text pass through; a charset is honoured; untyped text is sniffed", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const html = yield* fetchCall({ url: `${server.base}/page.html`, format: "html" })
      assert.include(textOf(html), "<h1>Install guide</h1>")
      const json = yield* fetchCall({ url: `${server.base}/data.json` })
      assert.include(textOf(json), "application/json")
      assert.include(textOf(json), `{"name":"toolwright","tools":17}`)
      const latin = yield* fetchCall({ url: `${server.base}/notes.txt` })
      assert.include(textOf(latin), "café crème")
      const untyped = yield* fetchCall({ url: `${server.base}/untyped-text` })
      assert.include(textOf(untyped), "no content type, plain words")
      assert.strictEqual(dataOf(untyped)?.mediaType, "text/plain")
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)

  it.live("redirects are followed and named; more than the cap is fetch_too_many_redirects", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const one = yield* fetchCall({ url: `${server.base}/redirect` })
      assert.strictEqual(codeOf(one), "Success")
      assert.include(textOf(one), `Content of ${server.base}/page.html (redirected: ${server.base}/redirect → ${server.base}/page.html)`)
      assert.deepStrictEqual(dataOf(one)?.redirects, [`${server.base}/page.html`])
      const three = yield* fetchCall({ url: `${server.base}/hop?n=2` })
      assert.strictEqual(codeOf(three), "Success")
      assert.strictEqual(dataOf(three)?.finalUrl, `${server.base}/data.json`)
      const loop = yield* fetchCall({ url: `${server.base}/loop` })
      assert.strictEqual(codeOf(loop), "fetch_too_many_redirects")
      assert.include(textOf(loop), "redirected more than 3 times")
      const tooMany = yield* fetchCall({ url: `${server.base}/hop?n=3` })
      assert.strictEqual(codeOf(tooMany), "fetch_too_many_redirects")
    }).pipe(Effect.provide(session({ webFetch: { ...ALLOW_LOCAL, maxRedirects: 3 } }))), 30_000)

  it.live("a redirect to the cloud metadata address is refused before anything is sent there; a redirect to ftp is fetch_invalid_url", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const r = yield* fetchCall({ url: `${server.base}/to-metadata` })
      assert.strictEqual(codeOf(r), "fetch_blocked_address")
      assert.include(textOf(r), "Refused to fetch from 169.254.169.254: it is a link-local address (where cloud metadata services live)")
      const ftp = yield* fetchCall({ url: `${server.base}/to-ftp` })
      assert.strictEqual(codeOf(ftp), "fetch_invalid_url")
      assert.include(textOf(ftp), `${server.base}/to-ftp redirected to "ftp://example.com/file"`)
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)

  it.live("binary content is fetch_unsupported_content, by its type or by its bytes", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const png = yield* fetchCall({ url: `${server.base}/image.png` })
      assert.strictEqual(codeOf(png), "fetch_unsupported_content")
      assert.include(textOf(png), "is image/png (8 bytes), not text")
      const untyped = yield* fetchCall({ url: `${server.base}/untyped-binary` })
      assert.strictEqual(codeOf(untyped), "fetch_unsupported_content")
      assert.include(textOf(untyped), "application/octet-stream")
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)

  it.live("a body over the size cap is fetch_too_large, by Content-Length or while streaming", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const declared = yield* fetchCall({ url: `${server.base}/big` })
      assert.strictEqual(codeOf(declared), "fetch_too_large")
      assert.include(textOf(declared), "larger than the 1024-byte limit of web_fetch (Content-Length 4096)")
      const streamed = yield* fetchCall({ url: `${server.base}/big-chunked` })
      assert.strictEqual(codeOf(streamed), "fetch_too_large")
      assert.include(textOf(streamed), "more than 1024 bytes arrived")
    }).pipe(Effect.provide(session({ webFetch: { ...ALLOW_LOCAL, maxBytes: 1024 } }))), 30_000)

  it.live("a server that never answers is fetch_timeout", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const r = yield* fetchCall({ url: `${server.base}/slow` })
      assert.strictEqual(codeOf(r), "fetch_timeout")
      assert.include(textOf(r), "did not arrive within 300 ms")
    }).pipe(Effect.provide(session({ webFetch: { ...ALLOW_LOCAL, timeoutMs: 300 } }))), 30_000)

  it.live("an HTTP error is fetch_http_status with the body's start; a closed port is fetch_network_error; a bad URL is fetch_invalid_url", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const missing = yield* fetchCall({ url: `${server.base}/missing` })
      assert.strictEqual(codeOf(missing), "fetch_http_status")
      assert.include(textOf(missing), "answered HTTP 404. Check the URL; the page does not exist.\nThe start of its body:\nNo such page here")
      // a port that was just free: nothing listens there
      const closedPort = yield* Effect.callback<number>((resume) => {
        const probe = http.createServer()
        probe.listen(0, "127.0.0.1", () => {
          const port = (probe.address() as AddressInfo).port
          probe.close(() => resume(Effect.succeed(port)))
        })
      })
      const refused = yield* fetchCall({ url: `http://127.0.0.1:${closedPort}/` })
      assert.strictEqual(codeOf(refused), "fetch_network_error")
      assert.include(textOf(refused), "ECONNREFUSED")
      for (const url of ["ftp://example.com/x", "example.com/page", "http://user:pw@example.com/"]) {
        const bad = yield* fetchCall({ url })
        assert.strictEqual(codeOf(bad), "fetch_invalid_url", url)
      }
      const empty = yield* fetchCall({ url: "" })
      assert.strictEqual(codeOf(empty), "invalid_tool_params")
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)

  it.live("a long page goes through the output budget: cut, and the full text persisted to a file", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const r = yield* fetchCall({ url: `${server.base}/long.html` })
      assert.strictEqual(codeOf(r), "Success")
      const text = textOf(r)
      const saved = text.match(/Full output saved to: (\S+)/)?.[1]
      assert.isDefined(saved, text.slice(0, 500))
      const full = fs.readFileSync(saved!, "utf8")
      assert.include(full, "# Long")
      assert.include(full, "THE END")
      assert.isBelow(text.length, full.length)
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)
})

describe("web_fetch's HTML → Markdown conversion (worker threads, capped)", () => {
  it.live("a page longer than the conversion cap is cut before conversion, and the result says so", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const r = yield* fetchCall({ url: `${server.base}/large.html?bytes=20000` })
      assert.strictEqual(codeOf(r), "Success")
      assert.include(textOf(r), "text/html converted to Markdown, ")
      assert.include(textOf(r), "(only its first 3000 bytes were converted, the conversion limit of web_fetch: the end of the page is missing")
      assert.include(textOf(r), "Paragraph 0 with [a link](/l/0)")
      assert.notInclude(textOf(r), "Paragraph 60 ")
      assert.strictEqual(dataOf(r)?.cutAtBytes, 3000)
      assert.isAbove(dataOf(r)!.bytes, 20000)
      const whole = yield* fetchCall({ url: `${server.base}/page.html` })
      assert.isUndefined(dataOf(whole)?.cutAtBytes)
      assert.notInclude(textOf(whole), "were converted")
    }).pipe(Effect.provide(session({ webFetch: { ...ALLOW_LOCAL, convertMaxBytes: 3000 } }))), 30_000)

  it.live("a conversion past its time cap is fetch_conversion_timeout, and the next fetch of the session works", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const stuck = yield* fetchCall({ url: `${server.base}/nested.html?depth=100000` })
      assert.strictEqual(codeOf(stuck), "fetch_conversion_timeout")
      assert.include(textOf(stuck), "took longer than 1500 ms, the conversion time limit of web_fetch")
      const next = yield* fetchCall({ url: `${server.base}/page.html` })
      assert.strictEqual(codeOf(next), "Success")
      assert.include(textOf(next), "# Install guide")
    }).pipe(Effect.provide(session({ webFetch: { ...ALLOW_LOCAL, convertTimeoutMs: 1500 } }))), 60_000)

  it.live("a converter out of heap is fetch_conversion_failed (the session's process lives on); format html still works", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const converter = yield* makeHtmlConverter({ workers: 1, heapMb: 16 })
      const r = yield* fetchCall({ url: `${server.base}/large.html?bytes=2000000` }).pipe(
        Effect.provide(session({ webFetch: ALLOW_LOCAL, htmlConverter: converter }))
      )
      assert.strictEqual(codeOf(r), "fetch_conversion_failed")
      assert.include(textOf(r), "needs more than the converter's 16 MiB of memory")
      const source = yield* fetchCall({ url: `${server.base}/page.html`, format: "html" }).pipe(
        Effect.provide(session({ webFetch: ALLOW_LOCAL, htmlConverter: converter }))
      )
      assert.include(textOf(source), "<h1>Install guide</h1>")
    }).pipe(Effect.scoped), 90_000)
})

describe("web_fetch over TLS", () => {
  it.live("https goes to the checked address and still verifies the certificate: a self-signed one is fetch_network_error", () =>
    Effect.gen(function*() {
      const dir = makeTempDir("tw-web-tls-")
      const made = spawnSync("openssl", [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
        "-keyout", path.join(dir, "key.pem"), "-out", path.join(dir, "cert.pem")
      ], { encoding: "utf8" })
      assert.strictEqual(made.status, 0, made.stderr)
      const server = yield* Effect.acquireRelease(
        Effect.callback<https.Server>((resume) => {
          const s = https.createServer(
            { key: fs.readFileSync(path.join(dir, "key.pem")), cert: fs.readFileSync(path.join(dir, "cert.pem")) },
            (_req, res) => res.end("secret")
          )
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) =>
          Effect.callback<void>((resume) => {
            s.close(() => resume(Effect.void))
          })
      )
      const port = (server.address() as AddressInfo).port
      const r = yield* fetchCall({ url: `https://localhost:${port}/` })
      assert.strictEqual(codeOf(r), "fetch_network_error")
      assert.include(textOf(r), "SELF_SIGNED")
    }).pipe(Effect.provide(session({ webFetch: { allow: ["localhost"] } }))), 30_000)
})

describe("web_fetch refusals without the allow-list", () => {
  it.live("loopback by address and localhost by name are refused, and the server sees no request", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const direct = yield* fetchCall({ url: `${server.base}/page.html` })
      assert.strictEqual(codeOf(direct), "fetch_blocked_address")
      assert.include(textOf(direct), "Refused to fetch from 127.0.0.1: it is a loopback address")
      const byName = yield* fetchCall({ url: `http://localhost:${server.port}/page.html` })
      assert.strictEqual(codeOf(byName), "fetch_blocked_address")
      assert.match(textOf(byName), /Refused to fetch from (127\.0\.0\.1|::1) \(the host "localhost" resolves to it\): it is a loopback address/)
      const mapped = yield* fetchCall({ url: `http://[::ffff:127.0.0.1]:${server.port}/` })
      assert.strictEqual(codeOf(mapped), "fetch_blocked_address")
      const decimal = yield* fetchCall({ url: `http://2130706433:${server.port}/` })
      assert.strictEqual(codeOf(decimal), "fetch_blocked_address")
      assert.strictEqual(server.hits(), 0)
    }).pipe(Effect.provide(session())), 30_000)

  it.live("allowing 127.0.0.1 does not allow another private address", () =>
    Effect.gen(function*() {
      const r = yield* fetchCall({ url: "http://10.1.2.3/" })
      assert.strictEqual(codeOf(r), "fetch_blocked_address")
      assert.include(textOf(r), "it is a private address")
    }).pipe(Effect.provide(session({ webFetch: ALLOW_LOCAL }))), 30_000)
})

describe("web_fetch permission rules by domain", () => {
  it.live("a deny rule web_fetch(domain:HOST) refuses; an allow rule lets it run without asking; otherwise it asks", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const run = (rules: ReadonlyArray<PermissionRule>) =>
        fetchCall({ url: `${server.base}/data.json` }).pipe(
          Effect.provide(session({ webFetch: ALLOW_LOCAL, mode: "default", rules, approver: Approver.layerFixed({ _tag: "cancel" }) }))
        )
      const denied = yield* run([{ decision: "deny", pattern: "web_fetch(domain:127.0.0.1)" }])
      assert.strictEqual(codeOf(denied), "execution_denied")
      const allowed = yield* run([{ decision: "allow", pattern: "web_fetch(domain:127.0.0.1)" }])
      assert.strictEqual(codeOf(allowed), "Success")
      const otherDomain = yield* run([{ decision: "allow", pattern: "web_fetch(domain:example.com)" }])
      assert.strictEqual(codeOf(otherDomain), "Cancelled")
      assert.strictEqual(server.hits(), 1)
    }), 30_000)
})
