/**
 * One builder per perturbation family: from a source text and a set of random choices, an edit case
 * (or `undefined` when the text offers nothing the family can perturb). The intended after is
 * always the source with the window replaced by the model's edit written in the file's own form.
 *
 * @since 0.1.0
 */
import { type CaseEncoding, type EditCase, type EditRequest, type Family, representable } from "./case.js"
import {
  addTrailingWhitespace,
  commonIndent,
  curlyQuotes,
  dashes,
  dashVariants,
  dropTrailingWhitespace,
  escapeKinds,
  EXOTIC_SPACES,
  exoticSpaces,
  overEscape,
  plainSpaces,
  reindentLines,
  straightQuotes
} from "./perturb.js"
import { type EditShape, editLines, findWindow, foldLookalikes, indentOf, isBlank, makeSource, type Source, splice, type Window } from "./window.js"

/** The random choices a builder draws on. @category models */
export interface Choice {
  /** Where the search for a window starts (a line index, taken modulo the line count). */
  readonly seed: number
  /** Lines in the window (it grows until it holds a distinctive line). */
  readonly size: number
  readonly shape: EditShape
  /** Which line the edit touches. */
  readonly pick: number
  /** Which variant of the family, among those the window offers. */
  readonly variant: number
  /** Which occurrences a perturbation touches. */
  readonly noise: ReadonlyArray<number>
  /** old_string and new_string end with the window's line break. */
  readonly withBreak: boolean
  /** Where a duplicate goes (ambiguous family), as a line index modulo the line count. */
  readonly at: number
}

/** Builds one case of a family, or `undefined` when the source offers nothing to perturb. @category models */
export type Builder = (source: Source, choice: Choice) => EditCase | undefined

const choose = <T>(xs: ReadonlyArray<T>, n: number): T | undefined => (xs.length === 0 ? undefined : xs[n % xs.length])

interface Planned {
  readonly family: Family
  readonly variant: string
  readonly source: Source
  readonly window: Window
  readonly oldLines: ReadonlyArray<string>
  /** The model's new_string lines (in the model's frame). */
  readonly newLines: ReadonlyArray<string>
  /** The edit in the file's frame: what the window must become. */
  readonly intendedLines: ReadonlyArray<string>
  readonly withBreak: boolean
  readonly encoding?: CaseEncoding
}

/** An applied case: the window replaced by the intended lines. */
const planned = (p: Planned): EditCase => {
  const brk = p.withBreak && p.window.breakAfter ? "\n" : ""
  return {
    family: p.family,
    variant: p.variant,
    encoding: p.encoding ?? "utf-8",
    before: p.source.text,
    request: { old_string: p.oldLines.join("\n") + brk, new_string: p.newLines.join("\n") + brk },
    intended: { _tag: "After", after: splice(p.source.text, p.window.from, p.window.to, p.intendedLines.join("\n")) }
  }
}

const mustRefuse = (family: Family, variant: string, before: string, request: EditRequest, why: string, encoding: CaseEncoding = "utf-8"): EditCase => ({
  family,
  variant,
  encoding,
  before,
  request,
  intended: { _tag: "MustRefuse", why }
})

/** A window, and the edited lines, for the simple families (perturb old_string only). */
const simple = (
  family: Family,
  source: Source,
  c: Choice,
  perturb: (windowText: string) => { readonly variant: string; readonly old: string } | undefined
): EditCase | undefined => {
  let result: { readonly variant: string; readonly old: string } | undefined
  const window = findWindow(source, c.seed, c.size, (w) => {
    result = perturb(w.lines.join("\n"))
    return result !== undefined && result.old !== w.lines.join("\n") && !source.text.includes(result.old)
  })
  if (window === undefined || result === undefined) return undefined
  const edited = editLines(window.lines, c.shape, c.pick)
  return planned({
    family,
    variant: result.variant,
    source,
    window,
    oldLines: result.old.split("\n"),
    newLines: edited,
    intendedLines: edited,
    withBreak: c.withBreak
  })
}

