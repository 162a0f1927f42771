/**
 * Keyword mode of `tool_search`: filter by required terms, score, rank, cap (reference §2.2 steps 4–8).
 *
 * @since 0.1.0
 */
import { compareText } from "../../tool/index.js"
import { NO_SEARCH_TERMS, noMatchesMessage, type SearchMessage } from "./messages.js"
import { type PreparedTool, prepareTerms, prepareTool, scorePreparedTerms, termVariants } from "./score.js"
import { clampMaxResults } from "./select.js"
import { parseKeywordQuery } from "./tokenize.js"
import type { SearchableTool } from "./types.js"

/** The outcome of a keyword search: ranked names, no match (not an error), or no search terms (an error). */
export type KeywordSearchResult =
  | { readonly _tag: "Matches"; readonly names: ReadonlyArray<string> }
  | { readonly _tag: "NoMatches"; readonly message: SearchMessage }
  | { readonly _tag: "NoSearchTerms"; readonly message: SearchMessage }

/** Ranks candidate tools (already deferred-and-hidden) for a keyword query; takes the best `maxResults`. */
export const keywordSearch = (
  candidates: Iterable<SearchableTool>,
  query: string,
  maxResults: number
): KeywordSearchResult => keywordSearchPrepared(Array.from(candidates, prepareTool), query, maxResults)

/** {@link keywordSearch} over tools prepared once with `prepareTool` (the hot path of a registry). */
export const keywordSearchPrepared = (
  candidates: ReadonlyArray<PreparedTool>,
  query: string,
  maxResults: number
): KeywordSearchResult => {
  const trimmed = query.trim()
  const { required, search } = parseKeywordQuery(trimmed)
  if (search.length === 0) return { _tag: "NoSearchTerms", message: NO_SEARCH_TERMS }

  const scored: Array<{ readonly name: string; readonly score: number }> = []
  const terms = prepareTerms(search)
  const requiredVariants = required.map(termVariants)
  for (const prepared of candidates) {
    if (requiredVariants.length > 0 && !requiredVariants.every((vs) => vs.some((v) => prepared.name.includes(v)))) continue
    const score = scorePreparedTerms(prepared, terms)
    if (score > 0) scored.push({ name: prepared.tool.name, score })
  }
  scored.sort((a, b) => (b.score !== a.score ? b.score - a.score : compareText(a.name, b.name)))

  const names = scored.slice(0, clampMaxResults(maxResults)).map((s) => s.name)
  return names.length === 0
    ? { _tag: "NoMatches", message: noMatchesMessage(trimmed) }
    : { _tag: "Matches", names }
}
