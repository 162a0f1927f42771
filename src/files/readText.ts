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
  detectBom,
  detectEncoding,
  DETECTION_SAMPLE_BYTES,
  detectUtf16WithoutBom,
  isJsWhitespace
} from "../text/index.js"

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

/**
 * Accumulates lines of a window under the character budget, as the text it shows: pieces appended
 * to `out` (lines joined by `\n`), which a streamed page takes as it goes ({@link Window.take}).
 * A line may arrive in pieces (a streamed line can be longer than any read): only its first
 * `max(room, MIN_CUT_CHARS)` characters are shown, written out as soon as they are known to be
 * shown (trailing whitespace waits for the next non-whitespace character, up to that prefix), and
 * the line is cut as soon as its text without trailing whitespace is known to overflow — so a line
 * of any length costs memory bounded by the page and time linear in the part read.
 */
class Window {
  /** Lines pushed (shown, whole or cut). */
  count = 0
  used = 0
  cut = false
  /** Shown text not yet taken. */
  out: Array<string> = []
  /** Characters of the current line written out, and its whitespace run waiting to be. */
  private shown = 0
  private pending = ""
  /** Characters of the line being added so far, and their length without trailing whitespace. */
  private length = 0
  private trimmed = 0
  /** `numberFrom`: prefix each line with its 1-based number, `cat -n` style, starting there. */
  constructor(readonly limit: number, readonly charLimit: number, readonly numberFrom?: number) {}
  /** Characters the next line may take (a `\n` separates it from the previous one). */
  private get room(): number {
    return this.charLimit - this.used - (this.count > 0 ? 1 : 0)
  }
  /** The kept prefix of a cut line: the room, at least MIN_CUT_CHARS. */
  private get keep(): number {
    return Math.max(this.room, MIN_CUT_CHARS)
  }
  /** Whether the window takes no more lines. */
  get full(): boolean {
    return this.cut || this.count >= this.limit
  }
  /** The shown text written since the last take. */
  take(): string {
    const text = this.out.join("")
    this.out = []
    return text
  }
  private startLine(): void {
    if (this.count > 0) this.out.push("\n")
    if (this.numberFrom !== undefined) this.out.push(`${String(this.numberFrom + this.count).padStart(6)}\t`)
  }
  /** Adds a piece (no `\n` in it) of the current line; false once that line is cut (the window is then full). */
  append(piece: string): boolean {
    if (piece.length === 0) return true
    const keep = this.keep
    if (this.length === 0) this.startLine()
    let last = piece.length
    while (last > 0 && isJsWhitespace(piece.charCodeAt(last - 1))) last--
    if (last > 0) {
      this.trimmed = this.length + last
      if (this.shown < keep) {
        // The waiting whitespace is followed by text now: it is shown, and so is this piece up to `keep`.
        if (this.pending !== "") this.out.push(this.pending)
        if (keep > this.length) this.out.push(piece.slice(0, Math.min(last, keep - this.length)))
        this.shown = Math.min(this.trimmed, keep)
        this.pending = ""
      }
    }
    if (this.shown < keep) {
      const from = Math.max(last, this.shown - this.length)
      const upTo = Math.min(piece.length, keep - this.length)
      if (upTo > from) this.pending += piece.slice(from, upTo)
    }
    this.length += piece.length
    // Cut once the overflow is certain and the shown prefix can no longer change.
    if (this.trimmed > this.room && this.trimmed >= keep) return this.cutLine()
    return true
  }
  /** Ends the current line; false once the window is full. */
  endLine(): boolean {
    if (this.length === 0) this.startLine()
    if (this.trimmed > this.room) return this.cutLine()
    this.used += (this.count > 0 ? 1 : 0) + this.trimmed
    this.count++
    this.reset()
    return this.count < this.limit
  }
  /** Adds a whole line; false once the window is full or the budget is spent. */
  add(raw: string): boolean {
    return this.append(raw) && this.endLine()
  }
  private cutLine(): false {
    this.out.push(LINE_CUT_MARKER)
    this.count++
    this.cut = true
    this.reset()
    return false
  }
  private reset(): void {
    this.shown = 0
    this.pending = ""
    this.length = 0
    this.trimmed = 0
  }
}

