/**
 * The declaration of `grep_search`: what a model is shown (the description is grepSearch.md). The
 * behaviour is in grepSearchTool.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../../tool/index.js"
import { GREP_MAX_OUTPUT_CHARS } from "../constants.js"

/** Params of `grep_search`. @category models */
export const GrepSearchParams = Schema.Struct({
  pattern: Schema.String.annotate({
    description: "The regular expression to search for (JavaScript syntax; case-insensitive unless case_sensitive), e.g. \"log.*Error\"."
  }),
  glob: Schema.optionalKey(Schema.String.annotate({
    description: "Only search files matching this glob, e.g. \"*.js\", \"*.{ts,tsx}\", \"src/**\". Default: every file."
  })),
  path: Schema.optionalKey(PathParam(
    "The file or directory to search: absolute, or relative to the first workspace root. Default: every workspace root."
  )),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "limit must be a positive integer" })).annotate({
      description: "Most matching lines to show (1 or more). Default: up to 1000, within the output cap."
    })
  ),
  case_sensitive: Schema.optionalKey(Schema.Boolean.annotate({
    description: "Match letters only in the case written (default false: \"error\" also finds \"Error\" and \"ERROR\")."
  }))
})

/** The declaration of `grep_search`. @category declarations */
export const grepSearchDeclaration = declareTool({
  name: "grep_search",
  displayName: "Grep",
  kind: Kind.Search,
  maxOutputChars: GREP_MAX_OUTPUT_CHARS,
  description: descriptionFile(import.meta.url, "grepSearch.md"),
  params: GrepSearchParams
})
