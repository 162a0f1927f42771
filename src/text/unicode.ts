/**
 * Character classes used by the edit matching ladder.
 *
 * The unicode equivalence map folds typographic look-alikes (dashes, curly quotes, exotic spaces)
 * onto their ASCII forms. It is used only to compare text, never to write it: every mapping is
 * one UTF-16 code unit to one code unit, so an offset in the folded text is the same offset in
 * the original.
 *
 * @since 0.1.0
 */

/** The look-alike → ASCII folding table (matching only, never writing). */
export const UNICODE_EQUIVALENTS: Readonly<Record<string, string>> = {
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u201C": "\"",
  "\u201D": "\"",
  "\u201E": "\"",
  "\u201F": "\"",
  "\u00A0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2004": " ",
  "\u2005": " ",
  "\u2006": " ",
  "\u2007": " ",
  "\u2008": " ",
  "\u2009": " ",
  "\u200A": " ",
  "\u202F": " ",
  "\u205F": " ",
  "\u3000": " "
}

const EQUIVALENT_CLASS = "[\\u2010-\\u2015\\u2212\\u2018-\\u201F\\u00A0\\u2002-\\u200A\\u202F\\u205F\\u3000]"
const EQUIVALENT_GLOBAL = new RegExp(EQUIVALENT_CLASS, "g")
const EQUIVALENT_ANY = new RegExp(EQUIVALENT_CLASS)

const fold = (ch: string): string => UNICODE_EQUIVALENTS[ch] ?? ch

/** True when `text` holds at least one character of the equivalence map. */
export const hasUnicodeEquivalents = (text: string): boolean => EQUIVALENT_ANY.test(text)

/** Folds look-alikes to ASCII; the result has exactly the same length as the input. */
export const normalizeUnicode = (text: string): string =>
  hasUnicodeEquivalents(text) ? text.replace(EQUIVALENT_GLOBAL, fold) : text

/**
 * True for exactly the UTF-16 code units `String.prototype.trimEnd` removes
 * (ECMAScript WhiteSpace and LineTerminator).
 */
export const isJsWhitespace = (c: number): boolean =>
  c === 0x20 ||
  (c >= 0x09 && c <= 0x0d) ||
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/** True for the two characters that make up indentation: space and tab. */
export const isIndentChar = (c: number): boolean => c === 0x20 || c === 0x09

const NBSP_UTF8 = Uint8Array.of(0xc2, 0xa0)
const IDEOGRAPHIC_SPACE_UTF8 = Uint8Array.of(0xe3, 0x80, 0x80)

/**
 * True when UTF-8 bytes certainly encode none of the look-alike characters: no U+00A0 (`C2 A0`),
 * no U+3000 (`E3 80 80`) and no `E2` lead byte (every other look-alike is U+2002–U+2212). Three
 * native byte searches, instead of a scan of the decoded text; `false` only means "maybe".
 */
export const utf8HasNoLookalikes = (bytes: Uint8Array): boolean => {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)
  return b.indexOf(0xe2) === -1 && b.indexOf(NBSP_UTF8) === -1 && b.indexOf(IDEOGRAPHIC_SPACE_UTF8) === -1
}
