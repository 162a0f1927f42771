/**
 * PDF page ranges for read_file: parsing and validating `pages` (reference §5.2), taking those pages
 * out of the document (pdf-lib), and counting a
 * document's pages when its page tree is readable without decompression.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { InvalidToolParams, ReadContentFailure } from "../tool/index.js"

/** Most pages one read may ask for. @category constants */
export const MAX_PDF_PAGES_PER_READ = 20

/** A 1-based inclusive page range. @category models */
export interface PageRange {
  readonly first: number
  readonly last: number
}

/** `pages` parsed, or the reference's message for why it is invalid. @category models */
export type PagesResult =
  | { readonly _tag: "Unset" }
  | { readonly _tag: "Range"; readonly range: PageRange }
  | { readonly _tag: "Invalid"; readonly message: string }

/**
 * Parses `pages` (`"5"` or `"1-10"`, 1-based): blank is unset; an open-ended range, a malformed
 * one and one spanning more than 20 pages get the reference's messages.
 * @category parsing
 */
export const parsePages = (pages: string | undefined): PagesResult => {
  if (pages === undefined || pages.trim() === "") return { _tag: "Unset" }
  const text = pages.trim()
  if (/^\d+\s*-\s*$/.test(text)) {
    return {
      _tag: "Invalid",
      message: `Open-ended page ranges (e.g. '3-') are not supported; specify an explicit end page within the ` +
        `${MAX_PDF_PAGES_PER_READ}-page limit (e.g. '3-${3 + MAX_PDF_PAGES_PER_READ - 1}').`
    }
  }
  const m = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(text)
  const first = m ? Number(m[1]) : NaN
  const last = m ? Number(m[2] ?? m[1]) : NaN
  if (!m || first < 1 || last < first || !Number.isSafeInteger(last)) {
    return { _tag: "Invalid", message: `Invalid pages parameter: '${pages}'. Use formats like '5' or '1-10'.` }
  }
  if (last - first + 1 > MAX_PDF_PAGES_PER_READ) {
    return { _tag: "Invalid", message: `Pages range exceeds maximum of ${MAX_PDF_PAGES_PER_READ} pages per request.` }
  }
  return { _tag: "Range", range: { first, last } }
}

/**
 * The page count of a PDF: the largest `/Count` of a `/Type /Pages` node, else the number of
 * `/Type /Page` objects; `undefined` when the page tree is compressed (object streams).
 * @category parsing
 */
export const countPdfPages = (bytes: Uint8Array): number | undefined => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  let best: number | undefined
  for (const m of text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)) {
    const n = Number(m[1] ?? m[2])
    if (best === undefined || n > best) best = n
  }
  if (best !== undefined) return best
  const pages = text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0
  return pages > 0 ? pages : undefined
}

const firstLine = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause)).split("\n")[0]!

/**
 * A new PDF holding only `range` of `bytes` (pdf-lib, loaded on first use), and the source's page
 * count. A range past the end is `invalid_tool_params`; a document pdf-lib cannot parse (encrypted,
 * damaged) is `read_content_failure`, telling the model to read it without pages.
 * @category extracting
 */
export const extractPdfPages = Effect.fnUntraced(function*(bytes: Uint8Array, range: PageRange, name: string) {
  const { PDFDocument } = yield* Effect.promise(() => import("pdf-lib"))
  const unreadable = (cause: unknown) =>
    new ReadContentFailure({
      message: `Could not take pages ${range.first}-${range.last} out of ${name}: pdf-lib cannot parse it (${firstLine(cause)}). ` +
        `Read it without pages to get the whole document (up to 100 MB).`,
      display: `Cannot extract PDF pages: ${firstLine(cause)}`
    })
  const source = yield* Effect.tryPromise({ try: () => PDFDocument.load(bytes, { updateMetadata: false }), catch: unreadable })
  // pdf-lib throws here, not in load, on a document without a usable catalog
  const count = yield* Effect.try({ try: () => source.getPageCount(), catch: unreadable })
  if (range.last > count) {
    return yield* new InvalidToolParams({
      message: `Page range ${range.first}-${range.last} is outside ${name}, which has ${count} pages. Use pages within 1-${count}.`,
      display: `Pages beyond the end of the document (${count} pages).`
    })
  }
  const indices = Array.from({ length: range.last - range.first + 1 }, (_, i) => range.first - 1 + i)
  const extracted = yield* Effect.tryPromise({
    try: async () => {
      const out = await PDFDocument.create()
      for (const page of await out.copyPages(source, indices)) out.addPage(page)
      return out.save()
    },
    catch: unreadable
  })
  return { bytes: extracted, count }
})
