/**
 * The text perturbations themselves, as plain functions: how a model's copy of a file's text goes
 * wrong. `noise` (a list of small numbers) chooses which occurrences are touched, so every
 * perturbation is reproducible from its inputs.
 *
 * @since 0.1.0
 */
import { indentOf, isBlank } from "./window.js"

/** Whether occurrence `i` is touched: by noise, but always at least the first one. */
const touched = (noise: ReadonlyArray<number>, i: number): boolean =>
  i === 0 || (noise[i % Math.max(1, noise.length)] ?? 0) % 3 !== 0

/** Replaces matches of `re` by `replace(match, index)` where {@link touched}; returns undefined when nothing matched. */
const replaceSome = (
  text: string,
  re: RegExp,
  noise: ReadonlyArray<number>,
  replace: (match: string, before: string, after: string) => string | undefined
): string | undefined => {
  let i = 0
  let changed = false
  const out = text.replace(re, (match: string, ...rest: Array<unknown>) => {
    const offset = rest[rest.length - 2] as number
    const next = touched(noise, i++) ? replace(match, text[offset - 1] ?? "", text[offset + match.length] ?? "") : undefined
    if (next === undefined || next === match) return match
    changed = true
    return next
  })
  return changed ? out : undefined
}

const isWordChar = (ch: string) => /[\p{L}\p{N}]/u.test(ch)

/** Straight quotes written as typographic ones (“ ” for `"`, ’ inside a word and ‘ ’ around words for `'`). @category perturbations */
export const curlyQuotes = (text: string, noise: ReadonlyArray<number>): string | undefined => {
  let double = 0
  let single = 0
  return replaceSome(text, /["']/g, noise, (q, before, after) => {
    if (q === "\"") return double++ % 2 === 0 ? "\u201C" : "\u201D"
    if (isWordChar(before) && isWordChar(after)) return "\u2019"
    return single++ % 2 === 0 ? "\u2018" : "\u2019"
  })
}

/** Typographic quotes written as straight ones. @category perturbations */
export const straightQuotes = (text: string, noise: ReadonlyArray<number>): string | undefined =>
  replaceSome(text, /[\u2018-\u201F]/g, noise, (q) => (q <= "\u201B" ? "'" : "\""))

/** Which hyphen runs a dash perturbation rewrites, and as what. @category perturbations */
export type DashVariant =
  | "en_dash_for_hyphen"
  | "minus_for_hyphen"
  | "em_dash_for_double_hyphen"
  | "em_dash_for_triple_hyphen"
  | "hyphen_for_en_dash"
  | "hyphens_for_em_dash"

const DASHES: Readonly<Record<DashVariant, { readonly from: RegExp; readonly to: string }>> = {
  en_dash_for_hyphen: { from: /(?<!-)-(?!-)/g, to: "\u2013" },
  minus_for_hyphen: { from: /(?<!-)-(?!-)/g, to: "\u2212" },
  em_dash_for_double_hyphen: { from: /(?<!-)--(?!-)/g, to: "\u2014" },
  em_dash_for_triple_hyphen: { from: /(?<!-)---(?!-)/g, to: "\u2014" },
  hyphen_for_en_dash: { from: /\u2013/g, to: "-" },
  hyphens_for_em_dash: { from: /\u2014/g, to: "--" }
}

/** The dash variants `text` offers (it holds what they rewrite). @category perturbations */
export const dashVariants = (text: string): Array<DashVariant> =>
  (Object.keys(DASHES) as Array<DashVariant>).filter((v) => new RegExp(DASHES[v].from.source).test(text))

/** Hyphen runs written as typographic dashes, or the reverse (see {@link DashVariant}). @category perturbations */
export const dashes = (text: string, variant: DashVariant, noise: ReadonlyArray<number>): string | undefined =>
  replaceSome(text, new RegExp(DASHES[variant].from.source, "g"), noise, () => DASHES[variant].to)

/** Exotic spaces a model may write for a plain one. @category constants */
export const EXOTIC_SPACES: ReadonlyArray<string> = ["\u00A0", "\u2009", "\u202F", "\u3000", "\u2002"]

/** Some plain spaces between words (not indentation, not trailing) written as `space`. @category perturbations */
export const exoticSpaces = (text: string, space: string, noise: ReadonlyArray<number>): string | undefined =>
  replaceSome(text, /(?<=\S) (?=\S)/g, noise, () => space)

/** Exotic spaces written as plain ones. @category perturbations */
export const plainSpaces = (text: string, noise: ReadonlyArray<number>): string | undefined =>
  replaceSome(text, /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/g, noise, () => " ")

/** Trailing whitespace the file does not have, added to some lines. @category perturbations */
export const addTrailingWhitespace = (lines: ReadonlyArray<string>, noise: ReadonlyArray<number>): Array<string> =>
  lines.map((line, k) => (touched(noise, k) && !isBlank(line) ? line + [" ", "  ", "\t", " \t"][(noise[k % noise.length] ?? 0) % 4] : line))

/** Every line's trailing whitespace dropped; undefined when there was none. @category perturbations */
export const dropTrailingWhitespace = (lines: ReadonlyArray<string>): Array<string> | undefined => {
  const out = lines.map((line) => line.trimEnd())
  return out.some((line, k) => line !== lines[k]) ? out : undefined
}

/** Escaped the way a double-encoded JSON string looks: `\` `"` newline and tab as two-character escapes. @category perturbations */
export const overEscape = (text: string): string =>
  text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/"/g, "\\\"")

/** The escape kinds (`n`, `t`, `"`, `'`, `\`) a text uses, read left to right. @category perturbations */
export const escapeKinds = (text: string): Set<string> => {
  const kinds = new Set<string>()
  for (let i = 0; i + 1 < text.length; i++) {
    if (text[i] === "\\" && "nt\"'\\".includes(text[i + 1]!)) {
      kinds.add(text[i + 1]!)
      i++
    }
  }
  return kinds
}

/** The common indentation prefix of the non-blank lines. @category perturbations */
export const commonIndent = (lines: ReadonlyArray<string>): string => {
  const indents = lines.filter((line) => !isBlank(line)).map(indentOf)
  if (indents.length === 0) return ""
  let common = indents[0]!
  for (const indent of indents) {
    while (!indent.startsWith(common)) common = common.slice(0, -1)
  }
  return common
}

/** Every non-blank line re-indented by `shift` (blank lines kept as they are). @category perturbations */
export const reindentLines = (lines: ReadonlyArray<string>, shift: (indent: string) => string): Array<string> =>
  lines.map((line) => (isBlank(line) ? line : shift(indentOf(line)) + line.slice(indentOf(line).length)))
