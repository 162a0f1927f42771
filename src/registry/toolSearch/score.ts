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


/** A tool with its lower-cased search fields computed once (a query then costs no allocation per tool). */
export interface PreparedTool {
  readonly tool: SearchableTool
  readonly name: string
  readonly description: string
  readonly hintWords: ReadonlyArray<string>
  readonly mcp: boolean
}

/** Lower-cases a tool's search fields once. */
export const prepareTool = (tool: SearchableTool): PreparedTool => ({
  tool,
  name: tool.name.toLowerCase(),
  description: tool.description.toLowerCase(),
  hintWords: (tool.searchHint ?? "").toLowerCase().split(/\s+/g).filter((w) => w.length > 0),
  mcp: isMcpTool(tool)
})

/** A search term with its variants and suffix forms computed once per query. */
export interface PreparedTerm {
  readonly term: string
  readonly variants: ReadonlyArray<string>
  readonly suffixes: ReadonlyArray<readonly [variant: string, underscored: string, dotted: string]>
  readonly isAlias: boolean
}

/** Prepares the terms of one query. */
export const prepareTerms = (terms: ReadonlyArray<string>): ReadonlyArray<PreparedTerm> =>
  terms.filter((term) => term.length > 0).map((term) => {
    const variants = termVariants(term)
    return { term, variants, suffixes: variants.map((v) => [v, `_${v}`, `.${v}`] as const), isAlias: ACTION_TERM_ALIASES.has(term) }
  })

/** Scores a prepared tool against prepared terms (name, hint word, description, action-alias bonus). */
export const scorePreparedTerms = (p: PreparedTool, terms: ReadonlyArray<PreparedTerm>): number => {
  let total = 0
  for (const { term, variants, suffixes, isAlias } of terms) {
    let best = 0
    for (const [v, underscored, dotted] of suffixes) {
      if (p.name === v || p.name.endsWith(underscored) || p.name.endsWith(dotted)) {
        best = Math.max(best, p.mcp ? SCORE_NAME_EXACT_MCP : SCORE_NAME_EXACT_BUILTIN)
      } else if (p.name.includes(v)) best = Math.max(best, p.mcp ? SCORE_NAME_SUBSTR_MCP : SCORE_NAME_SUBSTR_BUILTIN)
    }
    total += best
    if (p.hintWords.length > 0 && p.hintWords.some((w) => variants.includes(w))) total += SCORE_HINT_BUILTIN
    if (variants.some((v) => p.description.includes(v))) total += SCORE_DESC_BUILTIN
    if (isAlias && variants.some((v) => v !== term && (p.name.includes(v) || p.hintWords.includes(v)))) {
      total += SCORE_ACTION_ALIAS_BUILTIN
    }
  }
  return total
}

/** Scores a prepared tool against search terms (name, hint word, description, action-alias bonus). */
export const scorePrepared = (p: PreparedTool, terms: ReadonlyArray<string>): number =>
  scorePreparedTerms(p, prepareTerms(terms))

/** Scores a tool against search terms (name, hint word, description, action-alias bonus); 0 = no signal. */
export const scoreTool = (tool: SearchableTool, terms: ReadonlyArray<string>): number => scorePrepared(prepareTool(tool), terms)
