/**
 * The edit case: a file, the edit request a model sent for it, and what a careful edit tool must
 * make of it (the intended file after, or a refusal). Text is held as strings; the file's bytes
 * (BOM, legacy encodings) are derived from them by {@link beforeBytes} and {@link intendedBytes}.
 *
 * @since 0.1.0
 */
import iconv from "iconv-lite"

/** The perturbation families: each is one way models get `old_string` (or the file) wrong. @category models */
export const FAMILIES = [
  "curly_quotes",
  "dashes",
  "unicode_spaces",
  "trailing_whitespace",
  "crlf",
  "missing_final_newline",
  "indentation_drift",
  "over_escaping",
  "encoding",
  "ambiguous_duplicates",
  "hallucinated_lines"
] as const

/** One perturbation family. @category models */
export type Family = (typeof FAMILIES)[number]

/**
 * How the file's text is stored: `utf-8`, `utf-8-bom`, `utf-16le-bom`, or a legacy single/double
 * byte encoding (`windows-1252`, `gbk`). @category models
 */
export type CaseEncoding = "utf-8" | "utf-8-bom" | "utf-16le-bom" | "windows-1252" | "gbk"

/** The edit a model sent, in the reference's parameter names. @category models */
export interface EditRequest {
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean
}

/** What must happen: the file becomes `after`, or the tool must refuse (and say `why`). @category models */
export type Intended =
  | { readonly _tag: "After"; readonly after: string }
  | { readonly _tag: "MustRefuse"; readonly why: string }

/**
 * One generated edit case.
 *
 * `before` and an intended `after` are the file's exact text (line breaks as in the file, `\r\n`
 * for a CRLF file; no BOM character): compare them with what a string-level edit function returns.
 * An edit tool that works on files writes {@link beforeBytes} and compares the bytes it leaves
 * with {@link intendedBytes}.
 * @category models
 */
export interface EditCase {
  readonly family: Family
  /** A finer name within the family (e.g. `em_dash_for_double_hyphen`); known failures are listed by `family/variant`. */
  readonly variant: string
  readonly encoding: CaseEncoding
  readonly before: string
  readonly request: EditRequest
  readonly intended: Intended
}

const BOM_UTF8 = Uint8Array.of(0xef, 0xbb, 0xbf)
const BOM_UTF16LE = Uint8Array.of(0xff, 0xfe)

/** The bytes of `text` stored in `encoding` (with its byte order mark where it has one). @category encoding */
export const encodeText = (text: string, encoding: CaseEncoding): Uint8Array => {
  switch (encoding) {
    case "utf-8":
      return new Uint8Array(Buffer.from(text, "utf8"))
    case "utf-8-bom":
      return new Uint8Array(Buffer.concat([BOM_UTF8, Buffer.from(text, "utf8")]))
    case "utf-16le-bom":
      return new Uint8Array(Buffer.concat([BOM_UTF16LE, iconv.encode(text, "utf-16le")]))
    case "windows-1252":
    case "gbk":
      return new Uint8Array(iconv.encode(text, encoding))
  }
}

/** True when `text` survives a round trip through `encoding` (legacy encodings cannot hold every character). @category encoding */
export const representable = (text: string, encoding: CaseEncoding): boolean =>
  encoding === "windows-1252" || encoding === "gbk"
    ? iconv.decode(Buffer.from(iconv.encode(text, encoding)), encoding) === text
    : true

/** The file's bytes before the edit. @category encoding */
export const beforeBytes = (c: EditCase): Uint8Array => encodeText(c.before, c.encoding)

/** The file's intended bytes after the edit, or `undefined` when the case must be refused. @category encoding */
export const intendedBytes = (c: EditCase): Uint8Array | undefined =>
  c.intended._tag === "After" ? encodeText(c.intended.after, c.encoding) : undefined

/** `family/variant`, the key of a case's kind (as listed in known-failure tables). @category models */
export const caseKind = (c: Pick<EditCase, "family" | "variant">): string => `${c.family}/${c.variant}`
