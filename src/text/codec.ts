/**
 * The text codec of every file a tool reads or writes: which encoding, whether a BOM, which line
 * endings — detected on read, restored on write, so a round trip changes no byte the edit did not
 * touch.
 *
 * - A BOM decides (UTF-8, UTF-16LE/BE, UTF-32LE/BE). Without one: UTF-16 without BOM is recognised
 *   by its zero bytes, valid UTF-8 is UTF-8, and anything else goes to the legacy detector (GBK,
 *   GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, windows-1252, with latin1 as the lossless last resort),
 *   which only accepts an encoding whose decode → encode round trip gives the exact bytes back.
 * - A file that is UTF-8 except for a few stray bytes keeps them: each invalid byte decodes to a lone
 *   surrogate U+DC80–U+DCFF ("surrogate escape") and is written back as the same byte.
 * - Line endings: a file whose every `\n` is preceded by `\r` is `crlf` and is handled as LF text
 *   (restored on write); a file mixing both is `mixed` and is never normalised.
 *
 * @since 0.1.0
 */
import iconv from "iconv-lite"

/** How a file's bytes become text. `encoding` is an iconv-lite name (`utf-8`, `utf-16le`, `gbk`, …). @category models */
export interface TextFormat {
  readonly encoding: string
  /** The file starts with a byte order mark (kept on write). */
  readonly bom: boolean
  readonly lineEnding: LineEnding
  /** Invalid UTF-8 bytes are carried as lone surrogates U+DC80–U+DCFF (only with `utf-8`). */
  readonly escapedBytes: boolean
}

/** `lf`, `crlf` (every line break is CRLF) or `mixed` (both; kept verbatim). @category models */
export type LineEnding = "lf" | "crlf" | "mixed"

/** A decoded file: text with CRLF turned into LF when the file is uniformly CRLF, and its format. @category models */
export interface DecodedText {
  readonly text: string
  readonly format: TextFormat
}

/** Options of {@link decodeText}. @category models */
export interface DecodeOptions {
  /** Used for non-UTF-8 files instead of detection, when it round-trips the bytes exactly. */
  readonly legacyEncoding?: string | undefined
}

/** The format of a new file: UTF-8 without BOM, LF. @category constants */
export const NEW_FILE_FORMAT: TextFormat = { encoding: "utf-8", bom: false, lineEnding: "lf", escapedBytes: false }

/** Bytes of the file start that legacy detection looks at. @category constants */
export const DETECTION_SAMPLE_BYTES = 64 * 1024

const BOMS: ReadonlyArray<{ readonly encoding: string; readonly bytes: ReadonlyArray<number> }> = [
  { encoding: "utf-32le", bytes: [0xff, 0xfe, 0x00, 0x00] },
  { encoding: "utf-32be", bytes: [0x00, 0x00, 0xfe, 0xff] },
  { encoding: "utf-8", bytes: [0xef, 0xbb, 0xbf] },
  { encoding: "utf-16le", bytes: [0xff, 0xfe] },
  { encoding: "utf-16be", bytes: [0xfe, 0xff] }
]

/** The encoding announced by a byte order mark, and the mark's length. @category detection */
export const detectBom = (bytes: Uint8Array): { readonly encoding: string; readonly length: number } | undefined => {
  const bom = BOMS.find((b) => b.bytes.length <= bytes.length && b.bytes.every((v, i) => bytes[i] === v))
  return bom === undefined ? undefined : { encoding: bom.encoding, length: bom.bytes.length }
}

/** The bytes of the byte order mark of `encoding` (empty for encodings without one). @category encoding */
export const bomBytes = (encoding: string): Uint8Array =>
  Uint8Array.from(BOMS.find((b) => b.encoding === encoding)?.bytes ?? [])

/**
 * UTF-16 without BOM: at least 4 bytes, an even length, and in the sample nearly every byte at one
 * parity zero while the other parity is not (ASCII-heavy text in UTF-16).
 * @category detection
 */
