/**
 * Relevance scoring of one tool against keyword terms (reference §2.1 constants, §2.3 rules).
 *
 * @since 0.1.0
 */
import { isMcpTool, type SearchableTool } from "./types.js"

/** Score for a built-in tool whose name equals a term (or ends with `_term` / `.term`). */
export const SCORE_NAME_EXACT_BUILTIN = 10
/** Score for a built-in tool whose name contains a term. */
export const SCORE_NAME_SUBSTR_BUILTIN = 5
/** Score for a term equal to one word of the tool's search hint. */
export const SCORE_HINT_BUILTIN = 4
/** Score for a term contained in the tool's description. */
export const SCORE_DESC_BUILTIN = 2
/** Score for an MCP tool whose name equals a term (or ends with `_term` / `.term`). */
export const SCORE_NAME_EXACT_MCP = 12
/** Score for an MCP tool whose name contains a term. */
export const SCORE_NAME_SUBSTR_MCP = 6
/** Bonus when an action term matched the tool through one of its aliases. */
export const SCORE_ACTION_ALIAS_BUILTIN = 6

/** Action terms and the variants each one is matched through (reference §2.1, verbatim order). */
export const ACTION_TERM_ALIASES: ReadonlyMap<string, ReadonlyArray<string>> = new Map([
  ["cancel", ["cancel", "delete", "remove", "stop", "clear"]],
  ["clear", ["clear", "delete", "remove", "cancel", "stop"]],
  ["delete", ["delete", "remove", "cancel", "stop", "clear"]],
  ["remove", ["remove", "delete", "cancel", "stop", "clear"]],
  ["stop", ["stop", "cancel", "delete", "remove", "clear"]]
])

/** The variants a term is matched through: its alias list, or just the term itself. */
export const termVariants = (term: string): ReadonlyArray<string> => ACTION_TERM_ALIASES.get(term) ?? [term]

/** True when every required term (or one of its alias variants) is a substring of the lower-cased name. */
export const matchesRequiredTerms = (name: string, required: ReadonlyArray<string>): boolean => {
  const lower = name.toLowerCase()
  return required.every((term) => termVariants(term).some((v) => lower.includes(v)))
}

const nameScore = (name: string, variant: string, mcp: boolean): number => {
  if (name === variant || name.endsWith(`_${variant}`) || name.endsWith(`.${variant}`)) {
    return mcp ? SCORE_NAME_EXACT_MCP : SCORE_NAME_EXACT_BUILTIN
  }
  if (name.includes(variant)) return mcp ? SCORE_NAME_SUBSTR_MCP : SCORE_NAME_SUBSTR_BUILTIN
  return 0
}

/** Scores a tool against search terms (name, hint word, description, action-alias bonus); 0 = no signal. */
export const scoreTool = (tool: SearchableTool, terms: ReadonlyArray<string>): number => {
  const mcp = isMcpTool(tool)
  const name = tool.name.toLowerCase()
  const description = tool.description.toLowerCase()
  const hintWords = (tool.searchHint ?? "").toLowerCase().split(/\s+/g).filter((w) => w.length > 0)

  let total = 0
  for (const term of terms) {
    if (term.length === 0) continue
    const variants = termVariants(term)
    total += Math.max(0, ...variants.map((v) => nameScore(name, v, mcp)))
    if (hintWords.some((w) => variants.includes(w))) total += SCORE_HINT_BUILTIN
    if (variants.some((v) => description.includes(v))) total += SCORE_DESC_BUILTIN
    const aliasHit = ACTION_TERM_ALIASES.has(term) &&
      variants.some((v) => v !== term && (name.includes(v) || hintWords.includes(v)))
    if (aliasHit) total += SCORE_ACTION_ALIAS_BUILTIN
  }
  return total
}
