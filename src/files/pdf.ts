/**
 * PDF page ranges for read_file: parsing and validating `pages` (reference §5.2) and counting a
 * document's pages when its page tree is readable without decompression.
 *
 * @since 0.1.0
 */

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
