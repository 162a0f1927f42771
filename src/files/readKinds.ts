/**
 * What read_file returns for each kind of file: text pages, media parts, PDFs, SVG, notebooks and
 * binaries, with the size limits of reference §5.3.
 *
 * @since 0.1.0
 */
import type { Stats } from "node:fs"
import type * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { LineRange } from "../session/index.js"
import { decodeText } from "../text/index.js"
import {
  failureReason,
  FileTooLarge,
  InvalidToolParams,
  type LlmPart,
  type PermissionDenied,
  ReadContentFailure,
  readRefusal,
  text,
  type ToolOutputStream
} from "../tool/index.js"
import { parseNotebook, renderNotebook } from "./notebook.js"
import { countPdfPages, extractPdfPages, parsePages } from "./pdf.js"
import { FIRST_CHUNK_BYTES, MAX_CHUNK_BYTES, pageBytes, PageScan, pageStream, STREAM_THRESHOLD_BYTES, type TextPage } from "./readText.js"
import type { FileKind } from "./sniff.js"

const MB = 1024 * 1024

/** Largest image/audio/video (and notebook) returned (9.9 MB). @category constants */
export const MAX_MEDIA_BYTES = Math.floor(9.9 * MB)

/** Largest PDF read without `pages` (100 MB). @category constants */
export const MAX_PDF_BYTES = 100 * MB

/** Largest PDF read with `pages` (512 MB). @category constants */
export const MAX_PDF_BYTES_WITH_PAGES = 512 * MB

/** Largest SVG shown as text (1 MB). @category constants */
export const MAX_SVG_BYTES = MB

/** The typed result of a read. @category models */
export interface ReadFileData {
  readonly path: string
  readonly kind: "unchanged" | "text" | "svg" | "notebook" | "pdf" | "media" | "binary"
  readonly encoding?: string
  /**
   * For text: 1-based lines shown and the file's line count — for a file of 10 MB or more read
   * only up to its page, the lines seen so far (`totalKnown: false`, "at least N").
   */
  readonly lines?: { readonly start: number; readonly end: number; readonly total: number; readonly totalKnown: boolean }
  readonly truncated?: boolean
  readonly mimeType?: string
  readonly pages?: number
}

/** What the read cache records of a read. @category models */
export interface ReadRecord {
  readonly truncated: boolean
  readonly cacheable: boolean
  /** Lines shown, for `readEvidence: "ranges"`. */
  readonly lines?: LineRange
}

/** What one read produced, and what the read cache should record. @category models */
export interface ReadOutcome {
  readonly parts: ReadonlyArray<LlmPart>
  /**
   * A page too long to hold ({@link STREAMED_PAGE_CHARS}): its text as it is read, after `parts`.
   * The read is over when the stream ends, which then calls `record` with what the page showed
   * (the fields `truncated`, `cacheable` and `lines` of this outcome only say what is known before).
   */
  readonly stream?: ((record: (read: ReadRecord) => Effect.Effect<void>) => ToolOutputStream) | undefined
  readonly display: string
  readonly data: ReadFileData
  readonly truncated: boolean
  readonly cacheable: boolean
  /** Lines shown, for `readEvidence: "ranges"`. */
  readonly lines?: LineRange
}

/** Everything one read needs. @category models */
export interface ReadRequest {
  readonly abs: string
  readonly rel: string
  /** `fstat` of {@link handle}. */
  readonly stats: Stats
  /** The file, opened once and verified to be inside the workspace: every read uses it, never the path. */
  readonly handle: fsp.FileHandle
  /** The file's first `min(size, HEAD_BYTES)` bytes, read once (fewer if it shrank). */
  readonly head: Uint8Array
  readonly kind: FileKind
  readonly offset: number
  readonly limit: number
  readonly charLimit: number
  readonly pages: Option.Option<string>
  readonly legacyEncoding: string | undefined
  /** Prefix each text line with its 1-based number, `cat -n` style. */
  readonly lineNumbers?: boolean | undefined
  /** Live progress of a streamed read: called each time another {@link READ_PROGRESS_BYTES} were read. */
  readonly onProgress?: ((bytesRead: number, size: number) => Effect.Effect<void>) | undefined
}

/** A streamed read reports its progress each time it has read this many more bytes (16 MiB). @category constants */
export const READ_PROGRESS_BYTES = 16 * 1024 * 1024

/** `cat -n`'s prefix: the 1-based line number right-aligned in 6 columns, then a tab. @category formatting */
export const numberLines = (content: string, firstLine: number): string =>
  content === "" ? content : content.split("\n").map((line, i) => `${String(firstLine + i).padStart(6)}\t${line}`).join("\n")

/** Every error a read can fail with after the stat. @category errors */
export type ReadKindError = FileTooLarge | InvalidToolParams | PermissionDenied | ReadContentFailure