export const detectUtf16WithoutBom = (bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined => {
  const n = Math.min(bytes.length, DETECTION_SAMPLE_BYTES) & ~1
  if (n < 4 || bytes.length % 2 !== 0) return undefined
  let evenZero = 0
  let oddZero = 0
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++
    if (bytes[i + 1] === 0) oddZero++
  }
  const pairs = n / 2
  if (oddZero >= pairs * 0.9 && evenZero <= pairs * 0.02) return "utf-16le"
  if (evenZero >= pairs * 0.9 && oddZero <= pairs * 0.02) return "utf-16be"
  return undefined
}

/** Length of the valid UTF-8 sequence starting at `i`, or 0 when the byte there starts none. */
const utf8SequenceLength = (b: Uint8Array, i: number): number => {
  const c = b[i]!
  if (c < 0x80) return 1
  const cont = (k: number) => i + k < b.length && (b[i + k]! & 0xc0) === 0x80
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c >= 0xe0 && c <= 0xef) {
    const c1 = b[i + 1]
    if (c1 === undefined || !cont(1) || !cont(2)) return 0
    if (c === 0xe0 && c1 < 0xa0) return 0 // overlong
    if (c === 0xed && c1 > 0x9f) return 0 // surrogates
    return 3
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const c1 = b[i + 1]
    if (c1 === undefined || !cont(1) || !cont(2) || !cont(3)) return 0
    if (c === 0xf0 && c1 < 0x90) return 0
    if (c === 0xf4 && c1 > 0x8f) return 0
    return 4
  }
  return 0
}

/** Counts valid multi-byte UTF-8 sequences and invalid bytes. @category detection */
export const utf8Validity = (bytes: Uint8Array): { readonly multibyte: number; readonly invalid: number } => {
  let multibyte = 0
  let invalid = 0
  for (let i = 0; i < bytes.length;) {
    if (bytes[i]! < 0x80) {
      i++
      continue
    }
    const n = utf8SequenceLength(bytes, i)
    if (n === 0) {
      invalid++
      i++
    } else {
      multibyte++
      i += n
    }
  }
  return { multibyte, invalid }
}

const utf8Decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true })

/** UTF-8 → text, each invalid byte becoming the lone surrogate U+DC00 + byte. @category encoding */
export const decodeUtf8Escaped = (bytes: Uint8Array): string => {
  const parts: Array<string> = []
  let runStart = 0
  for (let i = 0; i < bytes.length;) {
    if (bytes[i]! < 0x80) {
      i++
      continue
    }
    const n = utf8SequenceLength(bytes, i)
    if (n > 0) {
      i += n
      continue
    }
    parts.push(utf8Decoder.decode(bytes.subarray(runStart, i)), String.fromCharCode(0xdc00 + bytes[i]!))
    i++
    runStart = i
  }
  parts.push(utf8Decoder.decode(bytes.subarray(runStart)))
  return parts.join("")
}

const ESCAPED_BYTE = /[\udc80-\udcff]/g

/** Text → UTF-8, lone surrogates U+DC80–U+DCFF written back as the bytes they stand for. @category encoding */
export const encodeUtf8Escaped = (text: string): Uint8Array => {
  const chunks: Array<Uint8Array> = []
  let last = 0
  for (const m of text.matchAll(ESCAPED_BYTE)) {
    const at = m.index
    // A lone surrogate only: a high surrogate before it makes it half of a real pair.
    const prev = at > 0 ? text.charCodeAt(at - 1) : 0
    if (prev >= 0xd800 && prev <= 0xdbff) continue
    chunks.push(Buffer.from(text.slice(last, at), "utf8"), Uint8Array.of(text.charCodeAt(at) - 0xdc00))
    last = at + 1
  }
  chunks.push(Buffer.from(text.slice(last), "utf8"))
  return Buffer.concat(chunks)
}

/** Legacy encodings tried, in preference order for equal scores. @category constants */
export const LEGACY_CANDIDATES: ReadonlyArray<string> = [
  "gbk",
  "gb18030",
  "big5",
  "shift_jis",
  "euc-jp",
  "euc-kr",
  "windows-1252"
]