const curlyQuotesFamily: Builder = (source, c) =>
  simple("curly_quotes", source, c, (text) => {
    const offers = [
      ...(/["']/.test(text) ? ["straight_to_curly"] : []),
      ...(/[\u2018-\u201F]/.test(text) ? ["curly_to_straight"] : []),
      ...(/["']/.test(text) && /(?<!-)-(?!-)/.test(text) ? ["curly_quotes_and_en_dashes"] : []),
      ...(/[\u2018-\u201F]/.test(text) && /[\u2013\u2014]/.test(text) ? ["straight_quotes_and_hyphens"] : [])
    ]
    const variant = choose(offers, c.variant)
    const old = variant === "straight_to_curly"
      ? curlyQuotes(text, c.noise)
      : variant === "curly_to_straight"
      ? straightQuotes(text, c.noise)
      : variant === "curly_quotes_and_en_dashes"
      ? dashes(curlyQuotes(text, c.noise) ?? text, "en_dash_for_hyphen", c.noise)
      : variant === "straight_quotes_and_hyphens"
      ? dashes(straightQuotes(text, c.noise) ?? text, /\u2013/.test(text) ? "hyphen_for_en_dash" : "hyphens_for_em_dash", c.noise)
      : undefined
    return variant === undefined || old === undefined ? undefined : { variant, old }
  })

const dashesFamily: Builder = (source, c) =>
  simple("dashes", source, c, (text) => {
    const variant = choose(dashVariants(text), c.variant)
    const old = variant === undefined ? undefined : dashes(text, variant, c.noise)
    return variant === undefined || old === undefined ? undefined : { variant, old }
  })

const unicodeSpacesFamily: Builder = (source, c) =>
  simple("unicode_spaces", source, c, (text) => {
    const reverse = /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/.test(text) && c.variant % 2 === 0
    if (reverse) {
      const old = plainSpaces(text, c.noise)
      return old === undefined ? undefined : { variant: "plain_for_exotic_space", old }
    }
    const space = EXOTIC_SPACES[c.variant % EXOTIC_SPACES.length]!
    const old = exoticSpaces(text, space, c.noise)
    const name = `u${space.charCodeAt(0).toString(16).padStart(4, "0")}_for_space`
    return old === undefined ? undefined : { variant: name, old }
  })

const trailingWhitespaceFamily: Builder = (source, c) =>
  simple("trailing_whitespace", source, c, (text) => {
    const lines = text.split("\n")
    const dropped = c.variant % 2 === 0 ? dropTrailingWhitespace(lines) : undefined
    if (dropped !== undefined) return { variant: "dropped_from_old_string", old: dropped.join("\n") }
    return { variant: "added_to_old_string", old: addTrailingWhitespace(lines, c.noise).join("\n") }
  })

const crlfFamily: Builder = (source, c) => {
  if (source.text.includes("\r")) return undefined
  const window = findWindow(source, c.seed, Math.max(2, c.size), (w) => w.lines.length >= 2)
  if (window === undefined) return undefined
  const edited = editLines(window.lines, c.shape, c.pick)
  const lf = planned({
    family: "crlf",
    variant: "lf_request_in_crlf_file",
    source,
    window,
    oldLines: window.lines,
    newLines: edited,
    intendedLines: edited,
    withBreak: c.withBreak
  })
  const crlf = (s: string) => s.replace(/\n/g, "\r\n")
  return { ...lf, before: crlf(lf.before), intended: lf.intended._tag === "After" ? { _tag: "After", after: crlf(lf.intended.after) } : lf.intended }
}

const missingFinalNewlineFamily: Builder = (source0, c) => {
  const source = makeSource(source0.text.replace(/\s+$/, ""))
  const n = source.lines.length
  if (n === 0) return undefined
  const window = findWindow(source, Math.max(0, n - c.size), c.size, (w) => w.end === n)
  if (window === undefined) return undefined
  const edited = editLines(window.lines, c.shape === "remove_line" ? "append_word" : c.shape, c.pick)
  return {
    family: "missing_final_newline",
    variant: "old_string_ends_with_break",
    encoding: "utf-8",
    before: source.text,
    request: { old_string: window.lines.join("\n") + "\n", new_string: edited.join("\n") + "\n" },
    intended: { _tag: "After", after: splice(source.text, window.from, window.to, edited.join("\n")) }
  }
}

const indentationDriftFamily: Builder = (source, c) => {
  type Drift = { readonly variant: string; readonly shift: (indent: string) => string }
  let drift: Drift | undefined
  const window = findWindow(source, c.seed, Math.max(2, c.size), (w) => {
    const nonBlank = w.lines.filter((line) => !isBlank(line))
    if (nonBlank.length < 2) return false
    const common = commonIndent(w.lines)
    const hasTabs = nonBlank.some((line) => indentOf(line).includes("\t"))
    const offers: Array<Drift> = [
      ...(common !== "" ? [{ variant: "dedented", shift: (i: string) => i.slice(common.length) }] : []),
      { variant: "indented_more", shift: (i: string) => (hasTabs ? "\t" : "  ") + i },
      ...(hasTabs ? [{ variant: "spaces_for_tabs", shift: (i: string) => i.replaceAll("\t", "    ") }] : [])
    ]
    drift = choose(offers, c.variant)
    return drift !== undefined
  })
  if (window === undefined || drift === undefined) return undefined
  const d = drift
  const edited = editLines(window.lines, c.shape, c.pick)
  // A quarter of the cases: new_string already written in the file's indentation.
  const inFileFrame = c.noise[0]! % 4 === 0
  return planned({
    family: "indentation_drift",
    variant: inFileFrame ? `${d.variant}_new_in_file_frame` : d.variant,
    source,
    window,
    oldLines: reindentLines(window.lines, d.shift),
    newLines: inFileFrame ? edited : reindentLines(edited, d.shift),
    intendedLines: edited,
    withBreak: c.withBreak
  })
}

const overEscapingFamily: Builder = (source, c) => {
  const window = findWindow(source, c.seed, c.size, (w) => {
    const text = w.lines.join("\n")
    return overEscape(text) !== text && !source.text.includes(overEscape(text))
  })
  if (window === undefined) return undefined
  const edited = editLines(window.lines, c.shape, c.pick)
  const old = overEscape(window.lines.join("\n"))
  const escapedNew = overEscape(edited.join("\n"))
  const plainOk = !edited.join("\n").includes("\\")
  const plain = plainOk && c.variant % 3 === 0
  const oldKinds = escapeKinds(old)
  const same = [...escapeKinds(escapedNew)].every((k) => oldKinds.has(k))
  const variant = plain ? "new_plain" : same ? "new_escaped_same_kinds" : "new_escaped_more_kinds"
  return {
    family: "over_escaping",
    variant,
    encoding: "utf-8",
    before: source.text,
    request: { old_string: old, new_string: plain ? edited.join("\n") : escapedNew },
    intended: { _tag: "After", after: splice(source.text, window.from, window.to, edited.join("\n")) }
  }
}

const FLAVOUR: Readonly<Record<CaseEncoding, string>> = {
  "utf-8": "",
  "utf-8-bom": "// Notes: café, naïve — “quoted”\n",
  "utf-16le-bom": "// Notes: café, naïve, 中文\n",
  "windows-1252": "# Café, crème brûlée, déjà vu: naïve señor à la carte.\n",
  gbk: "// 说明：这是一个中文编码的测试文件，请不要修改这里的内容。\n"
}
const ENCODINGS: ReadonlyArray<CaseEncoding> = ["utf-8-bom", "utf-16le-bom", "windows-1252", "gbk"]

const encodingFamily: Builder = (source0, c) => {
  const encoding = ENCODINGS[c.variant % ENCODINGS.length]!
  const safe = [...source0.text].map((ch) => (representable(ch, encoding) ? ch : "?")).join("")
  const source = makeSource(FLAVOUR[encoding] + safe)
  const window = findWindow(source, c.seed, c.size, () => true)
  if (window === undefined) return undefined
  const edited = editLines(window.lines, c.shape, c.pick)
  return planned({
    family: "encoding",
    variant: encoding,
    source,
    window,
    oldLines: window.lines,
    newLines: edited,
    intendedLines: edited,
    withBreak: c.withBreak,
    encoding
  })
}

/** A line index outside the window where a copy can go (a line start), or undefined. */
const placeOutside = (source: Source, w: Window, at: number): number | undefined => {
  const n = source.lines.length
  const places = Array.from({ length: n + 1 }, (_, k) => k).filter((k) => k < w.start || k > w.end)
  return choose(places, at)
}

/** The source with `lines` inserted as whole lines before line `k`. */
const insertLines = (source: Source, k: number, lines: ReadonlyArray<string>): string => {
  const all = [...source.lines]
  all.splice(k, 0, ...lines)
  return all.join("\n") + (source.endsWithBreak ? "\n" : "")
}

const ambiguousFamily: Builder = (source, c) => {
  const kind = c.variant % 4
  const window = findWindow(source, c.seed, kind === 3 ? 1 : c.size, (w) => kind !== 3 || (w.lines.length === 1 && w.lines[0]!.trim().length >= 8))
  if (window === undefined) return undefined
  const k = placeOutside(source, window, c.at)
  if (k === undefined) return undefined
  const oldText = window.lines.join("\n")
  const edited = editLines(window.lines, c.shape, c.pick).join("\n")
  if (kind === 3) {
    // The line also occurs inside a longer, indented line; old_string has trailing spaces.
    const before = insertLines(source, k, [`    ${oldText} // again`])
    return mustRefuse("ambiguous_duplicates", "substring_in_longer_line", before, { old_string: `${oldText}  `, new_string: edited },
      "old_string (trailing whitespace aside) also occurs inside a longer line")
  }
  const before = insertLines(source, k, window.lines)
  if (kind === 0) {
    return mustRefuse("ambiguous_duplicates", "exact_twice", before, { old_string: oldText, new_string: edited }, "old_string occurs twice")
  }
  if (kind === 1) {
    const twice = makeSource(before)
    const after = twice.text.split(oldText).join(edited)
    if (twice.text.split(oldText).length !== 3) return undefined
    return {
      family: "ambiguous_duplicates",
      variant: "exact_twice_replace_all",
      encoding: "utf-8",
      before,
      request: { old_string: oldText, new_string: edited, replace_all: true },
      intended: { _tag: "After", after }
    }
  }
  const fuzzy = addTrailingWhitespace(window.lines, c.noise).join("\n")
  const old = curlyQuotes(fuzzy, c.noise) ?? fuzzy
  return mustRefuse("ambiguous_duplicates", "fuzzy_twice", before, { old_string: old, new_string: edited }, "old_string matches two places approximately")
}

const hallucinatedFamily: Builder = (source, c) => {
  const kind = c.variant % 3
  const window = findWindow(source, c.seed, kind === 2 ? Math.max(3, c.size) : c.size, (w) => kind !== 2 || w.lines.filter((l) => !isBlank(l)).length >= 3)
  if (window === undefined) return undefined
  const lines = [...window.lines]
  // Never a removal: that could make new_string the needle with the line dropped.
  const edited = editLines(window.lines, c.shape === "remove_line" ? "append_word" : c.shape, c.pick).join("\n")
  const token = `hallucinated_${(c.pick * 7919 + c.seed) % 100_000}`
  let variant: string
  if (kind === 0) {
    const at = 1 + (c.at % lines.length)
    lines.splice(at, 0, `${indentOf(lines[at - 1]!)}${token}();`)
    variant = "extra_line"
  } else if (kind === 1) {
    const k = window.lines.findIndex((line) => /[A-Za-z]{3,}/.test(line))
    if (k === -1) return undefined
    lines[k] = lines[k]!.replace(/[A-Za-z]{3,}/, (word) => `${word}_${token}`)
    variant = "changed_line"
  } else {
    // Drop a middle non-blank line that is not the window's only distinctive one.
    const middle = lines.flatMap((line, j) => (j > 0 && j < lines.length - 1 && !isBlank(line) ? [j] : []))
    const key = (line: string | undefined) => foldLookalikes(line ?? "").trim()
    // A line equal to a neighbour would leave a needle the file still has.
    const j = choose(middle.filter((m) => key(lines[m]) !== key(lines[m - 1]) && key(lines[m]) !== key(lines[m + 1])), c.at)
    if (j === undefined) return undefined
    lines.splice(j, 1)
    if (!lines.some((line) => source.distinct(window.start + window.lines.indexOf(line)))) return undefined
    variant = "dropped_line"
  }
  if (source.text.includes(lines.join("\n"))) return undefined
  return mustRefuse("hallucinated_lines", variant, source.text, { old_string: lines.join("\n"), new_string: edited },
    "old_string holds a line the file does not have (or lacks one it has)")
}

/** The builder of every family. @category constructors */
export const BUILDERS: Readonly<Record<Family, Builder>> = {
  curly_quotes: curlyQuotesFamily,
  dashes: dashesFamily,
  unicode_spaces: unicodeSpacesFamily,
  trailing_whitespace: trailingWhitespaceFamily,
  crlf: crlfFamily,
  missing_final_newline: missingFinalNewlineFamily,
  indentation_drift: indentationDriftFamily,
  over_escaping: overEscapingFamily,
  encoding: encodingFamily,
  ambiguous_duplicates: ambiguousFamily,
  hallucinated_lines: hallucinatedFamily
}