const readFailure = (abs: string) => (cause: unknown): PermissionDenied | ReadContentFailure =>
  readRefusal(cause, abs) ?? new ReadContentFailure({
    message: `Could not read file ${abs} (${failureReason(cause)}). Retry once; if it fails again, tell the user.`,
    display: "Error reading file"
  })

const readAll = (r: ReadRequest) => Effect.tryPromise({ try: () => r.handle.readFile(), catch: readFailure(r.abs) })

const tooLarge = (message: string) => new FileTooLarge({ message, display: message })

/** Bytes read once at the start of every read: the binary sniff, small files whole, a streamed page's first chunk. @category constants */
export const HEAD_BYTES = FIRST_CHUNK_BYTES

/**
 * Positional reads on the open handle, with progress. One buffer for every read: a page scan
 * decodes each read before asking for the next, so a scan through hundreds of megabytes leaves no
 * trail of 1 MiB buffers for the collector.
 */
const reader = (r: ReadRequest, maxBytes = MAX_CHUNK_BYTES) => {
  const buffer = Buffer.allocUnsafe(Math.min(maxBytes, r.stats.size))
  const onProgress = r.onProgress
  let reported = 0
  const read = (position: number, length: number) =>
    Effect.tryPromise({
      try: async () => {
        const { bytesRead } = await r.handle.read(buffer, 0, Math.min(length, buffer.length), position)
        return buffer.subarray(0, bytesRead)
      },
      catch: readFailure(r.abs)
    })
  const readMore = onProgress === undefined ? read : (position: number, length: number) =>
    Effect.tap(read(position, length), (bytes) => {
      const done = position + bytes.length
      if (done - reported < READ_PROGRESS_BYTES) return Effect.void
      reported = done - (done % READ_PROGRESS_BYTES)
      return onProgress(done, r.stats.size)
    })
  return readMore
}

/** A page of a file of 10 MB or more: the head first, then positional reads on the open handle if the page needs them. */
const streamPage = (r: ReadRequest): Effect.Effect<TextPage, PermissionDenied | ReadContentFailure> =>
  Effect.suspend(() => pageStream(r.head, r.stats.size, r, reader(r), r.legacyEncoding))

const pageOf = (r: ReadRequest): Effect.Effect<TextPage, PermissionDenied | ReadContentFailure> =>
  r.stats.size >= STREAM_THRESHOLD_BYTES
    ? streamPage(r)
    : r.head.length === r.stats.size
    ? Effect.sync(() => pageBytes(r.head, r, r.legacyEncoding))
    : Effect.map(readAll(r), (bytes) => pageBytes(bytes, r, r.legacyEncoding))

const textOutcome = (r: ReadRequest, page: TextPage, kind: "text" | "svg"): Effect.Effect<ReadOutcome, InvalidToolParams> => {
  const p = r.lineNumbers === true ? { ...page, content: numberLines(page.content, page.start) } : page
  if (p.totalKnown && p.total > 0 && r.offset >= p.total) {
    return Effect.fail(new InvalidToolParams({
      message: `Offset ${r.offset} is past the end of ${r.rel}, which has ${p.total} lines. Use an offset below ${p.total}.`,
      display: `Offset beyond end of file (${p.total} lines).`
    }))
  }
  const shownEnd = p.cut ? p.end - 1 : p.end
  const lines = shownEnd >= p.start ? { start: p.start, end: shownEnd } : undefined
  const data: ReadFileData = {
    path: r.abs,
    kind,
    encoding: p.encoding,
    lines: { start: p.start, end: p.end, total: p.total, totalKnown: p.totalKnown },
    truncated: p.truncated
  }
  if (!p.truncated) {
    const display = kind === "svg" ? `Read SVG as text: ${r.rel}` : ""
    return Effect.succeed({ parts: [text(p.content)], display, data, truncated: false, cacheable: true, ...(lines ? { lines } : {}) })
  }
  const more = !p.totalKnown
    ? `\n\n---\n\n[More lines follow in this ${r.stats.size}-byte file (lines past the page are not counted in files of ` +
      `10 MB or more). To read on, call read_file with offset: ${p.end}.]`
    : p.end < p.total
    ? `\n\n---\n\n[${p.total - p.end} more lines. To read on, call read_file with offset: ${p.end}.]`
    : ""
  const total = p.totalKnown ? `${p.total}` : `at least ${p.total}`
  const llm = `Showing lines ${p.start}-${p.end} of ${total} total lines.\n\n---\n\n${p.content}${more}`
  const display = `Read lines ${p.start}-${p.end} of ${total} from ${r.rel}${p.cut ? " (truncated)" : ""}`
  return Effect.succeed({ parts: [text(llm)], display, data, truncated: true, cacheable: true, ...(lines ? { lines } : {}) })
}

