/**
 * The `<persisted-output>` stub (reference §10.3) that replaces an oversized tool result whose
 * full text was saved by the `OutputStore`, and its non-file variants. Our stub also carries the
 * SHA-256 of the full content and tells the model how to page through the file with `read_file`.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import {
  DEFAULT_PREVIEW_CHARS,
  PERSISTED_OUTPUT_CLOSE_TAG,
  PERSISTED_OUTPUT_OPEN_TAG,
  READ_FILE_TOOL_NAME,
  SHA256_LABEL
} from "./constants.js"
import type { SavedOutput } from "./truncate.js"
import { takeStart } from "./unicode.js"

/** Hex SHA-256 of the UTF-8 encoding of `text`. @category hashing */
export const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** UTF-8 byte length of `text`. @category hashing */
export const utf8Bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * The UTF-8 encoding of `text`, given its UTF-8 length. When that length equals the number of
 * UTF-16 units every unit is ASCII, so the Latin-1 encoder (a plain copy, several times faster than
 * the UTF-8 encoder here) gives the same bytes.
 *
 * @category hashing
 */
export const encodeUtf8 = (text: string, bytes: number = utf8Bytes(text)): Buffer =>
  Buffer.from(text, bytes === text.length ? "latin1" : "utf8")

const STRUCTURAL_TAGS = /<\/?(?:persisted-output|system-reminder)>/g

/** Escapes `<persisted-output>` / `<system-reminder>` tags (open or close) to `&lt;…&gt;`. @category previews */
export const escapeStructuralTags = (text: string): string =>
  text.replace(STRUCTURAL_TAGS, (tag) => `&lt;${tag.slice(1, -1)}&gt;`)

/**
 * The stub preview: the content if it has at most `previewChars` chars, else its first
 * `previewChars` chars cut back to the last newline (when there is one after position 0) plus
 * `\n...`; structural tags escaped.
 *
 * @category previews
 */
export const persistedPreview = (content: string, previewChars: number = DEFAULT_PREVIEW_CHARS): string => {
  if (content.length <= previewChars) return escapeStructuralTags(content)
  const slice = takeStart(content, previewChars)
  const lastNewline = slice.lastIndexOf("\n")
  return escapeStructuralTags((lastNewline > 0 ? slice.slice(0, lastNewline) : slice) + "\n...")
}

/** Extra facts for {@link persistedOutputStub}; computed from the content when absent. @category models */
export interface StubOptions {
  /** Preview size in chars; default 2 000. */
  readonly previewChars?: number | undefined
  /** Precomputed UTF-8 size of the content. */
  readonly bytes?: number | undefined
  /** Precomputed hex SHA-256 of the content. */
  readonly sha256?: string | undefined
}

/**
 * The text that replaces an oversized result: the `<persisted-output>` envelope when the full
 * content was saved at `saved.path`, or the unwrapped `Output too large (N KB). <note>` variant
 * when it was not (e.g. {@link NOTE_FILE_TOO_LARGE}).
 *
 * @category constructors
 */
export const persistedOutputStub = (content: string, saved: SavedOutput, options: StubOptions = {}): string => {
  const previewChars = options.previewChars ?? DEFAULT_PREVIEW_CHARS
  const kb = Math.round((options.bytes ?? utf8Bytes(content)) / 1024)
  const digest = `${SHA256_LABEL}${options.sha256 ?? sha256Hex(content)}`
  const preview = persistedPreview(content, previewChars)
  const previewHeading = `Preview (up to ${previewChars} chars):`
  if (!("path" in saved)) {
    return `Output too large (${kb} KB). ${saved.note}\n${digest}\n\n${previewHeading}\n${preview}`
  }
  return `${PERSISTED_OUTPUT_OPEN_TAG}
Output too large (${kb} KB). Full output saved to: ${saved.path}
${digest}
Note: this file may be cleaned up after 24 hours.
To read the complete output, use the ${READ_FILE_TOOL_NAME} tool with the absolute file path above.
Read it in pages with the offset and limit parameters of ${READ_FILE_TOOL_NAME} (offset = first line, 0-based; limit = number of lines), e.g. offset=0 limit=1000, then offset=1000 limit=1000.

${previewHeading}
${preview}
${PERSISTED_OUTPUT_CLOSE_TAG}`
}
