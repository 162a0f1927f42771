/**
 * The landing oracle: given a case and what an edit tool did with it, is the edit applied
 * correctly, refused, or applied wrong (and where)?
 *
 * A refusal is never wrong: a tool may always refuse. "Applied wrong" means the file was left
 * different from the intended after (or changed at all where it had to be refused); the verdict
 * names the smallest span where the two differ.
 *
 * @since 0.1.0
 */
import { type EditCase, encodeText, type Intended } from "./case.js"

/** What the edit tool did: wrote a file (its text or its bytes), or refused and left it alone. @category models */
export type ToolOutcome =
  | { readonly _tag: "Applied"; readonly after: string | Uint8Array }
  | { readonly _tag: "Refused"; readonly reason?: string }

/** The tool changed the file to `after` (the file's text, or its bytes on disk). @category constructors */
export const applied = (after: string | Uint8Array): ToolOutcome => ({ _tag: "Applied", after })

/** The tool refused the edit and wrote nothing. @category constructors */
export const refused = (reason?: string): ToolOutcome =>
  reason === undefined ? { _tag: "Refused" } : { _tag: "Refused", reason }

/**
 * Where a wrong landing differs from the intended file: `[start, end)` of the actual file and
 * `[start, intendedEnd)` of the intended one (characters for text, bytes for bytes), with both
 * excerpts (bytes shown as hex).
 * @category models
 */
export interface WrongSpan {
  readonly unit: "chars" | "bytes"
  readonly start: number
  readonly end: number
  readonly intendedEnd: number
  readonly actual: string
  readonly intended: string
}

/** The oracle's verdict. @category models */
export type Landing =
  | { readonly verdict: "applied-correct" }
  | { readonly verdict: "refused"; readonly hadToRefuse: boolean }
  | { readonly verdict: "applied-wrong"; readonly hadToRefuse: boolean; readonly span: WrongSpan }

const MAX_EXCERPT = 200

/** The smallest differing middle of two sequences, after their common prefix and suffix. */
const diffSpan = <T extends string | Uint8Array>(actual: T, intended: T): { start: number; end: number; intendedEnd: number } => {
  const n = Math.min(actual.length, intended.length)
  let start = 0
  while (start < n && actual[start] === intended[start]) start++
  let tail = 0
  while (tail < n - start && actual[actual.length - 1 - tail] === intended[intended.length - 1 - tail]) tail++
  return { start, end: actual.length - tail, intendedEnd: intended.length - tail }
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i])

const targetOf = (c: EditCase, intended: Intended): string => (intended._tag === "After" ? intended.after : c.before)

/**
 * Classifies what an edit tool did with a case: `applied-correct` (the file is exactly the intended
 * after), `refused` (nothing written; `hadToRefuse` says whether refusing was the only right
 * answer), or `applied-wrong` with the span where the file differs from what was intended (from the
 * unchanged file, for a case that had to be refused). Pass the file's text to compare text, or
 * its bytes to compare bytes in the case's encoding (BOM, line endings and all).
 * @category oracle
 */
export const expectLanding = (c: EditCase, outcome: ToolOutcome): Landing => {
  const hadToRefuse = c.intended._tag === "MustRefuse"
  if (outcome._tag === "Refused") return { verdict: "refused", hadToRefuse }
  const target = targetOf(c, c.intended)
  if (typeof outcome.after === "string") {
    if (!hadToRefuse && outcome.after === target) return { verdict: "applied-correct" }
    const d = diffSpan(outcome.after, target)
    return {
      verdict: "applied-wrong",
      hadToRefuse,
      span: {
        unit: "chars",
        ...d,
        actual: outcome.after.slice(d.start, Math.min(d.end, d.start + MAX_EXCERPT)),
        intended: target.slice(d.start, Math.min(d.intendedEnd, d.start + MAX_EXCERPT))
      }
    }
  }
  const want = encodeText(target, c.encoding)
  if (!hadToRefuse && sameBytes(outcome.after, want)) return { verdict: "applied-correct" }
  const d = diffSpan(outcome.after, want)
  return {
    verdict: "applied-wrong",
    hadToRefuse,
    span: {
      unit: "bytes",
      ...d,
      actual: hex(outcome.after.subarray(d.start, Math.min(d.end, d.start + MAX_EXCERPT))),
      intended: hex(want.subarray(d.start, Math.min(d.intendedEnd, d.start + MAX_EXCERPT)))
    }
  }
}

/** A one-paragraph account of a landing, for assertion messages. @category oracle */
export const describeLanding = (c: EditCase, landing: Landing): string => {
  const head = `${c.family}/${c.variant} (${c.encoding})`
  switch (landing.verdict) {
    case "applied-correct":
      return `${head}: applied correctly`
    case "refused":
      return `${head}: refused${landing.hadToRefuse ? " (as it had to)" : ""}`
    case "applied-wrong": {
      const s = landing.span
      const why = landing.hadToRefuse && c.intended._tag === "MustRefuse" ? ` although it had to refuse (${c.intended.why})` : ""
      return `${head}: applied WRONG${why}: at ${s.unit} ${s.start}-${s.end} the file has ${JSON.stringify(s.actual)} ` +
        `where ${JSON.stringify(s.intended)} was intended; request ${JSON.stringify(c.request)}`
    }
  }
}

/**
 * Throws (with {@link describeLanding}'s account) when the tool applied the case wrong; returns the
 * landing otherwise. Use it inside a fast-check property: "correct or refused, never wrong".
 * @category oracle
 */
export const assertNeverWrong = (c: EditCase, outcome: ToolOutcome): Landing => {
  const landing = expectLanding(c, outcome)
  if (landing.verdict === "applied-wrong") throw new Error(describeLanding(c, landing))
  return landing
}
