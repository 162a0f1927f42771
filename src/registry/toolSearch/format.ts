/**
 * The success text of `tool_search` once schemas are loaded (reference §2.2 step 10).
 *
 * @since 0.1.0
 */
import type { SearchMessage } from "./messages.js"

/** What a load produced: the schemas to show and the names that could not be shown. */
export interface SearchResultParts {
  /** The schemas of the loaded tools, each serialised with `JSON.stringify`. */
  readonly schemas: ReadonlyArray<object>
  /** Requested names that are unknown (caller's casing). */
  readonly notFound: ReadonlyArray<string>
  /** Names cut by `max_results`. */
  readonly truncated: ReadonlyArray<string>
  /** Ready-made messages for tools that exist but may not be loaded here (optional). */
  readonly unavailable?: ReadonlyArray<string> | undefined
}

/** Serialises a schema for the `<functions>` block, writing every `<` as the 6-char escape `\u003c`. */
export const escapeSchemaJson = (schema: object): string => JSON.stringify(schema).replace(/</g, "\\u003c")

/** Builds the `<functions>` block, the Not found / Unavailable / Truncated sections and the display summary. */
export const formatSearchResult = (parts: SearchResultParts): SearchMessage => {
  const unavailable = parts.unavailable ?? []
  const sections: Array<string> = []
  if (parts.schemas.length > 0) {
    const blocks = parts.schemas.map((s) => `<function>${escapeSchemaJson(s)}</function>`)
    sections.push(`<functions>\n${blocks.join("\n")}\n</functions>`)
  }
  if (parts.notFound.length > 0) sections.push(`Not found: ${parts.notFound.join(", ")}`)
  const unavailableText = unavailable.join("\n")
  if (unavailable.length > 0) sections.push(`Unavailable: ${unavailableText}`)
  if (parts.truncated.length > 0) {
    sections.push(`Truncated by max_results — request these in a follow-up call: ${parts.truncated.join(", ")}`)
  }

  const display: Array<string> = []
  if (parts.schemas.length > 0) display.push(`Loaded ${parts.schemas.length} tool(s)`)
  if (parts.notFound.length > 0) display.push(`${parts.notFound.length} missing`)
  if (unavailable.length > 0) display.push(`${unavailable.length} unavailable`)
  if (parts.truncated.length > 0) display.push(`${parts.truncated.length} truncated`)

  const result = { llmContent: sections.join("\n\n"), returnDisplay: display.join(", ") || "No tools loaded" }
  return unavailable.length > 0 && parts.schemas.length === 0 ? { ...result, errorMessage: unavailableText } : result
}
