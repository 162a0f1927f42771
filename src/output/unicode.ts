/**
 * UTF-16 slicing that never splits a surrogate pair: a cut that would leave half of an astral
 * character (emoji, CJK extension B, …) drops that half instead, so the result may be one code
 * unit shorter than asked.
 *
 * @since 0.1.0
 */

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/** The first `units` UTF-16 code units of `text`, minus a trailing lone high surrogate. @category slicing */
export const takeStart = (text: string, units: number): string => {
  let end = Math.min(Math.max(0, Math.floor(units)), text.length)
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--
  return text.slice(0, end)
}

/** The last `units` UTF-16 code units of `text`, minus a leading lone low surrogate. @category slicing */
export const takeEnd = (text: string, units: number): string => {
  const wanted = Math.min(Math.max(0, Math.floor(units)), text.length)
  if (wanted === 0) return ""
  let start = text.length - wanted
  if (start > 0 && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start++
  return text.slice(start)
}
