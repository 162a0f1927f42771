/**
 * Paging of text files for read_file (reference §5.3): a window of lines, each `trimEnd()`-ed,
 * within a character budget; the line that would overflow is cut and reading stops.
 *
 * Small files are decoded whole, with an exact line count. Files of 10 MB and more are streamed
 * through the decoder and reading stops once the window is full: showing the first page of a
 * 50 MB file reads only the blocks that page needs, and the total is then a lower bound ("at
 * least N", as in the reference), exact only when the window reached the end of the file.
 *
 * @since 0.1.0
 */
import iconv from "iconv-lite"
import * as Effect from "effect/Effect"
import {
  bomBytes,
  decodeText,
  DETECTION_SAMPLE_BYTES,
  detectBom,
  detectEncoding,
  detectUtf16WithoutBom
} from "../text/codec.js"

/** Marker appended to a line cut by the character budget. @category constants */
export const LINE_CUT_MARKER = "... [truncated]"

/** Files at least this large are streamed instead of decoded whole (10 MB). @category constants */
export const STREAM_THRESHOLD_BYTES = 10 * 1024 * 1024

/** Shortest prefix kept of a line cut by the budget. @category constants */
export const MIN_CUT_CHARS = 10

/** One page of a text file. @category models */
export interface TextPage {
  /** The shown lines joined by `\n`. */
  readonly content: string
  /** 1-based first and last line shown (`end < start` when nothing was shown). */
  readonly start: number
  readonly end: number
  /** Lines in the file; when `totalKnown` is false, the lines seen so far (a lower bound). */
  readonly total: number
  /** Whether `total` is the file's line count (a streamed page stops reading once it is full). */
  readonly totalKnown: boolean
  /** The last shown line was cut by the character budget. */
  readonly cut: boolean
  /** Anything of the file is not shown (offset, window, or cut). */
  readonly truncated: boolean
  /** The file's encoding (iconv-lite name). */
  readonly encoding: string
}

/** Window options: 0-based `offset`, line `limit`, character `charLimit`. @category models */
export interface PageOptions {
  readonly offset: number
  readonly limit: number
  readonly charLimit: number
}

/** Accumulates lines of a window under the character budget. */
class Window {
  readonly lines: Array<string> = []
  used = 0
  cut = false
  constructor(readonly limit: number, readonly charLimit: number) {}
  /** Adds a line; false once the window is full or the budget is spent. */
  add(raw: string): boolean {
    if (this.cut || this.lines.length >= this.limit) return false
    const line = raw.trimEnd()
    const sep = this.lines.length > 0 ? 1 : 0
    if (this.used + sep + line.length > this.charLimit) {
      const keep = Math.max(this.charLimit - this.used - sep, MIN_CUT_CHARS)
      this.lines.push(line.slice(0, keep) + LINE_CUT_MARKER)
      this.cut = true
      return false
    }
    this.lines.push(line)
    this.used += sep + line.length
    return this.lines.length < this.limit
  }
}

const page = (w: Window, offset: number, total: number, encoding: string, totalKnown: boolean): TextPage => {
  const start = offset + 1
  const end = offset + w.lines.length
  return {
    content: w.lines.join("\n"),
    start,
    end,
    total,
    totalKnown,
    cut: w.cut,
    truncated: offset > 0 || end < total || w.cut || !totalKnown,
    encoding
  }
}

/** Lines of decoded text (a trailing `\n` starts no extra line). @category paging */
export const splitTextLines = (text: string): Array<string> => {
  if (text === "") return []
  const lines = text.split("\n")
  if (text.endsWith("\n")) lines.pop()
  return lines
}

/** A page of a whole file's bytes (decoded with the codec). @category paging */
export const pageBytes = (bytes: Uint8Array, options: PageOptions, legacyEncoding?: string): TextPage => {
  const decoded = decodeText(bytes, { legacyEncoding })
  const lines = splitTextLines(decoded.text)
  const w = new Window(options.limit, options.charLimit)
  for (let i = options.offset; i < lines.length && w.add(lines[i]!); i++) {
    // accumulate
  }
  return page(w, options.offset, lines.length, decoded.format.encoding, true)
}

