/**
 * `web_fetch`: GETs a public page under the room's caps and returns it as text (HTML as
 * Markdown). Permission `ask` by default, as in the reference; rules match `domain:<host>`, so
 * `web_fetch(domain:docs.python.org)` allows one site and `web_fetch(domain:*.internal.example)`
 * denies a family of hosts. The settings (caps, allow-list) are the session's {@link WebFetchConfig};
 * HTML is converted by the session's {@link HtmlConverter} (worker threads, off the event loop).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { defineTool, textResult } from "../tool/index.js"
import { bareHost } from "./address.js"
import { WebFetchConfig } from "./config.js"
import { pageText } from "./convert.js"
import { HtmlConverter } from "./converter.js"
import { fetchPage, parseUrl } from "./page.js"
import { webFetchDeclaration } from "./webFetch.decl.js"

/** What a `web_fetch` result carries for a program. @category models */
export interface WebFetchData {
  readonly url: string
  readonly finalUrl: string
  readonly redirects: ReadonlyArray<string>
  readonly status: number
  readonly mediaType: string
  readonly bytes: number
  readonly converted: boolean
  /** Set when the HTML was longer than the conversion cap: the bytes converted (the rest was cut off). */
  readonly cutAtBytes?: number
}

/** The string a permission rule's specifier is matched against: `domain:<host>`. @category constructors */
export const ruleSubjectOf = (url: string): string =>
  `domain:${URL.canParse(url) ? bareHost(new URL(url).hostname) : url}`

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeWebFetch = Effect.gen(function*() {
  const settings = yield* WebFetchConfig
  const converter = yield* HtmlConverter
  return defineTool({
    ...webFetchDeclaration,
    toAutoClassifierInput: (p) => ruleSubjectOf(p.url),
    invoke: (p) =>
      Effect.map(parseUrl(p.url), (url) => ({
        description: `Fetch ${url.href}`,
        locations: [],
        ruleSubjects: [ruleSubjectOf(url.href)],
        defaultPermission: Effect.succeed("ask" as const),
        execute: () =>
          Effect.gen(function*() {
            const page = yield* fetchPage(url.href, settings)
            const converted = yield* pageText(page.finalUrl, page.contentType, page.body, p.format ?? "markdown", {
              toMarkdown: (html) => converter.toMarkdown({ html, url: page.finalUrl, timeoutMs: settings.convertTimeoutMs }),
              convertMaxBytes: settings.convertMaxBytes
            })
            const via = page.chain.length > 1 ? ` (redirected: ${page.chain.join(" → ")})` : ""
            const how = converted.converted ? `${converted.mediaType} converted to Markdown` : converted.mediaType
            const cut = converted.cutAtBytes === undefined ? "" : ` (only its first ${converted.cutAtBytes} bytes were converted, ` +
              "the conversion limit of web_fetch: the end of the page is missing; fetch a section or a smaller version of it for the rest)"
            const header = `Content of ${page.finalUrl}${via}, HTTP ${page.status}, ${how}, ${page.body.length} bytes${cut}:`
            const asked = p.prompt !== undefined && p.prompt.trim().length > 0
              ? `You fetched this page for: ${p.prompt.trim()}\n\n`
              : ""
            const body = converted.text.length > 0 ? converted.text : "(the page has no text)"
            return textResult<WebFetchData>(`${asked}${header}\n\n${body}`, {
              display: `Fetched ${page.finalUrl} (HTTP ${page.status}, ${how}, ${page.body.length} bytes)`,
              data: {
                url: page.url,
                finalUrl: page.finalUrl,
                redirects: page.chain.slice(1),
                status: page.status,
                mediaType: converted.mediaType,
                bytes: page.body.length,
                converted: converted.converted,
                ...(converted.cutAtBytes === undefined ? {} : { cutAtBytes: converted.cutAtBytes })
              }
            })
          })
      }))
  })
})
