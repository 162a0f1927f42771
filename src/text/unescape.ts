/**
 * Ladder rung past the reference: over-escaped old_string.
 *
 * The model sent `\n`, `\t`, `\"`, `\'` or `\\` as two characters where the file has the real
 * character. The needle is unescaped (only those five sequences) and run through the reference
 * rungs again. new_string is unescaped the same way only when it shows the same pattern: it uses
 * at least one escape sequence and only kinds the needle also used; otherwise it is verbatim.
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
  const samePattern = newKinds.size > 0 && [...newKinds].every((kind) => kinds.has(kind))
  const found = reference(plain, samePattern ? unescapeKinds(newString, kinds) : newString)
  return found === undefined ? undefined : { ...found, rung: "unescaped" }
}
