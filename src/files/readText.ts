/**
 * Paging of text files for read_file (reference §5.3): a window of lines, each `trimEnd()`-ed,
 * within a character budget; the line that would overflow is cut and reading stops.
 *
 * Small files are decoded whole; files of 10 MB and more are streamed through the decoder, only
 * the window is kept, and the remaining lines are counted from the raw bytes, so the total is
 * always exact and memory stays bounded.
 *
 * @since 0.1.0
 */
import type { FileHandle } from "node:fs/promises"
import iconv from "iconv-lite"
import * as Effect from "effect/Effect"
import { bomBytes, decodeText, DETECTION_SAMPLE_BYTES, detectEncoding } from "../text/codec.js"

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
  /** Lines in the file. */
  readonly total: number
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

const page = (w: Window, offset: number, total: number, encoding: string): TextPage => {
  const start = offset + 1
  const end = offset + w.lines.length
  return {
    content: w.lines.join("\n"),
    start,
    end,
    total,
    cut: w.cut,
    truncated: offset > 0 || end < total || w.cut,
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
  return page(w, options.offset, lines.length, decoded.format.encoding)
}

const CHUNK_BYTES = 1024 * 1024

/** Counts `\n` in bytes of an ASCII-compatible encoding (a trail byte is never 0x0A in the CJK encodings). */
const countNewlines = (chunk: Uint8Array): number => {
  let n = 0
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) n++
  return n
}

/**
 * A page of a large file, streamed: decodes chunk by chunk until the window is full, then counts
 * the remaining lines without decoding (UTF-16 files are decoded to count).
 * @category paging
 */
export const pageStream = (
  handle: FileHandle,
  size: number,
  options: PageOptions,
  legacyEncoding?: string
): Effect.Effect<TextPage, unknown> =>
  Effect.gen(function*() {
    const sample = Buffer.alloc(Math.min(size, DETECTION_SAMPLE_BYTES))
    yield* Effect.tryPromise(() => handle.read(sample, 0, sample.length, 0))
    const { encoding, bom } = detectEncoding(sample, { legacyEncoding })
    const wide = encoding.startsWith("utf-16") || encoding.startsWith("utf-32")
    const decoder = encoding === "utf-8" ? undefined : iconv.getDecoder(encoding, { stripBOM: false })
    const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })
    const decode = (chunk: Uint8Array, last: boolean) =>
      decoder === undefined ? utf8.decode(chunk, { stream: !last }) : decoder.write(Buffer.from(chunk)) + (last ? decoder.end() ?? "" : "")
    const w = new Window(options.limit, options.charLimit)
    let position = bom ? bomBytes(encoding).length : 0
    let lineNo = 0
    let pending = ""
    let collecting = true
    let counting = false
    let counted = 0
    let lastByte = -1
    const buffer = Buffer.alloc(CHUNK_BYTES)
    while (position < size) {
      const { bytesRead } = yield* Effect.tryPromise(() => handle.read(buffer, 0, Math.min(CHUNK_BYTES, size - position), position))
      if (bytesRead === 0) break
      position += bytesRead
      const chunk = buffer.subarray(0, bytesRead)
      lastByte = chunk[bytesRead - 1]!
      if (!collecting && !wide) {
        counting = true
        counted += countNewlines(chunk)
        continue
      }
      const text = pending + decode(chunk, position >= size)
      const parts = text.split("\n")
      pending = parts.pop() ?? ""
      for (const line of parts) {
        if (collecting && lineNo >= options.offset) collecting = w.add(line)
        lineNo++
      }
    }
    if (counting) {
      // The pending fragment's line ends at a counted newline, or is the final unterminated line.
      if (lastByte !== 10) counted++
    } else if (pending !== "") {
      if (collecting && lineNo >= options.offset) w.add(pending)
      lineNo++
    }
    return page(w, options.offset, lineNo + counted, encoding)
  })
