/**
 * Fetches a page: parse the URL, resolve and check its host, GET it from the checked address,
 * follow redirects (each target parsed and checked again, up to the cap), all within the time cap.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import {
  FetchHttpStatus,
  FetchInvalidUrl,
  FetchTimeout,
  FetchTooManyRedirects
} from "../tool/index.js"
import { resolveChecked } from "./address.js"
import type { WebFetchSettings } from "./config.js"
import { isRedirect, requestOnce } from "./http.js"

/** A fetched page. @category models */
export interface FetchedPage {
  /** The URL asked for. */
  readonly url: string
  /** The URL the body came from (after redirects). */
  readonly finalUrl: string
  /** Every URL visited, the asked one first. */
  readonly chain: ReadonlyArray<string>
  readonly status: number
  /** The Content-Type header, as sent (empty when absent). */
  readonly contentType: string
  readonly body: Buffer
}

/** Characters of an error page's body quoted in `fetch_http_status`. @category constants */
export const ERROR_BODY_PREVIEW_CHARS = 500

/**
 * An absolute http(s) URL without credentials, or `fetch_invalid_url` saying what is wrong.
 * `context` says where the URL came from (a redirect) in the message.
 *
 * @category constructors
 */
export const parseUrl = (raw: string, context = ""): Effect.Effect<URL, FetchInvalidUrl> => {
  const invalid = (why: string) =>
    Effect.fail(
      new FetchInvalidUrl({
        message: `${context}"${raw}" is not a URL web_fetch can fetch: ${why}. Give a full URL such as https://example.com/page.`,
        display: `Invalid URL: ${why}`
      })
    )
  if (!URL.canParse(raw)) return invalid("it is not an absolute URL")
  const url = new URL(raw)
  if (url.protocol !== "http:" && url.protocol !== "https:") return invalid(`only http and https are fetched, not ${url.protocol}`)
  if (url.hostname === "") return invalid("it has no host")
  if (url.username !== "" || url.password !== "") return invalid("credentials in the URL are not sent")
  url.hash = ""
  return Effect.succeed(url)
}

const statusError = (url: URL, status: number, body: Buffer) => {
  const preview = body.subarray(0, ERROR_BODY_PREVIEW_CHARS * 4).toString("utf8").slice(0, ERROR_BODY_PREVIEW_CHARS).trim()
  const advice = status === 404 || status === 410
    ? "Check the URL; the page does not exist."
    : status === 401 || status === 403
    ? "The page needs credentials web_fetch does not have; do not retry it."
    : status === 429 || status >= 500
    ? "The server is busy or failing; retry later or use another source."
    : "Check the URL and the request."
  return new FetchHttpStatus({
    message: `${url.href} answered HTTP ${status}. ${advice}${preview.length > 0 ? `\nThe start of its body:\n${preview}` : ""}`,
    display: `HTTP ${status}`
  })
}

const fetchHops = Effect.fnUntraced(function*(raw: string, settings: WebFetchSettings) {
  let url = yield* parseUrl(raw)
  const chain = [url.href]
  for (let redirects = 0;; redirects++) {
    const addresses = yield* resolveChecked(url.hostname, settings.allow)
    const response = yield* requestOnce(url, addresses, settings.maxBytes)
    const location = response.headers.location
    if (isRedirect(response.status) && location !== undefined) {
      if (redirects >= settings.maxRedirects) {
        return yield* new FetchTooManyRedirects({
          message: `${chain[0]} redirected more than ${settings.maxRedirects} times (${chain.join(" → ")} → ${location}). ` +
            "Fetch the final URL directly if you know it, or try another source.",
          display: `More than ${settings.maxRedirects} redirects`
        })
      }
      const target = URL.canParse(location, url.href) ? new URL(location, url).href : location
      url = yield* parseUrl(target, `${url.href} redirected to `)
      chain.push(url.href)
      continue
    }
    if (response.status >= 400) return yield* statusError(url, response.status, response.body)
    const contentType = response.headers["content-type"] ?? ""
    return { url: chain[0]!, finalUrl: url.href, chain, status: response.status, contentType, body: response.body } satisfies FetchedPage
  }
})

/**
 * Fetches `raw` under the settings' caps. Errors: `fetch_invalid_url`, `fetch_blocked_address`,
 * `fetch_network_error`, `fetch_too_large`, `fetch_too_many_redirects`, `fetch_http_status`,
 * `fetch_timeout`.
 *
 * @category constructors
 */
export const fetchPage = (raw: string, settings: WebFetchSettings) =>
  fetchHops(raw, settings).pipe(
    Effect.timeoutOrElse({
      duration: settings.timeoutMs,
      orElse: () =>
        Effect.fail(
          new FetchTimeout({
            message: `${raw} did not arrive within ${settings.timeoutMs} ms, the time limit of web_fetch. ` +
              "Retry once if the site may be slow; otherwise use another source.",
            display: `Timed out after ${settings.timeoutMs} ms`
          })
        )
    })
  )
