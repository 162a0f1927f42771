/**
 * The exact model-facing texts of `tool_search` outcomes other than a successful load
 * (reference §2.2 steps 1, 4, 8, 9).
 *
 * @since 0.1.0
 */

/** What a failed or empty `tool_search` call reports: model text, UI text, and the error message if any. */
export interface SearchMessage {
  readonly llmContent: string
  readonly returnDisplay: string
  /** Present only when the call is a failure. */
  readonly errorMessage?: string
}

/** The query was empty after trimming (a failure). */
export const EMPTY_QUERY: SearchMessage = {
  llmContent: "Error: query is empty. Use `select:ToolName` or free-text keywords.",
  returnDisplay: "Empty query",
  errorMessage: "Empty query"
}

/** A keyword query left no search terms after tokenising (a failure). */
export const NO_SEARCH_TERMS: SearchMessage = {
  llmContent: "Error: no search terms extracted from query. Use `select:ToolName` or include keywords.",
  returnDisplay: "No search terms",
  errorMessage: "No search terms"
}

/** A `select:` query named no tools (a failure). */
export const NO_TOOL_NAMES: SearchMessage = {
  llmContent: "Error: no tool names provided.",
  returnDisplay: "No tool names",
  errorMessage: "No tool names"
}

/** A keyword query matched no candidate; this is NOT a failure (no error message). */
export const noMatchesMessage = (query: string): SearchMessage => ({
  llmContent: `No tools found matching '${query}'. Try broader keywords or use \`select:ToolName\`.`,
  returnDisplay: `No matches for '${query}'`
})

/** Publishing the tool list to the host failed; the reveal itself is committed (a failure; no schemas are shown). The wording is the reference's. */
export const publishFailedMessage = (err: string): SearchMessage => ({
  llmContent: `Error: tools were located but could not be exposed to the API (publishing the tool list failed: ${err}). Retry the search next turn or call tool_search again with select:Name1,Name2.`,
  returnDisplay: `Publishing the tool list failed: ${err}`,
  errorMessage: `Publishing the tool list failed while revealing deferred tools: ${err}`
})
