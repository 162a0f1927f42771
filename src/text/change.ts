/**
 * A local change of a large text, and line windows around it.
 *
 * An edit replaces one range of a file (for several places: the range from the first to the last,
 * with the untouched text between them). Everything before and after that range is the same in
 * the old and the new text, so the diff, the diff stat, the changed lines and the snippet only
 * need a window of lines around the range — plus the number of lines above it, for line numbers.
 * A window is widened (and the work redone) only in the rare case where the answer depends on
 * lines beyond it, so every result equals the one computed over the whole texts.
 *
 * @since 0.1.0
 */

/** `text.slice(start, end)` replaced by `replacement`; the text before `start` and after `end` is kept. @category models */
export interface TextChange {
  readonly start: number
  readonly end: number
  readonly replacement: string
}

/**
 * The new text of a change, built without copying the kept parts (the engine joins the pieces
 * lazily, so a 50 MB file costs no new 50 MB string until something reads every character).
 * @category changes
 */
export const applyChange = (text: string, change: TextChange): string =>
  text.slice(0, change.start) + change.replacement + text.slice(change.end)

/** Number of `\n` in `text.slice(from, to)`. @category lines */
export const countBreaks = (text: string, from: number, to: number): number => {
  let count = 0
  for (let i = text.indexOf("\n", from); i !== -1 && i < to; i = text.indexOf("\n", i + 1)) count++
  return count
}

/** A window of whole lines around a change, in both texts. @category models */
export interface ChangeWindow {
  /** The old text's window (starts at a line start; ends after a `\n` or at the end of the text). */
  readonly oldText: string
  /** The same window in the new text. */
  readonly newText: string
  /** `\n`s of the old (and new) text before the window. */
  readonly breaksBefore: number
  /** The window reaches the start of the texts. */
  readonly atTop: boolean
  /** The window reaches the end of the texts. */
  readonly atBottom: boolean
}

/** The last `\n` before `offset`, or -1 (`lastIndexOf` would look at index 0 for a negative start). */
const breakBefore = (text: string, offset: number): number => (offset <= 0 ? -1 : text.lastIndexOf("\n", offset - 1))

/** Offset of the start of the line `lines` lines above the one holding `offset` (0 at the top). */
const lineStartAbove = (text: string, offset: number, lines: number): number => {
  let at = breakBefore(text, offset)
  for (let k = 0; k < lines && at !== -1; k++) at = breakBefore(text, at)
  return at + 1
}

/** Offset just after the `\n` ending the line `lines` lines below the one holding `offset` (the length at the end). */
const lineEndBelow = (text: string, offset: number, lines: number): number => {
  let at = text.indexOf("\n", offset)
  for (let k = 0; k < lines && at !== -1; k++) at = text.indexOf("\n", at + 1)
  return at === -1 ? text.length : at + 1
}

/**
 * An old text and one change of it, with the line counts the windowed computations share (each
 * counted once, on first use).
 * @category models
 */
export class ChangeView {
  private before: number | undefined
  private total: number | undefined

  /** `breaksBeforeStart`: the number of `\n` before `change.start`, when the caller already knows it. */
  constructor(readonly oldText: string, readonly change: TextChange, breaksBeforeStart?: number) {
    this.before = breaksBeforeStart
  }

  /** Whether the change leaves the text as it was. */
  get isNoop(): boolean {
    const { start, end, replacement } = this.change
    return end - start === replacement.length && this.oldText.startsWith(replacement, start)
  }

  /** The new text (see {@link applyChange}). */
  newText(): string {
    return applyChange(this.oldText, this.change)
  }

  /** `\n`s before `change.start` in either text. */
  breaksBeforeStart(): number {
    if (this.before === undefined) this.before = countBreaks(this.oldText, 0, this.change.start)
    return this.before
  }

  /** `\n`s in the whole old text. */
  oldBreaks(): number {
    if (this.total === undefined) {
      this.total = this.breaksBeforeStart() + countBreaks(this.oldText, this.change.start, this.oldText.length)
    }
    return this.total
  }

  /** `\n`s in the whole new text. */
  newBreaks(): number {
    const { start, end, replacement } = this.change
    return this.oldBreaks() - countBreaks(this.oldText, start, end) + countBreaks(replacement, 0, replacement.length)
  }

  /** Whole lines around the change: `above` lines above the first changed line, `below` below the last. */
  window(above: number, below: number): ChangeWindow {
    const text = this.oldText
    const { start, end, replacement } = this.change
    const from = lineStartAbove(text, start, above)
    // Strictly after `end`, so the window ends at a line start of both texts (or at their ends).
    const to = lineEndBelow(text, end, below)
    return {
      oldText: text.slice(from, to),
      newText: text.slice(from, start) + replacement + text.slice(end, to),
      breaksBefore: this.breaksBeforeStart() - countBreaks(text, from, start),
      atTop: from === 0,
      atBottom: to === text.length
    }
  }

  /**
   * Runs `compute` on windows of growing size until it answers (it returns `undefined` while the
   * answer depends on lines beyond the window); the whole text always answers.
   */
  widen<A>(margin: number, compute: (window: ChangeWindow) => A | undefined): A {
    for (let lines = Math.max(margin, 1); ; lines *= 4) {
      const window = this.window(lines, lines)
      const answer = compute(window)
      if (answer !== undefined) return answer
      if (window.atTop && window.atBottom) throw new Error("ChangeView.widen: no answer for the whole text")
    }
  }
}
