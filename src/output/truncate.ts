/**
 * Per-call truncation of tool output (reference §10.2), split into pure steps so that the
 * saving of the full text can happen in between:
 *
 * 1. {@link truncateToolOutput} decides whether to cut and builds the head/tail preview;
 * 2. the caller saves `fullText` (see `OutputStore.persist`);
 * 3. {@link wrapTruncatedOutput} builds the model-facing message naming the saved file, or
 *    appends the "could not save" note.
 *
 * @since 0.1.0
 */
import {
  COULD_NOT_SAVE_NOTE,
  LINE_ELLIPSIS,
  PERSISTED_OUTPUT_OPEN_TAG,
  READ_FILE_TOOL_NAME,
  TOOL_OUTPUT_TRUNCATED_PREFIX,
  TRUNCATION_MARKER,
  TRUNCATION_SEPARATOR
} from "./constants.js"
import { takeEnd, takeStart } from "./unicode.js"

/** Which end of the output survives truncation. @category models */
export type TruncateKeep = "head" | "tail" | "both"

/** Limits of one truncation; ≤0, NaN or `Infinity` mean unlimited. @category models */
export interface TruncateOptions {
  /** Character threshold (the reference's `threshold`). */
  readonly chars: number
  /** Line limit. */
  readonly lines: number
  /** Which end to keep; default `"both"` (1/5 head, 4/5 tail). */
  readonly keep?: TruncateKeep | undefined
  /** Character budget of the preview; default `chars`. */
  readonly previewChars?: number | undefined
  /**
   * Length of the path the full text will be saved under, used to decide whether the wrapped
   * message is shorter than the original. `OutputStore.pathLength(toolName)` gives it exactly;
   * default {@link DEFAULT_PATH_CHARS}.
   */
  readonly pathChars?: number | undefined
}

/** Result of {@link truncateToolOutput}: `fullText` is present exactly when `truncated` is. @category models */
export type TruncateResult =
  | { readonly content: string; readonly truncated: false }
  | { readonly content: string; readonly truncated: true; readonly fullText: string }

/** Where the full text went: a saved file path, or a note saying why it was not saved. @category models */
export type SavedOutput = { readonly path: string } | { readonly note: string }

/** Conservative saved-path length assumed when {@link TruncateOptions.pathChars} is absent. @category constants */
export const DEFAULT_PATH_CHARS = 256

/** `n` as a limit: ≤0, NaN and `Infinity` become `Infinity`, others are floored. @category limits */
export const limitOrUnlimited = (n: number): number => (n > 0 && Number.isFinite(n) ? Math.floor(n) : Infinity)

/**
 * True when the text is already the product of a truncation or persistence step (§10.3): it
 * contains the truncation marker or starts with `<persisted-output>`.
 *
 * @category predicates
 */
export const isAlreadyTruncated = (text: string): boolean =>
  text.includes(TRUNCATION_MARKER) || text.startsWith(PERSISTED_OUTPUT_OPEN_TAG)

/** The replacement for an empty or whitespace-only output: `(${toolName} completed with no output)`. @category constructors */
export const noOutputMessage = (toolName: string): string => `(${toolName} completed with no output)`

/** True when the output is empty or only whitespace. @category predicates */
export const isEmptyOutput = (text: string): boolean => text.trim() === ""

/**
 * The model-facing message around a truncated preview (§10.2 step 6), or, when the full text
 * could not be saved, the preview followed by the note (§10.2 step 8).
 *
 * @category constructors
 */
export const wrapTruncatedOutput = (truncated: string, saved: SavedOutput): string =>
  "path" in saved
    ? `${TOOL_OUTPUT_TRUNCATED_PREFIX}.
The full output has been saved to: ${saved.path}
To read the complete output, use the ${READ_FILE_TOOL_NAME} tool with the absolute file path above.
The truncated output below shows the beginning and end of the content. The marker '${TRUNCATION_MARKER}' indicates where content was removed.

Truncated part of the output:
${truncated}`
    : `${truncated}\n${saved.note}`

/** {@link wrapTruncatedOutput} with the reference's "could not save" note. @category constructors */
export const wrapUnsavedOutput = (truncated: string): string => wrapTruncatedOutput(truncated, { note: COULD_NOT_SAVE_NOTE })

const unchanged = (content: string): TruncateResult => ({ content, truncated: false })

/** Line `i` of a text (`lines[i]` of its split; a windowed text knows only some of them). */
type LineAt = (i: number) => string

/** Head lines within `budget` chars (each line costs length + 1); the first overflowing line is cut. */
const takeHeadLines = (lineAt: LineAt, length: number, count: number, budget: number) => {
  const kept: Array<string> = []
  let used = 0
  for (let i = 0; i < Math.min(count, length); i++) {
    const line = lineAt(i)
    const remaining = budget - used
    if (remaining <= 0) break
    if (line.length + 1 > remaining) {
      kept.push(takeStart(line, Math.max(remaining - LINE_ELLIPSIS.length, 0)) + LINE_ELLIPSIS)
      used = budget
      break
    }
    kept.push(line)
    used += line.length + 1
  }
  return { kept, used }
}

