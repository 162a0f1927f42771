/**
 * The bytes of a changed file without re-encoding or copying what did not change.
 *
 * @since 0.1.0
 */
import { type ChangeView, countBreaks } from "./change.js"
import { bomBytes, encodeText, fromLf, type TextFormat } from "./codec.js"

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff

/** Whether joining `text` at `offset` could pair two surrogates (NaN outside the text is no surrogate). */
const splitsPair = (text: string, offset: number): boolean =>
  isHighSurrogate(text.charCodeAt(offset - 1)) || isLowSurrogate(text.charCodeAt(offset))

/**
 * The bytes of a file after a change of its decoded text: the file's own bytes before and after
 * the changed range, and only the replacement encoded — as chunks to write in order, so a 50 MB
 * file is neither re-encoded nor copied. Equal to `encodeText(view.newText(), format)`; formats
 * where byte offsets are not cheap to find (anything but UTF-8 without carried stray bytes) and
 * ranges that cut a surrogate pair are encoded whole.
 * @category encoding
 */
export const encodeChange = (bytes: Uint8Array, view: ChangeView, format: TextFormat): ReadonlyArray<Uint8Array> => {
  const text = view.oldText
  const { start, end, replacement } = view.change
  const pairs = splitsPair(text, start) || splitsPair(text, end) ||
    isLowSurrogate(replacement.charCodeAt(0)) || isHighSurrogate(replacement.charCodeAt(replacement.length - 1))
  if (format.encoding !== "utf-8" || format.escapedBytes || pairs) return [encodeText(view.newText(), format)]
  const crlf = format.lineEnding === "crlf"
  const bom = format.bom ? bomBytes("utf-8").length : 0
  const from = bom + Buffer.byteLength(text.slice(0, start), "utf8") + (crlf ? view.breaksBeforeStart() : 0)
  const to = from + Buffer.byteLength(text.slice(start, end), "utf8") + (crlf ? countBreaks(text, start, end) : 0)
  const middle = Buffer.from(fromLf(replacement, format.lineEnding), "utf8")
  return [bytes.subarray(0, from), middle, bytes.subarray(to)]
}
