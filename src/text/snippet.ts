/**
 * The snippet of the edited file shown to the model after a successful edit.
 *
 * @since 0.1.0
 */
import type { ChangeView, ChangeWindow } from "./change.js"

/** Lines of context shown above and below the changed region. */
export const SNIPPET_CONTEXT_LINES = 4

/** A changed region spanning more than this many lines gets no snippet. */
export const SNIPPET_MAX_LINES = 1000

/** A window of the new content around the change (1-based inclusive line numbers). */
export interface EditSnippet {
  readonly startLine: number
  readonly endLine: number
  readonly totalLines: number
  readonly content: string
}

type Edges = Pick<ChangeWindow, "breaksBefore" | "atTop" | "atBottom">

/**
 * The snippet over a window of `\n`-separated lines: `breaksBefore` lines above it and the lines
 * below it are equal in both texts, and the new text has `totalLines` lines. `undefined` when the
 * answer depends on lines beyond the window; `null` when there is no snippet.
 */
const windowSnippet = (
  oldLines: ReadonlyArray<string>,
  newLines: ReadonlyArray<string>,
  edges: Edges,
  totalLines: number
): EditSnippet | null | undefined => {
  const common = Math.min(oldLines.length, newLines.length)
  let first = 0
  while (first < common && oldLines[first] === newLines[first]) first++
  if (!edges.atBottom && first === common) return undefined
  let oldEnd = oldLines.length - 1
  let newEnd = newLines.length - 1
  while (oldEnd >= first && newEnd >= first && oldLines[oldEnd] === newLines[newEnd]) {
    oldEnd--
    newEnd--
  }
  if (!edges.atTop && first < SNIPPET_CONTEXT_LINES) return undefined
  if (!edges.atBottom && newEnd + SNIPPET_CONTEXT_LINES >= newLines.length) return undefined
  const changeStart = first + 1
  const changeEnd = newEnd + 1
  if (changeEnd - changeStart > SNIPPET_MAX_LINES) return null
  const startLine = Math.max(1, changeStart - SNIPPET_CONTEXT_LINES)
  const endLine = Math.min(newLines.length, changeEnd + SNIPPET_CONTEXT_LINES)
  const shift = edges.breaksBefore
  return {
    startLine: startLine + shift,
    endLine: endLine + shift,
    totalLines,
    content: newLines.slice(startLine - 1, endLine).join("\n")
  }
}

/** The changed region of `newContent` with context, the whole file for a new file, or null. */
export const extractEditSnippet = (oldContent: string | null, newContent: string): EditSnippet | null => {
  const newLines = newContent.split("\n")
  const totalLines = newLines.length
  if (oldContent === null) return { startLine: 1, endLine: totalLines, totalLines, content: newContent }
  if (oldContent === newContent || newContent === "") return null
  const edges = { breaksBefore: 0, atTop: true, atBottom: true }
  return windowSnippet(oldContent.split("\n"), newLines, edges, totalLines) ?? null
}

/** Lines of a window split at `\n`, the window's final `\n` (before the lines below it) excluded. */
const windowLines = (text: string, atBottom: boolean): Array<string> =>
  (atBottom ? text : text.slice(0, -1)).split("\n")

/**
 * {@link extractEditSnippet} of an existing file's old text and the text after a change — the same
 * snippet, computed on a window of lines around the change.
 */
export const extractChangeSnippet = (view: ChangeView): EditSnippet | null => {
  if (view.isNoop || (view.change.start === 0 && view.change.end === view.oldText.length && view.change.replacement === "")) {
    return null
  }
  const totalLines = view.newBreaks() + 1
  return view.widen(SNIPPET_CONTEXT_LINES + 1, (w) =>
    windowSnippet(windowLines(w.oldText, w.atBottom), windowLines(w.newText, w.atBottom), w, totalLines))
}
