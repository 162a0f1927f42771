/**
 * A fetched body as text for a model: HTML converted to Markdown (turndown), text, JSON, XML and
 * other textual types decoded as they are, anything binary refused. The media type comes from the
 * `Content-Type` header; without one, the bytes decide (NUL bytes mean binary, a leading `<html`
 * or doctype means HTML).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import TurndownService from "turndown"
import { FetchUnsupportedContent } from "../tool/index.js"

/** What the model asked to get back for an HTML page. @category models */
export type PageFormat = "markdown" | "html"

/** The converted page. @category models */
export interface PageText {
  readonly text: string
  /** The media type as understood (`text/html`, `application/json`, …). */
  readonly mediaType: string
  /** True when HTML was converted to Markdown. */
  readonly converted: boolean
}

/** Bytes looked at to tell text from binary when no Content-Type says. @category constants */
export const SNIFF_BYTES = 8192

/** `text/html; charset=UTF-8` → `{ mediaType: "text/html", charset: "utf-8" }`. @category parsing */
export const parseContentType = (header: string): { readonly mediaType: string; readonly charset: string | undefined } => {
  const [type = "", ...params] = header.split(";")
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find((c) => c !== undefined)
  return { mediaType: type.trim().toLowerCase(), charset: charset?.trim().toLowerCase() }
}

const isHtml = (mediaType: string) => mediaType === "text/html" || mediaType === "application/xhtml+xml"

/** True for media types passed through as text. @category predicates */
export const isTextual = (mediaType: string): boolean =>
  mediaType.startsWith("text/") ||
  /^application\/(?:json|ld\+json|xml|javascript|ecmascript|x-javascript|x-yaml|yaml|toml|x-toml|x-sh|sql|graphql|x-ndjson|ndjson|csv)$/.test(
    mediaType
  ) ||
  /\+(?:json|xml|yaml)$/.test(mediaType)

const sniff = (body: Buffer): string => {
  const head = body.subarray(0, SNIFF_BYTES)
  if (head.includes(0)) return "application/octet-stream"
  const start = head.toString("latin1").trimStart().slice(0, 64).toLowerCase()
  return start.startsWith("<!doctype html") || start.startsWith("<html") ? "text/html" : "text/plain"
}

const decode = (body: Buffer, charset: string | undefined): string => {
  const label = charset ?? "utf-8"
  const decoder = (() => {
    try {
      return new TextDecoder(label)
    } catch {
      return new TextDecoder("utf-8")
    }
  })()
  return decoder.decode(body)
}

/** HTML → Markdown with the elements that carry no reading text removed. @category constructors */
export const htmlToMarkdown = (html: string): string => {
  const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" })
  service.remove(["script", "style", "noscript", "template", "iframe", "object", "embed", "canvas", "svg"] as Array<
    TurndownService.TagName
  >)
  return service.turndown(html).replace(/\n{3,}/g, "\n\n").trim()
}

/**
 * The page's text, or `fetch_unsupported_content` for a binary type.
 *
 * @category constructors
 */
export const pageText = (
  url: string,
  contentType: string,
  body: Buffer,
  format: PageFormat
): Effect.Effect<PageText, FetchUnsupportedContent> => {
  const parsed = parseContentType(contentType)
  const mediaType = parsed.mediaType === "" ? sniff(body) : parsed.mediaType
  if (isHtml(mediaType)) {
    const html = decode(body, parsed.charset)
    return Effect.sync(() =>
      format === "html" ? { text: html, mediaType, converted: false } : { text: htmlToMarkdown(html), mediaType, converted: true }
    )
  }
  if (isTextual(mediaType)) return Effect.succeed({ text: decode(body, parsed.charset), mediaType, converted: false })
  return Effect.fail(
    new FetchUnsupportedContent({
      message: `${url} is ${mediaType} (${body.length} bytes), not text, so web_fetch does not return it. ` +
        "web_fetch returns web pages (converted to Markdown), text and JSON. For a binary file, download it with a shell command " +
        "(e.g. curl -o) and read it with read_file, or find a text version of it.",
      display: `Not text: ${mediaType}`
    })
  )
}
