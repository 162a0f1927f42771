/**
 * One HTTP(S) GET to addresses that were already checked: the connection goes to one of them
 * (a `lookup` that answers with them, so TLS still verifies the certificate against the URL's host
 * name), and the body is read up to the size cap, then dropped. Redirects are not followed here
 * (see page.ts). Interrupting the effect destroys the request.
 *
 * @since 0.1.0
 */
import type { IncomingHttpHeaders } from "node:http"
import * as http from "node:http"
import * as https from "node:https"
import type * as net from "node:net"
import * as Effect from "effect/Effect"
import { FetchNetworkError, FetchTooLarge } from "../tool/index.js"
import type { CheckedAddress } from "./address.js"
import { USER_AGENT } from "./config.js"

/** A response, its body read whole (empty for a redirect). @category models */
export interface HttpResponse {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
}

const ACCEPT = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5"

/** 301, 302, 303, 307, 308 with a Location: a redirect to follow. @category predicates */
export const isRedirect = (status: number): boolean => [301, 302, 303, 307, 308].includes(status)

const tooLarge = (url: URL, maxBytes: number, seen: string) =>
  new FetchTooLarge({
    message: `The response from ${url.href} is larger than the ${maxBytes}-byte limit of web_fetch (${seen}); the download was stopped. ` +
      "Fetch a smaller page (one section, a raw file, an API with paging) instead.",
    display: `Response over ${maxBytes} bytes (${seen})`
  })

const networkError = (url: URL, error: NodeJS.ErrnoException) =>
  new FetchNetworkError({
    message: `Could not fetch ${url.href}: ${error.code ?? error.message}. ` +
      "Check the URL; if it is right, the site may be down, refusing connections or presenting a bad certificate. Retry once at most.",
    display: `Network error: ${error.code ?? error.message}`
  })

/**
 * GETs `url` from one of `addresses` (every one checked; Node tries them in order when it may
 * pick among several), reading at most `maxBytes` of body.
 *
 * @category constructors
 */
export const requestOnce = (
  url: URL,
  addresses: ReadonlyArray<CheckedAddress>,
  maxBytes: number
): Effect.Effect<HttpResponse, FetchTooLarge | FetchNetworkError> =>
  Effect.callback<HttpResponse, FetchTooLarge | FetchNetworkError>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<HttpResponse, FetchTooLarge | FetchNetworkError>) => {
      if (settled) return
      settled = true
      resume(effect)
    }
    // Node asks with `all: true` when it may try several addresses (autoSelectFamily); either way
    // the answer is the checked addresses, never a new resolution.
    const first = addresses[0]!
    const lookup: net.LookupFunction = (_hostname, options, callback) => {
      if (options.all === true) {
        ;(callback as unknown as (e: null, all: ReadonlyArray<CheckedAddress>) => void)(null, addresses)
      } else callback(null, first.address, first.family)
    }
    const client = url.protocol === "https:" ? https : http
    const request = client.request(url, {
      method: "GET",
      agent: false,
      lookup,
      headers: { "user-agent": USER_AGENT, accept: ACCEPT, "accept-encoding": "identity" }
    }, (response) => {
      const status = response.statusCode ?? 0
      if (isRedirect(status)) {
        response.destroy()
        settle(Effect.succeed({ status, headers: response.headers, body: Buffer.alloc(0) }))
        return
      }
      const declared = Number(response.headers["content-length"])
      if (Number.isFinite(declared) && declared > maxBytes) {
        request.destroy()
        settle(Effect.fail(tooLarge(url, maxBytes, `Content-Length ${declared}`)))
        return
      }
      const chunks: Array<Buffer> = []
      let total = 0
      response.on("data", (chunk: Buffer) => {
        total += chunk.length
        if (total > maxBytes) {
          request.destroy()
          settle(Effect.fail(tooLarge(url, maxBytes, `more than ${maxBytes} bytes arrived`)))
          return
        }
        chunks.push(chunk)
      })
      response.on("end", () => settle(Effect.succeed({ status, headers: response.headers, body: Buffer.concat(chunks, total) })))
      response.on("error", (error) => settle(Effect.fail(networkError(url, error))))
    })
    request.on("error", (error) => settle(Effect.fail(networkError(url, error))))
    request.end()
    return Effect.sync(() => {
      settled = true
      request.destroy()
    })
  })