/** First read of a streamed file (its encoding is detected on it): 64 KiB. @category constants */
export const FIRST_CHUNK_BYTES = DETECTION_SAMPLE_BYTES

/** Largest read of a streamed file: each read doubles, from the first, up to 1 MiB. @category constants */
export const MAX_CHUNK_BYTES = 1024 * 1024

/**
 * The part of a first read that encoding detection looks at. A read that stops before the end of
 * the file may stop inside a character, which would look like a stray byte (turning UTF-8 or GBK
 * into a legacy single-byte guess), so it is cut after its last line break — a `\n` byte is never
 * part of a multi-byte character in the ASCII-compatible encodings — or, with no line break, before
 * a cut UTF-8 sequence. UTF-16/32 samples (by BOM or shape) are left whole.
 */
const detectionSample = (sample: Uint8Array): Uint8Array => {
  const bom = detectBom(sample)
  if ((bom !== undefined && bom.encoding !== "utf-8") || detectUtf16WithoutBom(sample) !== undefined) return sample
  const lastBreak = sample.lastIndexOf(0x0a)
  return lastBreak > 0 ? sample.subarray(0, lastBreak + 1) : withoutCutSequence(sample)
}

/** The sample without a UTF-8 sequence cut at its end, when that sequence is well formed so far. */
const withoutCutSequence = (sample: Uint8Array): Uint8Array => {
  for (let back = 1; back <= 3 && back <= sample.length; back++) {
    const b = sample[sample.length - back]!
    if ((b & 0xc0) === 0x80) continue
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1
    return need > back ? sample.subarray(0, sample.length - back) : sample
  }
  return sample
}

/**
 * A page of a large file, streamed: decoded chunk by chunk (the file's first bytes, then reads
 * doubling from 128 KiB to 1 MiB) until the window is full, and no further — the rest of the file
 * is neither read nor counted, so the total is exact only when the window reached the end of the
 * file (`totalKnown`); otherwise it is the lines seen so far, a lower bound.
 *
 * `first` holds the file's first `min(size, FIRST_CHUNK_BYTES)` bytes (fewer if it shrank);
 * `readMore(position, length)` reads on (an empty result ends the file).
 * @category paging
 */
export const pageStream = <E, R>(
  first: Uint8Array,
  size: number,
  options: PageOptions,
  readMore: (position: number, length: number) => Effect.Effect<Uint8Array, E, R>,
  legacyEncoding?: string
): Effect.Effect<TextPage, E, R> =>
  Effect.gen(function*() {
    const sample = first
    const firstRead = first.length
    const { encoding, bom } = detectEncoding(firstRead < size ? detectionSample(sample) : sample, { legacyEncoding })
    const decoder = encoding === "utf-8" ? undefined : iconv.getDecoder(encoding, { stripBOM: false })
    const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })
    const decode = (chunk: Uint8Array, last: boolean) =>
      decoder === undefined ? utf8.decode(chunk, { stream: !last }) : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)) + (last ? decoder.end() ?? "" : "")
    const w = new Window(options.limit, options.charLimit)
    let chunk: Uint8Array = sample.subarray(bom ? bomBytes(encoding).length : 0)
    let position = firstRead
    let chunkBytes = FIRST_CHUNK_BYTES
    let lineNo = 0
    let pending = ""
    let collecting = true
    for (;;) {
      const last = position >= size || chunk.length === 0
      const text = pending + decode(chunk, last)
      const parts = text.split("\n")
      pending = parts.pop() ?? ""
      for (const line of parts) {
        if (collecting && lineNo >= options.offset) collecting = w.add(line)
        lineNo++
      }
      if (last || !collecting) break
      chunkBytes = Math.min(chunkBytes * 2, MAX_CHUNK_BYTES)
      chunk = yield* readMore(position, Math.min(chunkBytes, size - position))
      position += chunk.length
    }
    if (!collecting && position < size) {
      // Stopped early: at least one more line follows (the rest of the pending one, or the unread bytes).
      return page(w, options.offset, lineNo + 1, encoding, false)
    }
    if (pending !== "") {
      if (collecting && lineNo >= options.offset) w.add(pending)
      lineNo++
    }
    return page(w, options.offset, lineNo, encoding, true)
  })
