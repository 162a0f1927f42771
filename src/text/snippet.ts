/**
 * The snippet of the edited file shown to the model after a successful edit.
 *
 * @since 0.1.0
 */

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

/** The changed region of `newContent` with context, the whole file for a new file, or null. */
export const extractEditSnippet = (oldContent: string | null, newContent: string): EditSnippet | null => {
  const newLines = newContent.split("\n")
  const totalLines = newLines.length
  if (oldContent === null) return { startLine: 1, endLine: totalLines, totalLines, content: newContent }
  if (oldContent === newContent || newContent === "") return null
  const oldLines = oldContent.split("\n")
  const common = Math.min(oldLines.length, newLines.length)
  let first = 0
  while (first < common && oldLines[first] === newLines[first]) first++
  let oldEnd = oldLines.length - 1
  let newEnd = newLines.length - 1
  while (oldEnd >= first && newEnd >= first && oldLines[oldEnd] === newLines[newEnd]) {
    oldEnd--
    newEnd--
  }
  const changeStart = first + 1
  const changeEnd = newEnd + 1
  if (changeEnd - changeStart > SNIPPET_MAX_LINES) return null
  const startLine = Math.max(1, changeStart - SNIPPET_CONTEXT_LINES)
  const endLine = Math.min(totalLines, changeEnd + SNIPPET_CONTEXT_LINES)
  return { startLine, endLine, totalLines, content: newLines.slice(startLine - 1, endLine).join("\n") }
}
