/**
 * Line splitting and decoding shared by every grep backend, so that all of them report the
 * same line text.
 *
 * A line is the bytes between two `\n`, without the `\n` and without one trailing `\r`
 * (CRLF files report clean lines). Text shown to the model is the lossy UTF-8 decoding of
 * those bytes. Text *matched* by the JS engine maps every invalid UTF-8 byte to a lone
 * surrogate (U+DC80..U+DCFF) that no emitted pattern can match, which is how ripgrep and
 * PCRE treat invalid bytes.
 *
 * @since 0.1.0
 */
import { isUtf8 } from "node:buffer"

const LF = 0x0a
const CR = 0x0d

/** Strips one trailing `\n`, then one trailing `\r`. @category text */
export const stripLineEnding = (bytes: Uint8Array): Uint8Array => {
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === LF) end--
  if (end > 0 && bytes[end - 1] === CR) end--
  return end === bytes.length ? bytes : bytes.subarray(0, end)
}

/** Lossy UTF-8 decoding (WHATWG replacement), the text every backend shows. @category text */
export const decodeLossy = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

const continuation = (b: number | undefined): boolean => b !== undefined && b >= 0x80 && b <= 0xbf

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none. */
const sequenceLength = (bytes: Uint8Array, i: number): number => {
  const b0 = bytes[i]!
  if (b0 < 0x80) return 1
  const b1 = bytes[i + 1]
  if (b0 >= 0xc2 && b0 <= 0xdf) return continuation(b1) ? 2 : 0
  if (b1 === undefined) return 0
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80
    const hi = b0 === 0xed ? 0x9f : 0xbf
    return b1 >= lo && b1 <= hi && continuation(bytes[i + 2]) ? 3 : 0
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80
    const hi = b0 === 0xf4 ? 0x8f : 0xbf
    return b1 >= lo && b1 <= hi && continuation(bytes[i + 2]) && continuation(bytes[i + 3]) ? 4 : 0
  }
  return 0
}

/** Decodes bytes for matching: invalid UTF-8 bytes become lone surrogates U+DC80..U+DCFF. @category text */
export const decodeForMatching = (bytes: Uint8Array): string => {
  if (isUtf8(bytes)) return decodeLossy(bytes)
  const parts: Array<string> = []
  let start = 0
  let i = 0
  while (i < bytes.length) {
    const n = sequenceLength(bytes, i)
    if (n > 0) {
      i += n
      continue
    }
    if (i > start) parts.push(decodeLossy(bytes.subarray(start, i)))
    parts.push(String.fromCharCode(0xdc00 + bytes[i]!))
    i++
    start = i
  }
  if (start < bytes.length) parts.push(decodeLossy(bytes.subarray(start)))
  return parts.join("")
}

/** Calls `onLine(lineNumber, matchText, displayText)` for every line of a file's bytes. @category text */
export const forEachLine = (
  bytes: Uint8Array,
  onLine: (lineNumber: number, matchText: string, displayText: string) => void
): void => {
  if (isUtf8(bytes)) {
    const text = decodeLossy(bytes)
    let start = 0
    let lineNumber = 1
    while (start < text.length) {
      const nl = text.indexOf("\n", start)
      const end = nl === -1 ? text.length : nl
      const stop = end > start && text.charCodeAt(end - 1) === CR ? end - 1 : end
      const line = text.slice(start, stop)
      onLine(lineNumber, line, line)
      lineNumber++
      start = end + 1
    }
    return
  }
  let start = 0
  let lineNumber = 1
  while (start < bytes.length) {
    const nl = bytes.indexOf(LF, start)
    const end = nl === -1 ? bytes.length : nl
    const line = stripLineEnding(bytes.subarray(start, end))
    onLine(lineNumber, decodeForMatching(line), decodeLossy(line))
    lineNumber++
    start = end + 1
  }
}

// C0 controls, DEL, C1 controls and the Unicode line/paragraph separators
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g
const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" }

/**
 * A file name as search output shows it: control characters (a newline above all) written as
 * JSON-style escapes (`\n`, `\t`, `\u001b`), so a name cannot forge an output line of its own.
 * Other characters, backslashes included, are left as they are. @category text
 */
export const escapeControlChars = (name: string): string =>
  name.replace(CONTROL_CHARS, (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