const page = (w: Window, offset: number, total: number, encoding: string, totalKnown: boolean): TextPage => {
  const start = offset + 1
  const end = offset + w.count
  return {
    content: w.take(),
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

/** Number of `\n` in `text` from `from` on. */
const countBreaks = (text: string, from: number): number => {
  let count = 0
  for (let at = text.indexOf("\n", from); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

/** What a {@link PageScan} needs next: the page is done, or the next read (`length` bytes at `position`). */
export type ScanStep =
  | { readonly _tag: "Done"; readonly page: TextPage }
  | { readonly _tag: "Read"; readonly position: number; readonly length: number }

/**
 * A page of a large file, scanned read by read: the file's first bytes, then reads doubling from
 * 128 KiB to 1 MiB, until the window is full, and no further — the rest of the file is neither read
 * nor counted, so the total is exact only when the window reached the end of the file
 * (`totalKnown`); otherwise it is the lines seen so far, a lower bound.
 *
 * Lines are never assembled whole: each decoded chunk is scanned for line breaks, lines before the
 * offset are only counted, and a line in the window is fed to it piece by piece, so a single line
 * of hundreds of megabytes costs time linear in the bytes read and memory bounded by the page and
 * the largest read (a line cut by the budget stops the reading there). The shown text is the
 * window's: {@link PageScan.take} takes what was shown so far (a page streamed as it is read);
 * otherwise the finished page holds it all.
 *
 * `first` holds the file's first `min(size, FIRST_CHUNK_BYTES)` bytes (fewer if it shrank). Each
 * {@link PageScan.step} decodes the bytes given last and says what it needs next; {@link
 * PageScan.supply} gives the next read (an empty one ends the file). Each read is decoded before
 * the next is asked for, so the reader may reuse one buffer.
 *
 * @category paging
 */
export class PageScan {
  private readonly decode: (chunk: Uint8Array, last: boolean) => string
  private readonly breaksAreBytes: boolean
  /** The file's encoding (iconv-lite name), detected on its first bytes. */
  readonly encoding: string
  private readonly w: Window
  private chunk: Uint8Array
  private position: number
  private chunkBytes = FIRST_CHUNK_BYTES
  /** Line breaks seen: the 0-based number of the current line. */
  private lineNo = 0
  /** Whether the current line has any character yet (a final line without a break counts only then). */
  private lineOpen = false

  constructor(
    first: Uint8Array,
    private readonly size: number,
    private readonly options: PageOptions,
    legacyEncoding?: string,
    /** Number the shown lines, `cat -n` style (a streamed page cannot number them afterwards). */
    lineNumbers?: boolean,
    /** The largest read asked for. */
    private readonly maxChunkBytes = MAX_CHUNK_BYTES
  ) {
    const { encoding, bom } = detectEncoding(first.length < size ? detectionSample(first) : first, { legacyEncoding })
    const decoder = encoding === "utf-8" ? undefined : iconv.getDecoder(encoding, { stripBOM: false })
    const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })
    this.decode = (chunk, last) =>
      decoder === undefined
        ? utf8.decode(chunk, { stream: !last })
        : decoder.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length)) + (last ? decoder.end() ?? "" : "")
    // In every encoding but UTF-16/32 a 0x0a byte is a line break and never part of a character.
    this.breaksAreBytes = !/^utf-?(16|32)/i.test(encoding)
    this.encoding = encoding
    this.w = new Window(options.limit, options.charLimit, lineNumbers === true ? options.offset + 1 : undefined)
    this.chunk = first.subarray(bom ? bomBytes(encoding).length : 0)
    this.position = first.length
  }

  /** The shown text since the last take. */
  take(): string {
    return this.w.take()
  }

  /** The next read, as asked for by the last step. */
  supply(chunk: Uint8Array): void {
    this.chunk = chunk
    this.position += chunk.length
  }

  /** Decodes the bytes given last into the window. */
  step(): ScanStep {
    const { options, w } = this
    const last = this.position >= this.size || this.chunk.length === 0
    let bytes = this.chunk
    if (this.breaksAreBytes && this.lineNo < options.offset) {
      // Lines before the offset are counted on the bytes, never decoded (nothing is fed to the decoder before the offset).
      let from = 0
      for (let at = bytes.indexOf(0x0a); at !== -1 && this.lineNo < options.offset; at = bytes.indexOf(0x0a, from)) {
        this.lineNo++
        from = at + 1
      }
      if (from > 0) this.lineOpen = false
      if (this.lineNo < options.offset) {
        if (from < bytes.length) this.lineOpen = true
        bytes = bytes.subarray(bytes.length)
      } else {
        bytes = bytes.subarray(from)
      }
    }
    const text = this.decode(bytes, last)
    let from = 0
    while (from < text.length) {
      const lineBreak = text.indexOf("\n", from)
      const stop = lineBreak === -1 ? text.length : lineBreak
      if (stop > from) this.lineOpen = true
      const inWindow = this.lineNo >= options.offset
      if (inWindow && stop > from && !w.append(text.slice(from, stop))) break
      if (lineBreak === -1) {
        from = text.length
        break
      }
      if (inWindow && !w.endLine()) {
        from = lineBreak
        break
      }
      this.lineNo++
      this.lineOpen = false
      from = lineBreak + 1
    }
    if (w.full) {
      // The window filled inside this text: count the line breaks left in it, as the page stops here.
      const rest = countBreaks(text, from)
      const seen = this.lineNo + rest
      if (!last) return { _tag: "Done", page: page(w, options.offset, seen + 1, this.encoding, false) }
      const lastBreak = text.lastIndexOf("\n")
      const tailOpen = rest === 0 ? this.lineOpen : lastBreak < text.length - 1
      return { _tag: "Done", page: page(w, options.offset, seen + (tailOpen ? 1 : 0), this.encoding, true) }
    }
    if (!last) {
      this.chunkBytes = Math.min(this.chunkBytes * 2, this.maxChunkBytes)
      return { _tag: "Read", position: this.position, length: Math.min(this.chunkBytes, this.size - this.position) }
    }
    if (this.lineOpen) {
      if (this.lineNo >= options.offset) w.endLine()
      this.lineNo++
    }
    return { _tag: "Done", page: page(w, options.offset, this.lineNo, this.encoding, true) }
  }
}

/**
 * A page of a large file, streamed through a {@link PageScan}: `readMore(position, length)` reads
 * on (an empty result ends the file); each result is decoded before the next read.
 *
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
    const scan = new PageScan(first, size, options, legacyEncoding)
    for (;;) {
      const next = scan.step()
      if (next._tag === "Done") return next.page
      scan.supply(yield* readMore(next.position, next.length))
    }
  })
