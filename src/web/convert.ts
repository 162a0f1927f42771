/**
 * A fetched body as text for a model: HTML converted to Markdown (turndown, in a worker thread: see
 * ./converter.ts; a page longer than the conversion cap is cut first), text, JSON, XML and
 * other textual types decoded as they are, anything binary refused. The media type comes from the
 * `Content-Type` header; without one, the bytes decide (NUL bytes mean binary, a leading `<html`
 * or doctype means HTML).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { FetchConversionFailed, FetchConversionTimeout } from "../tool/index.js"
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
  /** Set when the HTML was longer than the conversion cap: the bytes converted (the rest was cut off). */
  readonly cutAtBytes?: number
}

/** Converts HTML to Markdown (the session's {@link HtmlConverter}, with the page's URL and time cap bound). @category models */
export type ToMarkdown = (html: string) => Effect.Effect<string, FetchConversionFailed | FetchConversionTimeout>

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

/**
 * The page's text, or `fetch_unsupported_content` for a binary type. HTML asked for as Markdown is
 * cut to `convertMaxBytes` and converted by `toMarkdown` (`fetch_conversion_failed`,
 * `fetch_conversion_timeout`).
 *
 * @category constructors
 */
export const pageText = (
  url: string,
  contentType: string,
  body: Buffer,
  format: PageFormat,
  conversion: { readonly toMarkdown: ToMarkdown; readonly convertMaxBytes: number }
): Effect.Effect<PageText, FetchUnsupportedContent | FetchConversionFailed | FetchConversionTimeout> => {
  const parsed = parseContentType(contentType)
  const mediaType = parsed.mediaType === "" ? sniff(body) : parsed.mediaType
  if (isHtml(mediaType)) {
    if (format === "html") return Effect.succeed({ text: decode(body, parsed.charset), mediaType, converted: false })
    const cut = body.length > conversion.convertMaxBytes
    const html = decode(cut ? body.subarray(0, conversion.convertMaxBytes) : body, parsed.charset)
    return Effect.map(conversion.toMarkdown(html), (text) => ({
      text,
      mediaType,
      converted: true,
      ...(cut ? { cutAtBytes: conversion.convertMaxBytes } : {})
    }))
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
