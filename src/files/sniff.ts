/**
 * What kind of file read_file is looking at: text, SVG, notebook, image, audio, video, PDF or
 * other binary — by extension first, then by content.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import { detectBom, detectUtf16WithoutBom } from "../text/index.js"

/** A file's kind, with the MIME type of media kinds. @category models */
export type FileKind =
  | { readonly _tag: "text" }
  | { readonly _tag: "svg" }
  | { readonly _tag: "notebook" }
  | { readonly _tag: "pdf" }
  | { readonly _tag: "media"; readonly part: "image" | "audio" | "file"; readonly mimeType: string }
  | { readonly _tag: "binary" }

/** Bytes sniffed for binary content. @category constants */
export const SNIFF_BYTES = 4096

const MEDIA: Readonly<Record<string, { readonly part: "image" | "audio" | "file"; readonly mimeType: string }>> = {
  ".png": { part: "image", mimeType: "image/png" },
  ".jpg": { part: "image", mimeType: "image/jpeg" },
  ".jpeg": { part: "image", mimeType: "image/jpeg" },
  ".gif": { part: "image", mimeType: "image/gif" },
  ".webp": { part: "image", mimeType: "image/webp" },
  ".bmp": { part: "image", mimeType: "image/bmp" },
  ".ico": { part: "image", mimeType: "image/x-icon" },
  ".tif": { part: "image", mimeType: "image/tiff" },
  ".tiff": { part: "image", mimeType: "image/tiff" },
  ".avif": { part: "image", mimeType: "image/avif" },
  ".heic": { part: "image", mimeType: "image/heic" },
  ".mp3": { part: "audio", mimeType: "audio/mpeg" },
  ".wav": { part: "audio", mimeType: "audio/wav" },
  ".ogg": { part: "audio", mimeType: "audio/ogg" },
  ".flac": { part: "audio", mimeType: "audio/flac" },
  ".m4a": { part: "audio", mimeType: "audio/mp4" },
  ".aac": { part: "audio", mimeType: "audio/aac" },
  ".aiff": { part: "audio", mimeType: "audio/aiff" },
  ".mp4": { part: "file", mimeType: "video/mp4" },
  ".webm": { part: "file", mimeType: "video/webm" },
  ".mov": { part: "file", mimeType: "video/quicktime" },
  ".mkv": { part: "file", mimeType: "video/x-matroska" },
  ".avi": { part: "file", mimeType: "video/x-msvideo" }
}

const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".zst",
  ".exe", ".dll", ".so", ".dylib", ".o", ".a", ".lib", ".obj", ".class", ".jar", ".war", ".pyc", ".pyo",
  ".wasm", ".bin", ".db", ".sqlite", ".sqlite3", ".iso", ".dmg",
  ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".odt", ".ods", ".odp",
  ".woff", ".woff2", ".ttf", ".otf", ".eot", ".psd", ".node"
])

/**
 * Whether bytes look binary: a NUL byte, or more than 30% control bytes, in the first 4 KiB —
 * unless a BOM or the UTF-16 shape says it is text.
 * @category detection
 */
export const looksBinary = (bytes: Uint8Array): boolean => {
  if (bytes.length === 0) return false
  if (detectBom(bytes) !== undefined || detectUtf16WithoutBom(bytes) !== undefined) return false
  const n = Math.min(bytes.length, SNIFF_BYTES)
  let control = 0
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!
    if (b === 0) return true
    if (b < 9 || (b > 13 && b < 32)) control++
  }
  return control / n > 0.3
}

/** The kind of `file`, from its extension and (for unknown extensions) its first bytes. @category detection */
export const fileKind = (file: string, head: Uint8Array): FileKind => {
  const ext = path.extname(file).toLowerCase()
  if (ext === ".ipynb") return { _tag: "notebook" }
  if (ext === ".svg") return { _tag: "svg" }
  if (ext === ".pdf") return { _tag: "pdf" }
  const media = MEDIA[ext]
  if (media !== undefined) return { _tag: "media", ...media }
  if (BINARY_EXTENSIONS.has(ext)) return { _tag: "binary" }
  return looksBinary(head) ? { _tag: "binary" } : { _tag: "text" }
}