/** Tail lines from the end, not below `floor`, within `budget`; the overflowing line keeps its end. */
const takeTailLines = (lineAt: LineAt, length: number, count: number, floor: number, budget: number) => {
  const kept: Array<string> = []
  let used = 0
  const start = Math.max(length - count, floor)
  for (let i = length - 1; i >= start; i--) {
    const line = lineAt(i)
    const remaining = budget - used
    if (remaining <= 0) break
    if (line.length + 1 > remaining) {
      kept.unshift(LINE_ELLIPSIS + takeEnd(line, Math.max(remaining - LINE_ELLIPSIS.length, 0)))
      break
    }
    kept.unshift(line)
    used += line.length + 1
  }
  return kept
}

/** The head/tail preview of §10.2 steps 3–5 (no size checks). */
const buildPreview = (lines: ReadonlyArray<string>, lineLimit: number, keep: TruncateKeep, preview: number): string =>
  previewOf((i) => lines[i]!, (i) => lines[i]!, lines.length, lineLimit, keep, preview)

/** {@link buildPreview} over `length` lines that the head and the tail each read through their own accessor. */
const previewOf = (
  headLine: LineAt,
  tailLine: LineAt,
  length: number,
  lineLimit: number,
  keep: TruncateKeep,
  preview: number
): string => {
  const effective = Math.min(lineLimit, length)
  const headCount = keep === "head" ? effective : keep === "tail" ? 0 : Math.max(Math.floor(effective / 5), 1)
  const tailCount = effective - headCount
  const headBudget = keep === "head" ? preview : keep === "tail" ? 0 : Math.floor(preview / 5)
  const head = takeHeadLines(headLine, length, headCount, headBudget)
  const tailBudget = keep === "head" ? 0 : Math.max(preview - head.used - TRUNCATION_SEPARATOR.length, 0)
  const tail = takeTailLines(tailLine, length, tailCount, head.kept.length, tailBudget)
  if (keep === "head") return head.kept.join("\n") + TRUNCATION_SEPARATOR
  if (keep === "tail") return TRUNCATION_SEPARATOR + tail.join("\n")
  return head.kept.join("\n") + TRUNCATION_SEPARATOR + tail.join("\n")
}

/**
 * The §10.2 truncation decision and preview. Returns the content unchanged when it is within
 * both limits, already truncated ({@link isAlreadyTruncated}), or when the wrapped message would
 * not be shorter than the original; otherwise the head/tail preview plus the full text to save.
 *
 * @category truncation
 */
export const truncateToolOutput = (content: string, options: TruncateOptions): TruncateResult => {
  if (isAlreadyTruncated(content)) return unchanged(content)
  const chars = limitOrUnlimited(options.chars)
  const lineLimit = limitOrUnlimited(options.lines)
  if (content.length <= chars && lineLimit === Infinity) return unchanged(content)
  const lines = content.split("\n")
  if (content.length <= chars && lines.length <= lineLimit) return unchanged(content)
  const preview = options.previewChars === undefined ? chars : limitOrUnlimited(options.previewChars)
  const truncated = buildPreview(lines, lineLimit, options.keep ?? "both", preview)
  const pathChars = Math.max(0, options.pathChars ?? DEFAULT_PATH_CHARS)
  const wrapped = wrapTruncatedOutput(truncated, { path: "x".repeat(pathChars) })
  if (wrapped.length >= content.length) return unchanged(content)
  return { content: truncated, truncated: true, fullText: content }
}

/**
 * `truncateLlmContent` for a text result: empty output becomes {@link noOutputMessage}, text that
 * starts with the truncation prefix passes through, anything else goes to
 * {@link truncateToolOutput}.
 *
 * @category truncation
 */
export const truncateLlmText = (toolName: string, content: string, options: TruncateOptions): TruncateResult => {
  if (isEmptyOutput(content)) return unchanged(noOutputMessage(toolName))
  if (content.startsWith(TOOL_OUTPUT_TRUNCATED_PREFIX)) return unchanged(content)
  return truncateToolOutput(content, options)
}

/**
 * The text of a streamed output as far as memory keeps it: its first and last characters and how
 * many lines the whole has (`\n` count + 1, as `split("\n")` counts them).
 *
 * @category models
 */
export interface TextWindows {
  readonly head: string
  readonly tail: string
  readonly lines: number
}

/**
 * The §10.2 head/tail preview of a text known only by its windows. It equals the preview of the
 * whole text when each window holds more characters than `preview`: the head and tail budgets
 * are spent before either side reads past its window.
 *
 * @category truncation
 */
export const windowedPreview = (
  windows: TextWindows,
  options: { readonly lines: number; readonly keep?: TruncateKeep | undefined; readonly preview: number }
): string => {
  const headLines = windows.head.split("\n")
  const tailLines = windows.tail.split("\n")
  const tailStart = windows.lines - tailLines.length
  return previewOf(
    (i) => headLines[i] ?? "",
    (i) => tailLines[i - tailStart] ?? "",
    windows.lines,
    limitOrUnlimited(options.lines),
    options.keep ?? "both",
    options.preview
  )
}
