/**
 * The web room: `web_fetch` (a public page as text, with address checks, caps and domain rules)
 * and its settings.
 *
 * @since 0.1.0
 */
export { BLOCKED_RANGES, bareHost, blockedRangeOf, type CheckedAddress, isAllowed, resolveChecked } from "./address.js"
export {
  DEFAULT_WEB_FETCH_SETTINGS,
  resolveWebFetchSettings,
  splitAllowList,
  USER_AGENT,
  WEB_FETCH_CONVERT_MAX_BYTES,
  WEB_FETCH_CONVERT_TIMEOUT_MS,
  WEB_FETCH_MAX_BYTES,
  WEB_FETCH_MAX_REDIRECTS,
  WEB_FETCH_TIMEOUT_MS,
  WebFetchConfig,
  type WebFetchOptions,
  type WebFetchSettings
} from "./config.js"
export {
  isTextual,
  type PageFormat,
  type PageText,
  pageText,
  parseContentType,
  SNIFF_BYTES,
  type ToMarkdown
} from "./convert.js"
export {
  type ConversionJob,
  HTML_CONVERTER_HEAP_MB,
  HTML_CONVERTER_WORKERS,
  HtmlConverter,
  type HtmlConverterOptions,
  type HtmlConverterService,
  makeHtmlConverter
} from "./converter.js"
export { type HttpResponse, isRedirect, requestOnce } from "./http.js"
export { ERROR_BODY_PREVIEW_CHARS, type FetchedPage, fetchPage, parseUrl } from "./page.js"
export { webFetchDeclaration, WebFetchParams } from "./webFetch.decl.js"
export { makeWebFetch, ruleSubjectOf, type WebFetchData } from "./webFetch.js"
