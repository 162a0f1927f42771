/**
 * Long matching lines cut to a window around their first hit, the same on every backend: at most
 * `MAX_MATCH_LINE_CHARS` characters, starting up to `MATCH_LINE_CHARS_BEFORE_HIT` before the hit
 * (earlier when the hit is near the line's end), never splitting a surrogate pair. Where the first
 * hit starts is a property of the pattern, not of the engine (every engine's leftmost match starts
 * at the same place), so backends that report it (ripgrep's `submatches`, git grep's `--column`,
 * the JS worker) agree, and the other (system grep) has it found by the JS worker afterwards.
 *
 * @since 0.1.0
 */
import { MATCH_LINE_CHARS_BEFORE_HIT, MAX_MATCH_LINE_CHARS } from "../constants.js"
import { decodeLossy } from "../text.js"

/** A line as stored for the result: its window, and how many characters were cut on each side. @category models */
export type StoredLine = readonly [line: number, text: string, cutBefore: number, cutAfter: number]

const isHighSurrogate = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff
const isLowSurrogate = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff

/** True when a line is longer than what is shown whole (it still needs cutting when stored uncut). @category cutting */
export const isLongLine = (text: string): boolean => text.length > MAX_MATCH_LINE_CHARS

/** The line numbered `line` cut around its first hit at character `hit` (unchanged when short enough). @category cutting */
export const cutAroundHit = (line: number, text: string, hit: number): StoredLine => {
  if (text.length <= MAX_MATCH_LINE_CHARS) return [line, text, 0, 0]
  let start = Math.max(0, Math.min(hit - MATCH_LINE_CHARS_BEFORE_HIT, text.length - MAX_MATCH_LINE_CHARS))
  let end = start + MAX_MATCH_LINE_CHARS
  if (start > 0 && isLowSurrogate(text.charCodeAt(start)) && isHighSurrogate(text.charCodeAt(start - 1))) start++
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) end--
  return [line, text.slice(start, end), start, text.length - end]
}

/** The character index in valid UTF-8 `text` of the byte at `byteOffset` of its encoding. @category cutting */
export const charIndexOfUtf8Offset = (text: string, byteOffset: number): number => {
  let bytes = 0
  let i = 0
  while (i < text.length && bytes < byteOffset) {
    const unit = text.charCodeAt(i)
    if (unit < 0x80) bytes += 1
    else if (unit < 0x800) bytes += 2
    else if (isHighSurrogate(unit) && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4
      i++
    } else bytes += 3
    i++
  }
  return i
}

/** The character index, in the lossy decoding of `bytes`, of the byte at `byteOffset`. @category cutting */
export const charIndexOfByte = (bytes: Uint8Array, byteOffset: number): number =>
  decodeLossy(bytes.subarray(0, Math.max(0, byteOffset))).length

/** The marker a cut side shows: `[…N chars cut]` before the window, `[N chars cut…]` after it. @category cutting */
export const cutMarker = (side: "before" | "after", chars: number): string =>
  chars === 0 ? "" : side === "before" ? `[…${chars} chars cut]` : `[${chars} chars cut…]`
