/**
 * An index for keyword-mode `tool_search` over one tool set, built once per tool set: a query
 * costs about the number of tools its terms touch, not the number of tools.
 *
 * It ranks exactly as {@link keywordSearchPrepared} does (same scores, same order, same messages).
 * Every lower-cased name and description is split into runs of letters and digits ("segments");
 * a term made only of letters and digits can only occur inside one segment, so the tools whose
 * name (or description) contains it are the postings of the distinct segments that contain it,
 * found by one scan over the (small) list of distinct segments. A term with any other character
 * falls back to a scan of every name (or description). Hint words are looked up by equality.
 *
 * @since 0.1.0
 */
import type { KeywordSearchResult } from "./keyword.js"
import { NO_SEARCH_TERMS, noMatchesMessage } from "./messages.js"
import {
  prepareTerms,
  SCORE_ACTION_ALIAS_BUILTIN,
  SCORE_DESC_BUILTIN,
  SCORE_HINT_BUILTIN,
  SCORE_NAME_EXACT_BUILTIN,
  SCORE_NAME_EXACT_MCP,
  SCORE_NAME_SUBSTR_BUILTIN,
  SCORE_NAME_SUBSTR_MCP,
  termVariants
} from "./score.js"
import { clampMaxResults } from "./select.js"
import { parseKeywordQuery } from "./tokenize.js"
import { hasSeparator, makeVocabulary, postingsBuilder, segmentTable } from "./segments.js"
import { isMcpTool, type SearchableTool } from "./types.js"

/** A keyword index over one tool set; see {@link buildSearchIndex}. @category models */
export interface SearchIndex<T extends SearchableTool = SearchableTool> {
  /** The indexed tools, in the order ties are ranked in. */
  readonly tools: ReadonlyArray<T>
  /**
   * Ranks the tools for a keyword query and takes the best `maxResults`; `isCandidate` (default:
   * every tool) leaves tools out, exactly as if they were not indexed.
   */
  readonly search: (query: string, maxResults: number, isCandidate?: (tool: T) => boolean) => KeywordSearchResult
}

const WHITESPACE = /\s+/g

const FLAG_HINT = 1
const FLAG_DESC = 2
const FLAG_ALIAS = 4

/**
 * Builds the index of `tools`. Ties rank by position, so give the tools in name order
 * (`sortTools`, as the registry keeps them): {@link SearchIndex.search} then returns what
 * {@link keywordSearchPrepared} returns for the same candidates in the same order.
 *
 * @category constructors
 */
