/**
 * The file a rung searches ({@link Haystack}: its text, folded text and line table, each built on
 * first use) and what a rung answers ({@link Candidates}).
 *
 * @since 0.1.0
 */
import { type InternedPattern, internPattern, LineTable, lineIds, restKey } from "./lines.js"
import type { Span } from "./replace.js"
import type { Rung } from "./rungs.js"
import { normalizeUnicode } from "./unicode.js"

/** The places one rung matched, in file order, and the new_string to write there. */
export interface Candidates {
  readonly rung: Rung
  /** Every place the rung would edit (a line rung's windows, the look-alike rung's every start). */
  readonly spans: ReadonlyArray<Span>
  readonly newString: string
  /**
   * Offsets of places the same rung also matches at another column (inside a longer line), which
   * it could not edit but which make the match ambiguous; asked only of the rung that decides.
   */
  readonly strays?: (() => ReadonlyArray<number>) | undefined
}

/** The file being edited, with its folded text and line table built on first use. */
export class Haystack {
  private foldedText: string | undefined
  private lineTable: LineTable | undefined
  private rest: { readonly needle: string; readonly pattern: InternedPattern; readonly ids: Int32Array } | undefined

  /** `noLookalikes`: the caller knows the content holds no look-alike character (folding is then the identity). */
  constructor(readonly content: string, noLookalikes = false) {
    if (noLookalikes) this.foldedText = content
  }

  /** The content with look-alikes folded (same length; the same string when there are none). */
  folded(): string {
    if (this.foldedText === undefined) this.foldedText = normalizeUnicode(this.content)
    return this.foldedText
  }

  /** The content's line table. */
  table(): LineTable {
    if (this.lineTable === undefined) this.lineTable = new LineTable(this.content, () => this.folded())
    return this.lineTable
  }

  /**
   * Every file line's id against the needle lines, both keyed without indentation and trailing
   * whitespace (look-alikes folded); computed once per needle.
   */
  restIds(needleLines: ReadonlyArray<string>): { readonly pattern: InternedPattern; readonly ids: Int32Array } {
    const needle = needleLines.join("\n")
    if (this.rest === undefined || this.rest.needle !== needle) {
      const table = this.table()
      const pattern = internPattern(needleLines.map(restKey))
      this.rest = { needle, pattern, ids: lineIds(this.folded(), table.indentEnds(), table.trimmedEnds(), pattern) }
    }
    return this.rest
  }
}
