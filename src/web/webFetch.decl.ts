/**
 * The declaration of `web_fetch`: what a model is shown (the description is webFetch.md). The
 * behaviour is in webFetch.ts, imported on the tool's first call. Deferred, as in the reference
 * (§1.2): most turns need no web page, so the tool waits behind `tool_search`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"

/** The params of `web_fetch`. @category schemas */
export const WebFetchParams = Schema.Struct({
  url: Schema.String.annotate({ description: "The full http:// or https:// URL of the page to fetch." }).check(Schema.isNonEmpty()),
  prompt: Schema.optionalKey(
    Schema.String.annotate({
      description: "What you want from the page (e.g. \"the install steps\"). It is repeated above the page's content; no model runs on the page."
    })
  ),
  format: Schema.optionalKey(
    Schema.Literals(["markdown", "html"]).annotate({
      description: "How an HTML page comes back: markdown (default, converted) or html (the source as sent). Text and JSON come back as they are."
    })
  )
})

/** The declaration of `web_fetch`. @category declarations */
export const webFetchDeclaration = declareTool({
  name: "web_fetch",
  displayName: "WebFetch",
  kind: Kind.Fetch,
  shouldDefer: true,
  searchHint: "web fetch url http https page download read website markdown",
  description: descriptionFile(import.meta.url, "webFetch.md"),
  params: WebFetchParams
})
