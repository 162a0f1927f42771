/**
 * Ladder rung past the reference: over-escaped old_string.
 *
 * The model sent `\n`, `\t`, `\"`, `\'` or `\\` as two characters where the file has the real
 * character. The needle is unescaped (only those five sequences) and run through the reference
 * rungs again. new_string follows the evidence it carries:
 * - no escape sequence: written verbatim;
 * - at least one sequence of a kind the needle used: it is over-escaped too, so every kind seen in
 *   either is unescaped (a model that escaped its quotes also escapes the newlines it adds);
 * - only kinds the needle did not use: if new_string writes a character the needle escaped as the
 *   plain character (a bare `"` where the needle had `\"`), it is not over-escaped and is written
 *   verbatim; otherwise there is no telling whether its sequences are meant (a `\n` inside a string
 *   literal) or over-escaped, so the rung refuses rather than guess.
 *
 * @since 0.1.0
 */
import type { Candidates } from "./haystack.js"

const ESCAPES: Readonly<Record<string, string>> = { n: "\n", t: "\t", "\"": "\"", "'": "'", "\\": "\\" }

/** The escape kinds (`n`, `t`, `"`, `'`, `\`) used in `text`, read left to right. */
export const escapeKinds = (text: string): Set<string> => {
  const kinds = new Set<string>()
  for (let i = text.indexOf("\\"); i !== -1 && i + 1 < text.length; i = text.indexOf("\\", i + 1)) {
    const next = text[i + 1]!
    if (ESCAPES[next] !== undefined) {
      kinds.add(next)
      i++
    }
  }
  return kinds
}

/** Replaces the escape sequences of the given kinds by the characters they stand for. */
export const unescapeKinds = (text: string, kinds: ReadonlySet<string>): string => {
  let out = ""
  let cursor = 0
  for (let i = text.indexOf("\\"); i !== -1 && i + 1 < text.length; i = text.indexOf("\\", i + 1)) {
    const next = text[i + 1]!
    const real = ESCAPES[next]
    if (real === undefined) continue
    if (kinds.has(next)) {
      out += text.slice(cursor, i) + real
      cursor = i + 2
    }
    i++
  }
  return out + text.slice(cursor)
}

/** Whether `text` holds, outside an escape sequence, the plain character of one of `kinds` (`\\` aside). */
const writesPlainly = (text: string, kinds: ReadonlySet<string>): boolean => {
  const plain = new Set([...kinds].filter((k) => k !== "\\").map((k) => ESCAPES[k]!))
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "\\") {
      i++
      continue
    }
    if (plain.has(text[i]!)) return true
  }
  return false
}

/**
 * The over-escaping rung: the unescaped needle through the reference rungs (`reference`, the
 * ladder's first rows), with new_string adjusted.
 */
export const unescaped = (
  needle: string,
  newString: string,
  reference: (needle: string, newString: string) => Candidates | undefined
): Candidates | undefined => {
  const kinds = escapeKinds(needle)
  if (kinds.size === 0) return undefined
  const plain = unescapeKinds(needle, kinds)
  if (plain === needle || plain === "") return undefined
  const newKinds = escapeKinds(newString)
  const overEscapedToo = [...newKinds].some((kind) => kinds.has(kind))
  if (newKinds.size > 0 && !overEscapedToo && !writesPlainly(newString, kinds)) return undefined
  const written = overEscapedToo ? unescapeKinds(newString, new Set([...kinds, ...newKinds])) : newString
  const found = reference(plain, written)
  return found === undefined ? undefined : { ...found, rung: "unescaped" }
}
