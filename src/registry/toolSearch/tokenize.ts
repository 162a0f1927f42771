/**
 * Query tokenisation for keyword-mode `tool_search` (reference §2.2 step 4).
 *
 * @since 0.1.0
 */

/** Words dropped from keyword queries (reference §2.1, verbatim). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a", "an", "and", "are", "at", "be", "can", "could", "did", "do", "does", "for", "from", "how",
  "i", "in", "is", "it", "me", "my", "of", "on", "or", "please", "should", "that", "the", "these",
  "this", "those", "to", "was", "were", "what", "which", "with", "would", "you"
])

const EDGE_JUNK = /^[^\p{L}\p{N}_.+#-]+|[^\p{L}\p{N}_.+#-]+$/gu

const normalizeToken = (raw: string): string | undefined => {
  const trimmed = raw.trim()
  if (trimmed.length === 0) return undefined
  const required = trimmed.startsWith("+")
  const body = (required ? trimmed.slice(1) : trimmed).replace(EDGE_JUNK, "")
  if (body.length < 2 || STOP_WORDS.has(body)) return undefined
  return required ? `+${body}` : body
}

/** Lower-cases and splits a keyword query into terms; required terms keep their leading `+`. */
export const tokenize = (query: string): Array<string> => {
  const out: Array<string> = []
  for (const raw of query.toLowerCase().split(/\s+/g)) {
    const token = normalizeToken(raw)
    if (token !== undefined) out.push(token)
  }
  return out
}

/** The terms of a keyword query: `required` (from `+word`, without the `+`) and all `search` terms. */
export interface KeywordTerms {
  readonly required: ReadonlyArray<string>
  readonly search: ReadonlyArray<string>
}

/** Tokenises a query and splits it into required terms and search terms (reference §2.2 step 4). */
export const parseKeywordQuery = (query: string): KeywordTerms => {
  const tokens = tokenize(query)
  const stripPlus = (t: string): string => (t.startsWith("+") ? t.slice(1) : t)
  return {
    required: tokens.filter((t) => t.startsWith("+")).map(stripPlus).filter((t) => t.length > 0),
    search: tokens.map(stripPlus).filter((t) => t.length > 0)
  }
}
