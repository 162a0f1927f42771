/**
 * The model-facing text of a grep search, in the reference's ripgrep shape:
 *
 * ```
 * Found 3 matches for pattern "foo" in the workspace directory:
 * ---
 * src/a.ts:10:const foo = 1
 * ```
 *
 * @since 0.1.0
 */
import { MAX_MATCH_LINE_CHARS, MAX_SEARCH_FILE_BYTES, TRUNCATE_TOOL_OUTPUT_LINES, TRUNCATE_TOOL_OUTPUT_THRESHOLD } from "../constants.js"
import { cutMarker } from "./cutLine.js"
import type { GrepResult } from "./types.js"
import { skippedIgnoreLinesNote } from "../patternLimits.js"
import { escapeControlChars } from "../text.js"

/** Where a search ran, as the header names it. @category models */
export type SearchLocation =
  | { readonly _tag: "Path"; readonly path: string }
  | { readonly _tag: "Workspace"; readonly directories: number }

/** The text and metadata a tool returns. @category models */
export interface SearchOutput {
  /** What the model reads. */
  readonly llmContent: string
  /** The short line people see. */
  readonly display: string
  /** Absolute paths of the files the model was shown. */
  readonly resultFilePaths: ReadonlyArray<string>
  /** True when lines or characters were cut. */
  readonly truncated: boolean
  /** How many of the first `result.matches` are shown whole (a line cut by the char cap is not). */
  readonly fullyShown: number
}

/** Options of {@link formatGrepResult}. @category models */
export interface GrepFormatOptions {
  readonly pattern: string
  readonly location: SearchLocation
  readonly glob?: string
  readonly limit?: number
  /** Character budget of the listed lines (default `TRUNCATE_TOOL_OUTPUT_THRESHOLD`, 25,000). */
  readonly maxChars?: number
  /** Line budget (default `TRUNCATE_TOOL_OUTPUT_LINES`, 1,000). */
  readonly maxLines?: number
}

/** `in path "x"` / `across N workspace directories` / `in the workspace directory`. @category formatting */
export const describeGrepLocation = (location: SearchLocation): string =>
  location._tag === "Path"
    ? `in path "${escapeControlChars(location.path)}"`
    : location.directories > 1
    ? `across ${location.directories} workspace directories`
    : "in the workspace directory"

/** Skipped files named in a trailer at most. */
const SKIPPED_SHOWN = 5

/** The trailer naming files not searched for their size (empty when none). */
const skippedTrailer = (files: ReadonlyArray<string>): string => {
  if (files.length === 0) return ""
  const names = files.slice(0, SKIPPED_SHOWN).join(", ") + (files.length > SKIPPED_SHOWN ? `, and ${files.length - SKIPPED_SHOWN} more` : "")
  return `\n---\n[Not searched: ${files.length} ${files.length === 1 ? "file" : "files"} over ${MAX_SEARCH_FILE_BYTES / 1024 / 1024} MiB ` +
    `(${names}). To look inside one, read a part with read_file (offset/limit) or run rg or grep on it with run_shell_command.]`
}

/** Formats a grep result for the model (header, `path:line:text` lines, caps, trailer). @category formatting */
export const formatGrepResult = (result: GrepResult, options: GrepFormatOptions): SearchOutput => {
  const where = describeGrepLocation(options.location)
  const filter = options.glob ? ` (filter: "${options.glob}")` : ""
  const total = result.totalMatches
  const skipped = skippedTrailer(result.skippedLargeFiles ?? []) + skippedIgnoreLinesNote(result.skippedIgnoreLines ?? [])
  if (total === 0) {
    return {
      llmContent: `No matches found for pattern "${options.pattern}" ${where}${filter}.${skipped}`,
      display: "No matches found",
      resultFilePaths: [],
      truncated: false,
      fullyShown: 0
    }
  }
  const term = total === 1 ? "match" : "matches"
  const atLeast = result.totalIsLowerBound === true ? "at least " : ""
  const header = `Found ${atLeast}${total} ${term} for pattern "${options.pattern}" ${where}${filter}:\n---\n`
  const lineLimit = Math.min(options.maxLines ?? TRUNCATE_TOOL_OUTPUT_LINES, options.limit ?? Infinity)
  const charLimit = options.maxChars ?? TRUNCATE_TOOL_OUTPUT_THRESHOLD
  const candidates = result.matches.slice(0, lineLimit)
  const truncatedByLines = total > lineLimit
  const parts: Array<string> = []
  const shown: Array<string> = []
  let used = 0
  let included = 0
  let truncatedByChars = false
  for (const match of candidates) {
    const line = `${escapeControlChars(match.path)}:${match.line}:${cutMarker("before", match.cutBefore ?? 0)}${match.text}` +
      cutMarker("after", match.cutAfter ?? 0)
    const sep = included > 0 ? 1 : 0
    shown.push(match.absolutePath)
    if (used + line.length + sep <= charLimit) {
      parts.push(line)
      included++
      used += line.length + sep
    } else {
      parts.push(`${line.slice(0, Math.max(charLimit - used - sep, 10))}...`)
      truncatedByChars = true
      break
    }
  }
  const truncated = truncatedByLines || truncatedByChars || candidates.length < Math.min(total, lineLimit)
  let llmContent = header + parts.join("\n")
  if (result.matches.slice(0, parts.length).some((m) => m.cutBefore !== undefined)) {
    llmContent += `\n---\n[Lines over ${MAX_MATCH_LINE_CHARS} chars are shown as ${MAX_MATCH_LINE_CHARS} chars around their first match; ` +
      `to see more of one, read that line with read_file.]`
  }
  if (truncated && result.totalIsLowerBound === true) {
    llmContent += `\n---\n[Showing the first ${included}; the search stopped there, more lines match. ` +
      `To see others, narrow the pattern, path or glob.]`
  } else if (truncated) {
    const omitted = total - included
    llmContent += `\n---\n[${omitted} ${omitted === 1 ? "line" : "lines"} truncated] ...`
  }
  return {
    llmContent: llmContent.trim() + skipped,
    display: `Found ${atLeast}${total} ${term}${truncated ? " (truncated)" : ""}`,
    resultFilePaths: [...new Set(shown)],
    truncated,
    fullyShown: included
  }
}
