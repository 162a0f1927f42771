/**
 * The size check every search param that becomes a regex goes through: a pattern longer than
 * `MAX_SEARCH_PATTERN_CHARS` is refused before anything is compiled, and refusals quote only
 * the start of it (the model already has the rest).
 *
 * @since 0.1.0
 */
import { MAX_SEARCH_PATTERN_CHARS } from "./constants.js"

const QUOTED_CHARS = 80

/** The start of a pattern for a message: at most 80 characters, then how long it really is. @category formatting */
export const quotePattern = (pattern: string): string =>
  pattern.length <= QUOTED_CHARS
    ? pattern
    : `${pattern.slice(0, QUOTED_CHARS)}… (${pattern.length} characters)`

/** The model-facing refusal of a param longer than `MAX_SEARCH_PATTERN_CHARS`, or undefined. @category validation */
export const patternTooLong = (param: string, pattern: string): string | undefined =>
  pattern.length <= MAX_SEARCH_PATTERN_CHARS
    ? undefined
    : `The '${param}' parameter is ${pattern.length} characters long; at most ${MAX_SEARCH_PATTERN_CHARS} are allowed ` +
      `(the regular expression built from it would be too large to run). Use a shorter pattern: search for a ` +
      `distinctive part of the text, or split the search into several calls.`

/** The model-facing refusal of a pattern the regex engine cannot compile (too large once translated). @category validation */
export const patternUncompilable = (param: string, pattern: string): string =>
  `The '${param}' parameter '${quotePattern(pattern)}' could not be compiled: the regular expression built from it is ` +
  `too large for the regex engine. Use a shorter or simpler pattern.`

/** An ignore-file line skipped because it cannot compile. @category models */
export interface SkippedIgnoreLineAt {
  /** Absolute path of the ignore file. */
  readonly file: string
  /** 1-based line number. */
  readonly line: number
}

const NOTED_LINES = 5

/** Deduplicated by file and line, in file then line order. @category formatting */
export const uniqueSkippedLines = (lines: ReadonlyArray<SkippedIgnoreLineAt>): ReadonlyArray<SkippedIgnoreLineAt> => {
  const seen = new Map<string, SkippedIgnoreLineAt>()
  for (const at of lines) seen.set(`${at.file}:${at.line}`, at)
  return [...seen.values()].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line))
}

/**
 * The note telling the model which ignore-file lines were not applied (empty when none): what it
 * sees may include files those lines meant to hide. @category formatting
 */
export const skippedIgnoreLinesNote = (lines: ReadonlyArray<SkippedIgnoreLineAt>): string => {
  const unique = uniqueSkippedLines(lines)
  if (unique.length === 0) return ""
  const named = unique.slice(0, NOTED_LINES).map((at) => `${at.file}:${at.line}`).join(", ") +
    (unique.length > NOTED_LINES ? `, and ${unique.length - NOTED_LINES} more` : "")
  return `\n---\n[Not applied: ${unique.length} ignore-file ${unique.length === 1 ? "line" : "lines"} too large to compile ` +
    `(${named}); files they would hide may be listed. Shorten or split those lines to apply them.]`
}

const MESSAGE_CHARS = 300

/**
 * An engine's error message cut to 300 characters: fast-glob's "Invalid regular expression"
 * quotes the whole regex built from the pattern (350,000 characters for a 10,000-character one).
 * @category formatting
 */
export const shortErrorMessage = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  return message.length <= MESSAGE_CHARS ? message : `${message.slice(0, MESSAGE_CHARS)}… (${message.length} characters)`
}