/** Whether one non-ASCII character, encoded in `encoding` as `bytes`, is a frequent one there. */
const isCommon = (encoding: string, ch: string, bytes: Uint8Array): boolean => {
  const lead = bytes[0] ?? 0
  switch (encoding) {
    case "gbk":
    case "gb18030":
      return bytes.length === 2 && ((lead >= 0xb0 && lead <= 0xd7) || (lead >= 0xa1 && lead <= 0xa9))
    case "big5":
      return bytes.length === 2 && lead >= 0xa1 && lead <= 0xc6
    case "shift_jis":
      return bytes.length === 2 && ((lead >= 0x81 && lead <= 0x83) || (lead >= 0x88 && lead <= 0x98))
    case "euc-jp":
      return bytes.length === 2 && ((lead >= 0xa1 && lead <= 0xa5) || (lead >= 0xb0 && lead <= 0xcf))
    case "euc-kr":
      return bytes.length === 2 && ((lead >= 0xb0 && lead <= 0xc8) || (lead >= 0xa1 && lead <= 0xac))
    default:
      return /[\u00c0-\u00ff\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u20ac\u00a0-\u00bf]/.test(ch)
  }
}

/** Share of the sample's non-ASCII characters that are frequent in `encoding`, or -1 if it cannot decode it. */
const scoreLegacy = (encoding: string, sample: Uint8Array, truncated: boolean): number => {
  const text = iconv.decode(Buffer.from(sample), encoding, { stripBOM: false })
  const bad = text.indexOf("\ufffd")
  // A sample cut mid-character may end in one replacement character; anything else disqualifies.
  if (bad !== -1 && !(truncated && bad >= text.length - 1)) return -1
  let nonAscii = 0
  let common = 0
  for (const ch of text) {
    if (ch.charCodeAt(0) < 0x80 || ch === "\ufffd") continue
    nonAscii++
    if (isCommon(encoding, ch, iconv.encode(ch, encoding))) common++
  }
  return nonAscii === 0 ? 0 : common / nonAscii
}

const roundTrips = (bytes: Uint8Array, encoding: string): boolean => {
  const back = iconv.encode(iconv.decode(Buffer.from(bytes), encoding, { stripBOM: false }), encoding)
  return Buffer.compare(back, Buffer.from(bytes)) === 0
}

/**
 * The legacy encoding of bytes that are not UTF-8: the candidate whose characters are most
 * frequent (judged on the first 64 KiB) among those that round-trip the whole file exactly;
 * latin1 when none does.
 * @category detection
 */
export const detectLegacyEncoding = (bytes: Uint8Array): string => {
  const truncated = bytes.length > DETECTION_SAMPLE_BYTES
  const sample = truncated ? bytes.subarray(0, DETECTION_SAMPLE_BYTES) : bytes
  const ranked = LEGACY_CANDIDATES
    .map((encoding, order) => ({ encoding, order, score: scoreLegacy(encoding, sample, truncated) }))
    .filter((c) => c.score >= 0)
    .sort((a, b) => b.score - a.score || a.order - b.order)
  return ranked.find((c) => roundTrips(bytes, c.encoding))?.encoding ?? "latin1"
}

/** `crlf` when every `\n` follows a `\r` (and there is one), `mixed` when some do, else `lf`. @category detection */
export const detectLineEnding = (text: string): LineEnding => {
  let lf = 0
  let crlf = 0
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++
    else lf++
  }
  return crlf === 0 ? "lf" : lf === 0 ? "crlf" : "mixed"
}

/** CRLF → LF. @category line endings */
export const toLf = (text: string): string => text.replaceAll("\r\n", "\n")

/** Restores `lineEnding` on LF text: for `crlf`, every `\n` (any `\r\n` first folded) becomes `\r\n`. @category line endings */
export const fromLf = (text: string, lineEnding: LineEnding): string =>
  lineEnding === "crlf" ? toLf(text).replaceAll("\n", "\r\n") : text

const decodeWith = (bytes: Uint8Array, encoding: string): string =>
  encoding === "utf-8" ? utf8Decoder.decode(bytes) : iconv.decode(Buffer.from(bytes), encoding, { stripBOM: false })

/**
 * Detects the encoding of `bytes` (BOM, UTF-16 without BOM, UTF-8, escaped UTF-8, legacy).
 * @category detection
 */
