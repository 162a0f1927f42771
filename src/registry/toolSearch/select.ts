/**
 * `select:` mode of `tool_search` and the `max_results` clamp (reference §2.2 steps 2–3).
 *
 * @since 0.1.0
 */

/** `max_results` when the caller gives none. */
export const DEFAULT_MAX_RESULTS = 5
/** The largest `max_results` honoured. */
export const HARD_MAX_RESULTS = 20

const SELECT_PREFIX = "select:"

/** Clamps `max_results`: undefined → 5, non-finite → 1, otherwise floored into 1..20. */
export const clampMaxResults = (maxResults: number | undefined): number => {
  const n = maxResults ?? DEFAULT_MAX_RESULTS
  if (!Number.isFinite(n)) return 1
  return Math.min(HARD_MAX_RESULTS, Math.max(1, Math.floor(n)))
}

/** True when the (trimmed) query is a `select:` query; the prefix is matched case-insensitively. */
export const isSelectQuery = (query: string): boolean => query.toLowerCase().startsWith(SELECT_PREFIX)

/** Strips one layer of matching `"…"` or `'…'`; mismatched or lone quotes are left alone. */
export const stripMatchingQuotes = (s: string): string => {
  if (s.length < 2) return s
  const first = s[0]
  const last = s[s.length - 1]
  return (first === "\"" || first === "'") && first === last ? s.slice(1, -1) : s
}

/** The names of a `select:` query: the first `maxResults` to load, the rest reported as truncated. */
export interface SelectedNames {
  readonly names: ReadonlyArray<string>
  readonly truncated: ReadonlyArray<string>
}

/** Parses `select:A,B,…` (prefix optional): trim, unquote, skip empties, dedupe case-insensitively, cap. */
export const parseSelect = (query: string, maxResults: number): SelectedNames => {
  const limit = clampMaxResults(maxResults)
  const list = isSelectQuery(query) ? query.slice(SELECT_PREFIX.length) : query
  const seen = new Set<string>()
  const names: Array<string> = []
  const truncated: Array<string> = []
  for (const piece of list.split(",")) {
    const name = stripMatchingQuotes(piece.trim())
    if (name.length === 0) continue
    const key = name.toLowerCase()
    if (seen.has(key)) continue
    seen.add(key)
    if (names.length < limit) names.push(name)
    else truncated.push(name)
  }
  return { names, truncated }
}