/**
 * Pages of text that may grow past this many chars are streamed (a file of 10 MB or more read with
 * a character budget above it): 1 Mi chars. @category constants
 */
export const STREAMED_PAGE_CHARS = 1024 * 1024

/**
 * Reads of a streamed page: 64 KiB, so that neither a read's decoded text nor the text part made of
 * it is a large object (which only a full collection frees). @category constants
 */
export const STREAMED_READ_BYTES = 64 * 1024

/** Whether a text read is streamed ({@link streamedText}). @category reading */
export const streamsPage = (r: Pick<ReadRequest, "stats" | "charLimit">): boolean =>
  r.stats.size >= STREAM_THRESHOLD_BYTES && r.charLimit > STREAMED_PAGE_CHARS

/** The last line of a streamed page: the range shown and how to read on. */
const pageTrailer = (r: ReadRequest, p: TextPage): string => {
  const total = p.totalKnown ? `${p.total}` : `at least ${p.total}`
  const more = !p.totalKnown
    ? ` More lines follow (lines past the page are not counted in files of 10 MB or more). To read on, call read_file with offset: ${p.end}.`
    : p.end < p.total
    ? ` ${p.total - p.end} more lines. To read on, call read_file with offset: ${p.end}.`
    : ""
  return `\n\n---\n\n[Shown: lines ${p.start}-${p.end} of ${total} total lines of ${r.rel}.${more}]`
}

/**
 * A text page of a large file as a stream of text parts, read by read (see {@link PageScan}): while
 * the page is under {@link STREAMED_PAGE_CHARS} its text is held, and a page that ends there is the
 * very result of a finished read. A longer page is written out as it is read: a header saying the
 * range and total follow, the text, and a trailer with them ({@link pageTrailer}), so the output
 * pipeline holds its head and tail windows and saves the rest as it arrives.
 */
const streamedText = (r: ReadRequest, kind: "text" | "svg"): ReadOutcome => {
  const scan = new PageScan(r.head, r.stats.size, r, r.legacyEncoding, r.lineNumbers, STREAMED_READ_BYTES)
  const stream = (record: (read: ReadRecord) => Effect.Effect<void>): ToolOutputStream =>
    Stream.suspend(() => {
      const readMore = reader(r, STREAMED_READ_BYTES)
      let held: Array<string> = []
      let heldChars = 0
      let open = false
      const shownLines = (p: TextPage) => {
        const end = p.cut ? p.end - 1 : p.end
        return end >= p.start ? { lines: { start: p.start, end } } : {}
      }
      return Stream.paginate(true, (_: boolean): Effect.Effect<readonly [ReadonlyArray<LlmPart>, Option.Option<boolean>], ReadKindError> =>
        Effect.gen(function*() {
          const step = scan.step()
          const piece = step._tag === "Done" ? step.page.content : scan.take()
          if (step._tag === "Read") scan.supply(yield* readMore(step.position, step.length))
          if (!open) {
            held.push(piece)
            heldChars += piece.length
            if (step._tag === "Done") {
              // Short after all: exactly a finished read (the lines are numbered already).
              const outcome = yield* textOutcome({ ...r, lineNumbers: false }, { ...step.page, content: held.join("") }, kind)
              yield* record(outcome)
              return [outcome.parts, Option.none()] as const
            }
            if (heldChars <= STREAMED_PAGE_CHARS) return [[], Option.some(true)] as const
            open = true
            const header = `Showing a long page of ${r.rel} from line ${r.offset + 1}; the lines shown and the file's line count follow the page.\n\n---\n\n`
            const first = header + held.join("")
            held = []
            heldChars = 0
            return [[text(first)], Option.some(true)] as const
          }
          if (step._tag === "Read") return [piece === "" ? [] : [text(piece)], Option.some(true)] as const
          yield* record({ truncated: step.page.truncated, cacheable: true, ...shownLines(step.page) })
          return [[text(piece + pageTrailer(r, step.page))], Option.none()] as const
        }))
    })
  return {
    parts: [],
    stream,
    display: `Read a page of ${r.rel} from line ${r.offset + 1}`,
    data: { path: r.abs, kind, encoding: scan.encoding },
    truncated: true,
    cacheable: true
  }
}