export const detectEncoding = (
  bytes: Uint8Array,
  options: DecodeOptions = {}
): { readonly encoding: string; readonly bom: boolean; readonly escapedBytes: boolean } => {
  const bom = detectBom(bytes)
  if (bom !== undefined) {
    const strays = bom.encoding === "utf-8" && utf8Validity(bytes.subarray(bom.length)).invalid > 0
    return { encoding: bom.encoding, bom: true, escapedBytes: strays }
  }
  const utf16 = detectUtf16WithoutBom(bytes)
  if (utf16 !== undefined) return { encoding: utf16, bom: false, escapedBytes: false }
  const { invalid, multibyte } = utf8Validity(bytes)
  if (invalid === 0) return { encoding: "utf-8", bom: false, escapedBytes: false }
  const legacy = options.legacyEncoding
  if (legacy !== undefined && iconv.encodingExists(legacy) && roundTrips(bytes, legacy)) {
    return { encoding: legacy, bom: false, escapedBytes: false }
  }
  // Mostly valid UTF-8 with a few stray bytes: keep UTF-8 and carry the strays.
  if (multibyte >= 4 * invalid) return { encoding: "utf-8", bom: false, escapedBytes: true }
  return { encoding: detectLegacyEncoding(bytes), bom: false, escapedBytes: false }
}

/**
 * Decodes a file: detects its format and returns its text (LF when the file is uniformly CRLF).
 * `encodeText(decoded.text, decoded.format)` gives the same bytes back.
 * @category decoding
 */
export const decodeText = (bytes: Uint8Array, options: DecodeOptions = {}): DecodedText => {
  const { encoding, bom, escapedBytes } = detectEncoding(bytes, options)
  const body = bom ? bytes.subarray(detectBom(bytes)!.length) : bytes
  const raw = escapedBytes ? decodeUtf8Escaped(body) : decodeWith(body, encoding)
  const lineEnding = detectLineEnding(raw)
  return { text: lineEnding === "crlf" ? toLf(raw) : raw, format: { encoding, bom, lineEnding, escapedBytes } }
}

/** Decodes bytes in a known format (no detection); the inverse of {@link encodeText}. @category decoding */
export const decodeAs = (bytes: Uint8Array, format: TextFormat): string => {
  const bom = format.bom ? bomBytes(format.encoding).length : 0
  const body = bytes.subarray(bom)
  const raw = format.escapedBytes ? decodeUtf8Escaped(body) : decodeWith(body, format.encoding)
  return format.lineEnding === "crlf" ? toLf(raw) : raw
}

/**
 * Encodes text in `format`: line endings restored, the BOM (if any) prepended.
 * @category encoding
 */
export const encodeText = (text: string, format: TextFormat): Uint8Array => {
  const restored = fromLf(text, format.lineEnding)
  const body = format.encoding === "utf-8"
    ? (format.escapedBytes ? encodeUtf8Escaped(restored) : Buffer.from(restored, "utf8"))
    : iconv.encode(restored, format.encoding)
  return format.bom ? Buffer.concat([bomBytes(format.encoding), body]) : body
}

/**
 * The first character of `text` that `encoding` cannot represent (it would be written as `?`),
 * with its code point, or `undefined` when every character survives.
 * @category encoding
 */
export const findUnrepresentable = (
  text: string,
  encoding: string
): { readonly char: string; readonly codePoint: string; readonly index: number } | undefined => {
  if (encoding.startsWith("utf") || encoding === "gb18030") return undefined
  if (iconv.decode(iconv.encode(text, encoding), encoding) === text) return undefined
  let index = 0
  for (const ch of text) {
    if (ch.charCodeAt(0) >= 0x80 && iconv.decode(iconv.encode(ch, encoding), encoding) !== ch) {
      const codePoint = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`
      return { char: ch, codePoint, index }
    }
    index += ch.length
  }
  return undefined
}

/** A short human name of a format: `UTF-8`, `UTF-8 with BOM`, `GBK, CRLF`. @category formatting */
export const describeFormat = (format: TextFormat): string => {
  const name = format.encoding.toUpperCase().replace("_", "-")
  const parts = [format.bom ? `${name} with BOM` : name]
  if (format.lineEnding !== "lf") parts.push(format.lineEnding === "crlf" ? "CRLF" : "mixed line endings")
  return parts.join(", ")
}
