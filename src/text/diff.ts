/**
 * Unified diffs for confirmations and results (reference §8), computed with the `diff` package.
 *
 * Lines shared at the start and end of both texts are set aside before diffing (keeping the
 * context lines), so a one-line edit of a 20 MB file costs a scan, not a quadratic diff. When the
 * change is known (a {@link ChangeView}), only a window of lines around it is looked at: the
 * result is the same, without splitting the whole file into lines.
 *
 * @since 0.1.0
 */
// The one module of the package that is needed (its index loads every diff flavour, ~100 KB of code).
import { formatPatch, structuredPatch } from "diff/lib/patch/create.js"
import type { StructuredPatch } from "diff/lib/types.js"
import type { ChangeView, ChangeWindow } from "./change.js"

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

type Edges = Pick<ChangeWindow, "breaksBefore" | "atTop" | "atBottom">

const WHOLE: Edges = { breaksBefore: 0, atTop: true, atBottom: true }

/**
 * The structured patch of a window of lines (`a` → `b`) with `context` lines, common head and
 * tail set aside first, exactly as over the whole texts: the `breaksBefore` lines above the window
 * are equal in both, and so are the lines below it. `undefined` when the answer depends on lines
 * beyond the window (the common head runs into its bottom, or the context reaches past an edge).
 */
const windowPatch = (
  fileName: string,
  a: ReadonlyArray<string>,
  b: ReadonlyArray<string>,
  edges: Edges,
  headers: readonly [string, string],
  context: number
): StructuredPatch | undefined => {
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  if (!edges.atBottom && (head === a.length || head === b.length)) return undefined
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  if ((!edges.atTop && head < context) || (!edges.atBottom && tail < context)) return undefined
  const from = Math.max(0, head - context)
  const aEnd = a.length - Math.max(0, tail - context)
  const bEnd = b.length - Math.max(0, tail - context)
  const patch = structuredPatch(
    fileName,
    fileName,
    a.slice(from, aEnd).join(""),
    b.slice(from, bEnd).join(""),
    headers[0],
    headers[1],
    { context }
  )
  const shift = edges.breaksBefore + from
  return {
    ...patch,
    hunks: patch.hunks.map((h) => ({ ...h, oldStart: h.oldStart + shift, newStart: h.newStart + shift }))
  }
}

/** The structured patch of old → new with `context` lines, common head and tail set aside first. */
const trimmedPatch = (
  fileName: string,
  oldText: string,
  newText: string,
  headers: readonly [string, string],
  context: number
): StructuredPatch => windowPatch(fileName, splitKeep(oldText), splitKeep(newText), WHOLE, headers, context)!

/** {@link trimmedPatch} of the old text and the text after a change, on a window of lines around it. */
const changePatch = (
  fileName: string,
  view: ChangeView,
  headers: readonly [string, string],
  context: number
): StructuredPatch =>
  view.isNoop
    ? trimmedPatch(fileName, "", "", headers, context)
    : view.widen(context + 1, (w) => windowPatch(fileName, splitKeep(w.oldText), splitKeep(w.newText), w, headers, context))

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
): string => formatPatch(trimmedPatch(fileName, oldText, newText, [oldHeader, newHeader], DIFF_CONTEXT_LINES))

/**
 * {@link createPatchSmart} of the old text and the text after a change — the same patch, computed
 * on a window of lines around the change instead of the whole file.
 * @category diffs
 */
export const createChangePatch = (
  fileName: string,
  view: ChangeView,
  oldHeader = "Current",
  newHeader = "Proposed"
): string => formatPatch(changePatch(fileName, view, [oldHeader, newHeader], DIFF_CONTEXT_LINES))

interface Counts {
  readonly addedLines: number
  readonly removedLines: number
  readonly addedChars: number
  readonly removedChars: number
}

/** Added and removed lines and chars (the `+`/`-` marker excluded) of a patch's hunks. */
const countHunks = (patch: StructuredPatch | undefined): Counts => {
  const counts = { addedLines: 0, removedLines: 0, addedChars: 0, removedChars: 0 }
  for (const hunk of patch?.hunks ?? []) {
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

const NO_HEADERS = ["", ""] as const

/** Added and removed lines and chars of old → new. */
const countChanges = (oldText: string, newText: string): Counts =>
  countHunks(oldText === newText ? undefined : trimmedPatch("", oldText, newText, NO_HEADERS, 0))

const diffStatOf = (model: Counts, user: Counts): DiffStat => ({
  model_added_lines: model.addedLines,
  model_removed_lines: model.removedLines,
  model_added_chars: model.addedChars,
  model_removed_chars: model.removedChars,
  user_added_lines: user.addedLines,
  user_removed_lines: user.removedLines,
  user_added_chars: user.addedChars,
  user_removed_chars: user.removedChars
})

/**
 * The reference's diff stat: old → the model's proposal as `model_*`, the proposal → the final
 * text (after a person amended it) as `user_*` (all zero when they are identical).
 * @category diffs
 */
export const getDiffStat = (_fileName: string, oldText: string, aiProposed: string, finalText: string): DiffStat =>
  diffStatOf(countChanges(oldText, aiProposed), countChanges(aiProposed, finalText))

/**
 * {@link getDiffStat} of a change written as proposed (so `user_*` are zero), computed on a window
 * of lines around the change.
 * @category diffs
 */
export const getChangeDiffStat = (view: ChangeView): DiffStat =>
  diffStatOf(countHunks(view.isNoop ? undefined : changePatch("", view, NO_HEADERS, 0)), countHunks(undefined))

const changedRanges = (patch: StructuredPatch | undefined): ReadonlyArray<ChangedLines> =>
  (patch?.hunks ?? []).map((h) =>
    h.oldLines === 0
      ? { start: Math.max(1, h.oldStart - 1), end: Math.max(1, h.oldStart - 1) }
      : { start: h.oldStart, end: h.oldStart + h.oldLines - 1 }
  )

/**
 * The lines of `oldText` (1-based, inclusive) that a change to `newText` removes or replaces; a
 * pure insertion reports the line it is inserted after (or line 1 at the top), so it too needs
 * its neighbourhood seen.
 * @category diffs
 */
export const changedOldLines = (oldText: string, newText: string): ReadonlyArray<ChangedLines> =>
  changedRanges(oldText === newText ? undefined : trimmedPatch("", oldText, newText, NO_HEADERS, 0))

/** {@link changedOldLines} of a change, computed on a window of lines around it. @category diffs */
export const changedOldLinesOf = (view: ChangeView): ReadonlyArray<ChangedLines> =>
  changedRanges(view.isNoop ? undefined : changePatch("", view, NO_HEADERS, 0))