const readPdf = Effect.fnUntraced(function*(r: ReadRequest) {
  const size = r.stats.size
  const range = Option.map(r.pages, parsePages)
  if (Option.isNone(range) && size > MAX_PDF_BYTES) {
    return yield* tooLarge(`File size exceeds the 100MB limit for reading a whole PDF. Pass pages (at most 20, e.g. "1-20") to read part of it.`)
  }
  if (Option.isSome(range) && size > MAX_PDF_BYTES_WITH_PAGES) {
    return yield* tooLarge("File size exceeds the 512MB limit for PDF files.")
  }
  const bytes = yield* readAll(r)
  if (Option.isSome(range) && range.value._tag === "Range") {
    const extracted = yield* extractPdfPages(bytes, range.value.range, r.rel)
    const { first, last } = range.value.range
    const note = `PDF document ${r.rel} (${extracted.count} pages): pages ${first}-${last}, extracted as a document of ${last - first + 1} pages.`
    return {
      parts: [text(note), { type: "file", data: Buffer.from(extracted.bytes).toString("base64"), mimeType: "application/pdf" }],
      display: `Read PDF file: ${path.basename(r.abs)}, pages ${first}-${last} of ${extracted.count}`,
      data: { path: r.abs, kind: "pdf", mimeType: "application/pdf", pages: extracted.count },
      truncated: false,
      cacheable: false
    } satisfies ReadOutcome
  }
  const count = countPdfPages(bytes)
  const note = count === undefined ? `PDF document ${r.rel}.` : `PDF document ${r.rel} (${count} pages).`
  return {
    parts: [text(note), { type: "file", data: Buffer.from(bytes).toString("base64"), mimeType: "application/pdf" }],
    display: `Read PDF file: ${path.basename(r.abs)}`,
    data: { path: r.abs, kind: "pdf", mimeType: "application/pdf", ...(count !== undefined ? { pages: count } : {}) },
    truncated: false,
    cacheable: false
  } satisfies ReadOutcome
})

const readNotebook = Effect.fnUntraced(function*(r: ReadRequest) {
  if (r.stats.size > MAX_MEDIA_BYTES) return yield* tooLarge("File size exceeds the 10MB limit.")
  const bytes = yield* readAll(r)
  const decoded = decodeText(bytes, { legacyEncoding: r.legacyEncoding })
  const parsed = parseNotebook(decoded.text)
  if ("error" in parsed) {
    const p = pageBytes(bytes, r, r.legacyEncoding)
    const outcome = yield* textOutcome(r, p, "text")
    const note = `[${r.rel} is not a readable notebook: ${parsed.error}. Its raw text follows.]\n\n`
    return { ...outcome, parts: [text(note + (outcome.parts[0] as { text: string }).text)], cacheable: false }
  }
  const rendered = renderNotebook(parsed.notebook, r.rel, r.charLimit)
  return {
    parts: [text(rendered.text), ...rendered.images],
    display: `Read notebook: ${path.basename(r.abs)}${rendered.truncated ? " (truncated)" : ""}`,
    data: { path: r.abs, kind: "notebook", truncated: rendered.truncated },
    truncated: rendered.truncated,
    cacheable: false
  } satisfies ReadOutcome
})

/**
 * Reads the file as its kind says. Only text (and SVG) reads are cacheable, i.e. count as a read of
 * plain text for edit and write_file.
 * @category reading
 */
export const readByKind = (r: ReadRequest): Effect.Effect<ReadOutcome, ReadKindError> => {
  switch (r.kind._tag) {
    case "text":
      if (streamsPage(r)) return Effect.sync(() => streamedText(r, "text"))
      return Effect.flatMap(pageOf(r), (p) => textOutcome(r, p, "text"))
    case "svg":
      if (r.stats.size > MAX_SVG_BYTES) {
        return Effect.succeed({
          parts: [text(`Cannot display content of SVG file larger than 1MB: ${r.rel}`)],
          display: `Skipped large SVG file: ${r.rel}`,
          data: { path: r.abs, kind: "svg" },
          truncated: false,
          cacheable: false
        })
      }
      return Effect.flatMap(pageOf(r), (p) => textOutcome(r, p, "svg"))
    case "notebook":
      return readNotebook(r)
    case "pdf":
      return readPdf(r)
    case "binary":
      return Effect.succeed({
        parts: [text(`Cannot display content of binary file: ${r.rel}`)],
        display: `Skipped binary file: ${r.rel}`,
        data: { path: r.abs, kind: "binary" },
        truncated: false,
        cacheable: false
      })
    case "media": {
      const media = r.kind
      if (r.stats.size > MAX_MEDIA_BYTES) return Effect.fail(tooLarge("File size exceeds the 10MB limit."))
      const label = media.part === "image" ? "image" : media.part === "audio" ? "audio" : "video"
      return Effect.map(readAll(r), (bytes): ReadOutcome => ({
        parts: [
          text(`Read ${label} file: ${r.rel} (${media.mimeType}, ${bytes.length} bytes)`),
          { type: media.part, data: Buffer.from(bytes).toString("base64"), mimeType: media.mimeType }
        ],
        display: `Read ${label} file: ${path.basename(r.abs)}`,
        data: { path: r.abs, kind: "media", mimeType: media.mimeType },
        truncated: false,
        cacheable: false
      }))
    }
  }
}
