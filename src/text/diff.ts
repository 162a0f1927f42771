/**
 * Unified diffs for confirmations and results (reference §8), computed with the `diff` package.
 *
 * Lines shared at the start and end of both texts are set aside before diffing (keeping the
 * context lines), so a one-line edit of a 20 MB file costs a scan, not a quadratic diff.
 *
 * @since 0.1.0
 */
import { formatPatch, structuredPatch, type StructuredPatch } from "diff"

/** Context lines of the unified diffs (reference `DEFAULT_DIFF_OPTIONS.context`). @category constants */
export const DIFF_CONTEXT_LINES = 3

/** Line counts and character counts of one direction of a change. @category models */
export interface DiffStat {
  readonly model_added_lines: number
  readonly model_removed_lines: number
  readonly model_added_chars: number
  readonly model_removed_chars: number
  readonly user_added_lines: number
  readonly user_removed_lines: number
  readonly user_added_chars: number
  readonly user_removed_chars: number
}

/** A 1-based inclusive range of lines of the OLD text that a change removes or replaces. @category models */
export interface ChangedLines {
  readonly start: number
  readonly end: number
}

/** Splits into lines, each keeping its `\n`; the last one may lack it. */
const splitKeep = (text: string): Array<string> => {
  const lines: Array<string> = []
  let from = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", from)) {
    lines.push(text.slice(from, at + 1))
    from = at + 1
  }
  if (from < text.length) lines.push(text.slice(from))
  return lines
}

/** The structured patch of old → new with `context` lines, common head and tail set aside first. */
const trimmedPatch = (
  fileName: string,
  oldText: string,
  newText: string,
  oldHeader: string,
  newHeader: string,
  context: number
): StructuredPatch => {
  const a = splitKeep(oldText)
  const b = splitKeep(newText)
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const from = Math.max(0, head - context)
  const aEnd = a.length - Math.max(0, tail - context)
  const bEnd = b.length - Math.max(0, tail - context)
  const patch = structuredPatch(
    fileName,
    fileName,
    a.slice(from, aEnd).join(""),
    b.slice(from, bEnd).join(""),
    oldHeader,
    newHeader,
    { context }
  )
  return {
    ...patch,
    hunks: patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + from, newStart: h.newStart + from }))
  }
}

/** Whether a unified diff has at least one hunk. @category predicates */
export const hasHunks = (patch: string): boolean => patch.includes("\n@@ ")

/**
 * A unified diff of `oldText` → `newText` for a confirmation or a result. Unlike the reference
 * (which ignores whitespace unless that leaves no hunk), the diff is always exact: a person
 * approving an edit sees every changed byte — an indentation change in Python matters — and the
 * patch applies to the old text.
 * @category diffs
 */
export const createPatchSmart = (
  fileName: string,
  oldText: string,
  newText: string,
  oldHeader = "Current",
  newHeader = "Proposed"
): string => formatPatch(trimmedPatch(fileName, oldText, newText, oldHeader, newHeader, DIFF_CONTEXT_LINES))

/** Added and removed lines and chars (the `+`/`-` marker excluded) of old → new. */
const countChanges = (oldText: string, newText: string) => {
  const counts = { addedLines: 0, removedLines: 0, addedChars: 0, removedChars: 0 }
  if (oldText === newText) return counts
  for (const hunk of trimmedPatch("", oldText, newText, "", "", 0).hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) {
        counts.addedLines++
        counts.addedChars += line.length - 1
      } else if (line.startsWith("-")) {
        counts.removedLines++
        counts.removedChars += line.length - 1
      }
    }
  }
  return counts
}

/**
 * The reference's diff stat: old → the model's proposal as `model_*`, the proposal → the final
 * text (after a person amended it) as `user_*` (all zero when they are identical).
 * @category diffs
 */
export const getDiffStat = (_fileName: string, oldText: string, aiProposed: string, finalText: string): DiffStat => {
  const model = countChanges(oldText, aiProposed)
  const user = countChanges(aiProposed, finalText)
  return {
    model_added_lines: model.addedLines,
    model_removed_lines: model.removedLines,
    model_added_chars: model.addedChars,
    model_removed_chars: model.removedChars,
    user_added_lines: user.addedLines,
    user_removed_lines: user.removedLines,
    user_added_chars: user.addedChars,
    user_removed_chars: user.removedChars
  }
}

/**
 * The lines of `oldText` (1-based, inclusive) that a change to `newText` removes or replaces; a
 * pure insertion reports the line it is inserted after (or line 1 at the top), so it too needs
 * its neighbourhood seen.
 * @category diffs
 */
export const changedOldLines = (oldText: string, newText: string): ReadonlyArray<ChangedLines> =>
  oldText === newText ? [] : trimmedPatch("", oldText, newText, "", "", 0).hunks.map((h) =>
    h.oldLines === 0
      ? { start: Math.max(1, h.oldStart - 1), end: Math.max(1, h.oldStart - 1) }
      : { start: h.oldStart, end: h.oldStart + h.oldLines - 1 }
  )