export const buildSearchIndex = <T extends SearchableTool>(tools: ReadonlyArray<T>): SearchIndex<T> => {
  const n = tools.length
  const names: Array<string> = new Array(n)
  const descriptions: Array<string> = new Array(n)
  const mcp = new Uint8Array(n)
  // The segment a name ends with when the name equals it or ends with `_` / `.` + it, else -1.
  const exactSegment = new Int32Array(n).fill(-1)
  const table = segmentTable()
  const nameBuilder = postingsBuilder()
  const descriptionBuilder = postingsBuilder()
  const hintLists = new Map<string, Array<number>>()
  for (let i = 0; i < n; i++) {
    const tool = tools[i]!
    const name = tool.name.toLowerCase()
    const description = tool.description.toLowerCase()
    names[i] = name
    descriptions[i] = description
    mcp[i] = isMcpTool(tool) ? 1 : 0
    const nameCount = table.split(name)
    for (let k = 0; k < nameCount; k++) nameBuilder.add(table.ids()[k]!, i)
    if (nameCount > 0 && table.endsWithSegment()) {
      const last = table.ids()[nameCount - 1]!
      const at = name.length - table.segments[last]!.length
      if (at === 0 || isSuffixSeparator(name.charCodeAt(at - 1))) exactSegment[i] = last
    }
    const descriptionCount = table.split(description)
    for (let k = 0; k < descriptionCount; k++) descriptionBuilder.add(table.ids()[k]!, i)
    const hint = tool.searchHint
    if (hint === undefined || hint === "") continue
    for (const word of hint.toLowerCase().split(WHITESPACE)) {
      if (word === "") continue
      let list = hintLists.get(word)
      if (list === undefined) hintLists.set(word, list = [])
      if (list[list.length - 1] !== i) list.push(i)
    }
  }
  const vocabulary = makeVocabulary(table.segments)
  const inNames = nameBuilder.pack(vocabulary.size)
  const inDescriptions = descriptionBuilder.pack(vocabulary.size)
  const hints = new Map(Array.from(hintLists, ([word, list]) => [word, Int32Array.from(list)] as const))

  // Scratch space of one query, cleared before `search` returns.
  const scores = new Float64Array(n)
  const termBest = new Uint8Array(n)
  const termFlags = new Uint8Array(n)
  // Tools with a score, and tools touched by the current term: each listed once.
  const touched = new Int32Array(n)
  let touchedCount = 0
  const termTouched = new Int32Array(n)
  let termTouchedCount = 0

  const flag = (i: number, bits: number): void => {
    if (termBest[i] === 0 && termFlags[i] === 0) termTouched[termTouchedCount++] = i
    termFlags[i]! |= bits
  }
  const nameHit = (i: number, exact: boolean, bits: number): void => {
    const score = exact
      ? (mcp[i] === 1 ? SCORE_NAME_EXACT_MCP : SCORE_NAME_EXACT_BUILTIN)
      : (mcp[i] === 1 ? SCORE_NAME_SUBSTR_MCP : SCORE_NAME_SUBSTR_BUILTIN)
    if (termBest[i] === 0 && termFlags[i] === 0) termTouched[termTouchedCount++] = i
    if (score > termBest[i]!) termBest[i] = score
    termFlags[i]! |= bits
  }
  /** `name === variant`, or it ends with `_variant` / `.variant` (for a variant with separators). */
  const isExactName = (name: string, variant: string): boolean =>
    name.length === variant.length ||
    (name.endsWith(variant) && isSuffixSeparator(name.charCodeAt(name.length - variant.length - 1)))

  const scoreTerm = (term: string, variants: ReadonlyArray<string>, isAlias: boolean): void => {
    for (const variant of variants) {
      const alias = isAlias && variant !== term ? FLAG_ALIAS : 0
      if (hasSeparator(variant)) {
        for (let i = 0; i < n; i++) {
          if (names[i]!.includes(variant)) nameHit(i, isExactName(names[i]!, variant), alias)
          if (descriptions[i]!.includes(variant)) flag(i, FLAG_DESC)
        }
      } else {
        for (const segment of vocabulary.containing(variant)) {
          // Only a variant that is the whole segment can be the name's exact suffix.
          const whole = vocabulary.lengthOf(segment) === variant.length
          for (let j = inNames.offsets[segment]!, end = inNames.offsets[segment + 1]!; j < end; j++) {
            const i = inNames.tools[j]!
            nameHit(i, whole && exactSegment[i] === segment, alias)
          }
          for (let j = inDescriptions.offsets[segment]!, end = inDescriptions.offsets[segment + 1]!; j < end; j++) {
            flag(inDescriptions.tools[j]!, FLAG_DESC)
          }
        }
      }
      const hinted = hints.get(variant)
      if (hinted !== undefined) for (let j = 0; j < hinted.length; j++) flag(hinted[j]!, FLAG_HINT | alias)
    }
    for (let k = 0; k < termTouchedCount; k++) {
      const i = termTouched[k]!
      const flags = termFlags[i]!
      const add = termBest[i]! + (flags & FLAG_HINT ? SCORE_HINT_BUILTIN : 0) + (flags & FLAG_DESC ? SCORE_DESC_BUILTIN : 0) +
        (flags & FLAG_ALIAS ? SCORE_ACTION_ALIAS_BUILTIN : 0)
      if (scores[i] === 0) touched[touchedCount++] = i
      scores[i]! += add
      termBest[i] = 0
      termFlags[i] = 0
    }
    termTouchedCount = 0
  }

  /** For each tool, how many of the (distinct) required terms its name meets; undefined when there are none. */
  const requiredCounts = (required: ReadonlyArray<string>): Int32Array | undefined => {
    if (required.length === 0) return undefined
    const counts = new Int32Array(n)
    const lastTerm = new Int32Array(n)
    const meet = (i: number, termNo: number): void => {
      if (lastTerm[i] === termNo) return
      lastTerm[i] = termNo
      counts[i]!++
    }
    for (let t = 0; t < required.length; t++) {
      for (const variant of termVariants(required[t]!)) {
        if (hasSeparator(variant)) {
          for (let i = 0; i < n; i++) if (names[i]!.includes(variant)) meet(i, t + 1)
          continue
        }
        for (const segment of vocabulary.containing(variant)) {
          for (let j = inNames.offsets[segment]!, end = inNames.offsets[segment + 1]!; j < end; j++) meet(inNames.tools[j]!, t + 1)
        }
      }
    }
    return counts
  }

  const search = (query: string, maxResults: number, isCandidate?: (tool: T) => boolean): KeywordSearchResult => {
    const trimmed = query.trim()
    const { required, search: terms } = parseKeywordQuery(trimmed)
    if (terms.length === 0) return { _tag: "NoSearchTerms", message: NO_SEARCH_TERMS }
    const distinctRequired = Array.from(new Set(required))
    const limit = clampMaxResults(maxResults)
    const top: Array<number> = []
    const topScores: Array<number> = []
    try {
      for (const { term, variants, isAlias } of prepareTerms(terms)) scoreTerm(term, variants, isAlias)
      const counts = requiredCounts(distinctRequired)
      const consider = (i: number): void => {
        const score = scores[i]!
        if (counts !== undefined && counts[i] !== distinctRequired.length) return
        // Rank: score descending, then position; tools come in ascending position, so a tie never
        // displaces a ranked tool and `isCandidate` is asked only about tools that would rank.
        if (top.length === limit && score <= topScores[limit - 1]!) return
        if (isCandidate !== undefined && !isCandidate(tools[i]!)) return
        let at = top.length
        while (at > 0 && topScores[at - 1]! < score) at--
        top.splice(at, 0, i)
        topScores.splice(at, 0, score)
        if (top.length > limit) {
          top.pop()
          topScores.pop()
        }
      }
      if (touchedCount > n >>> 4) {
        for (let i = 0; i < n; i++) if (scores[i]! > 0) consider(i)
      } else {
        const order = touched.subarray(0, touchedCount).sort()
        for (let k = 0; k < order.length; k++) consider(order[k]!)
      }
    } finally {
      for (let k = 0; k < touchedCount; k++) scores[touched[k]!] = 0
      for (let k = 0; k < termTouchedCount; k++) {
        termBest[termTouched[k]!] = 0
        termFlags[termTouched[k]!] = 0
      }
      touchedCount = 0
      termTouchedCount = 0
    }
    return top.length === 0
      ? { _tag: "NoMatches", message: noMatchesMessage(trimmed) }
      : { _tag: "Matches", names: top.map((i) => tools[i]!.name) }
  }

  return { tools, search }
}

/** `_` or `.`: a name ending in `_term` or `.term` matches the term exactly. */
const isSuffixSeparator = (code: number): boolean => code === 95 || code === 46
