/**
 * Reading `rg --json` output: the matches of each file, minus binary files and files over the
 * 20 MiB cap, read lazily — `begin` and `summary` events and the `end` events of text files are
 * recognised by their first bytes and never parsed, and a match past the lines kept is only
 * counted — and stopping ripgrep once enough matches are in.
 *
 * @since 0.1.0
 */
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { decodeLossy, stripLineEnding } from "../text.js"
import { charIndexOfByte, charIndexOfUtf8Offset, isLongLine } from "./cutLine.js"
import { addRawMatch, countRawMatch, dropRawFile, makeRawMatches, pruneRawMatches, type RawMatches } from "./context.js"

/** A path or line of `rg --json`: UTF-8 `text`, or base64 `bytes`. @category models */
export interface RgField {
  readonly text?: string
  readonly bytes?: string
}

interface RgData {
  readonly path?: RgField
  readonly lines?: RgField
  readonly line_number?: number
  readonly absolute_offset?: number
  readonly binary_offset?: number | null
  readonly submatches?: ReadonlyArray<{ readonly start?: number }>
  readonly stats?: { readonly bytes_searched?: number }
}

/** Lone surrogates (never in ripgrep's `text` fields, which are valid UTF-8; checked to stay exact). */
const SURROGATE = /[\uD800-\uDFFF]/

/** A `text`/`bytes` field as the lossy UTF-8 text every backend shows. */
const fieldText = (field: RgField | undefined): string => {
  const text = field?.text
  if (text !== undefined) return SURROGATE.test(text) ? decodeLossy(Buffer.from(text, "utf8")) : text
  return decodeLossy(Buffer.from(field?.bytes ?? "", "base64"))
}

/** The line of a `lines` field without its line ending (`\n`, then one `\r`). */
const lineText = (field: RgField | undefined): string => {
  if (field?.text === undefined) return decodeLossy(stripLineEnding(Buffer.from(field?.bytes ?? "", "base64")))
  let text = fieldText(field)
  if (text.endsWith("\n")) text = text.slice(0, -1)
  return text.endsWith("\r") ? text.slice(0, -1) : text
}

/** Where the first hit of a long line starts, as a character index of its text (undefined for a short line, or when not said). */
const hitOf = (field: RgField | undefined, text: string, data: RgData): number | undefined => {
  const start = data.submatches?.[0]?.start
  if (start === undefined || !isLongLine(text)) return undefined
  return field?.text !== undefined && !SURROGATE.test(field.text)
    ? charIndexOfUtf8Offset(field.text, start)
    : charIndexOfByte(field?.text !== undefined ? Buffer.from(field.text, "utf8") : Buffer.from(field?.bytes ?? "", "base64"), start)
}

const relPath = (p: string): string => (p.startsWith("./") ? p.slice(2) : p)

/**
 * The fixed bytes of `rg --json` events, to read them without parsing. Inside a JSON string every
 * `"` is escaped, so none of these can occur inside a path or a line.
 */
const EVENT = {
  begin: Buffer.from('{"type":"begin","data":{"path":'),
  matchPath: Buffer.from('{"type":"match","data":{"path":'),
  afterMatchPath: Buffer.from('},"lines":'),
  end: Buffer.from('{"type":"end","data":{"path":'),
  textEnd: Buffer.from('"binary_offset":null'),
  bytesSearched: Buffer.from('"bytes_searched":'),
  summary: Buffer.from('{"type":"summary"')
} as const

const startsWith = (line: Buffer, prefix: Buffer): boolean =>
  line.length >= prefix.length && line.compare(prefix, 0, prefix.length, 0, prefix.length) === 0

/** The number after `key` in a line, or undefined. */
const numberAfter = (line: Buffer, key: Buffer): number | undefined => {
  const at = line.indexOf(key)
  if (at < 0) return undefined
  let n = 0
  let i = at + key.length
  for (; i < line.length && line[i]! >= 0x30 && line[i]! <= 0x39; i++) n = n * 10 + line[i]! - 0x30
  return i === at + key.length ? undefined : n
}

/** Options of {@link makeRgCollector}. @category models */
export interface RgCollectorOptions {
  /** Matching lines kept (the rest are counted). */
  readonly keep: number
  /**
   * True when ripgrep prints files in tree order (`--sort path`): the first `keep` lines are kept
   * in all. Otherwise up to `keep` lines per file are kept and trimmed to the first `keep` in tree
   * order as files end (memory stays near `keep` lines).
   */
  readonly ordered?: boolean
  /** A file's size (a `stat`), asked only when an `end` event lacks `bytes_searched`. */
  readonly fileSize: (path: RgField | undefined) => number | undefined
  /** The shared post-filter, asked once per file at its first match (default: every file). */
  readonly visible?: (rel: string) => boolean
  /**
   * Called once, when the files ended so far hold more than `keep` matching lines (ripgrep prints
   * files in tree order with `--sort path`, so the answer is complete: the caller stops ripgrep).
   */
  readonly onCapped?: () => void
}

/** What reading one `rg --json` run gathers, and the line handler that feeds it. @category models */
export interface RgCollector {
  readonly raw: RawMatches
  /** Files dropped (already removed from `raw`): a NUL byte seen, over `MAX_SEARCH_FILE_BYTES`, or hidden by the post-filter. */
  readonly dropped: Set<string>
  readonly onLine: (line: Buffer) => void
  readonly state: {
    sawSummary: boolean
    parseFailure: string | undefined
    /** Matching lines in the files whose `end` event was read. */
    committed: number
    /** True once `onCapped` was called: later lines are ignored. */
    capped: boolean
  }
}

const parseEvent = (line: Buffer): { readonly type?: string; readonly data?: RgData } | undefined => {
  try {
    return JSON.parse(line.toString("utf8")) as { readonly type?: string; readonly data?: RgData }
  } catch {
    return undefined
  }
}

/**
 * Collects the `match` events of `rg --json` output, minus the files ripgrep found a NUL byte in,
 * the files over `MAX_SEARCH_FILE_BYTES` and the files the post-filter hides.
 *
 * Each file's events are contiguous (ripgrep buffers a file's output), so the file being read is
 * known: only its first match is parsed whole while `keep` lines are already stored, and the rest
 * are counted by their first bytes. At its `end` event a text file's count is committed; past
 * `keep` committed lines, `onCapped` fires. ripgrep reads a text file whole, so an `end` event's
 * `bytes_searched` is the file's size; and a match at an offset past the cap proves the file too
 * large while it is still printing, after which its remaining `match` events are skipped
 * unparsed. `fileSize` (a `stat`) serves only when an `end` event lacks `bytes_searched`.
 * `visible` (the shared post-filter) is asked once per file, at its first match, so that work
 * overlaps ripgrep's.
 * @category parsing
 */
export const makeRgCollector = (options: RgCollectorOptions): RgCollector => {
  const { fileSize, visible = () => true, onCapped } = options
  const ordered = options.ordered !== false
  const raw = makeRawMatches(options.keep, { ordered })
  const dropped = new Set<string>()
  const state: RgCollector["state"] = { sawSummary: false, parseFailure: undefined, committed: 0, capped: false }
  /** The file whose matches are being read (not yet ended). */
  let current: string | undefined
  /** The raw `path` JSON of the file whose matches are being skipped (it is over the cap). */
  let skipping: Buffer | undefined
  const skipped = (line: Buffer): boolean => {
    if (skipping === undefined || !startsWith(line, EVENT.matchPath)) return false
    const at = EVENT.matchPath.length
    return line.length > at + skipping.length && line[at + skipping.length] === 0x2c &&
      line.compare(skipping, 0, skipping.length, at, at + skipping.length) === 0
  }
  const drop = (rel: string) => {
    dropped.add(rel)
    dropRawFile(raw, rel)
    if (current === rel) current = undefined
  }
  const commit = () => {
    if (current === undefined) return
    state.committed += raw.files.get(current)?.count ?? 0
    current = undefined
    if (!ordered && raw.stored > 2 * raw.keep) pruneRawMatches(raw)
    if (onCapped !== undefined && state.committed > raw.keep) {
      state.capped = true
      onCapped()
    }
  }
  const onMatch = (line: Buffer, data: RgData) => {
    const rel = relPath(fieldText(data.path))
    if (dropped.has(rel) || data.line_number === undefined) return
    if (!raw.files.has(rel) && !visible(rel)) {
      dropped.add(rel)
      return
    }
    if ((data.absolute_offset ?? 0) >= MAX_SEARCH_FILE_BYTES) {
      drop(rel)
      const close = startsWith(line, EVENT.matchPath) ? line.indexOf(EVENT.afterMatchPath, EVENT.matchPath.length) : -1
      if (close >= 0) skipping = Buffer.from(line.subarray(EVENT.matchPath.length, close + 1))
      return
    }
    current = rel
    const text = lineText(data.lines)
    addRawMatch(raw, rel, data.line_number, text, hitOf(data.lines, text, data))
  }
  const onLine = (line: Buffer) => {
    if (state.capped) return
    if (startsWith(line, EVENT.begin)) {
      skipping = undefined
      return
    }
    if (skipped(line)) return
    // a further match of the file being read, past the lines stored: counted, not parsed
    if (current !== undefined && (ordered ? raw.stored : raw.files.get(current)!.lines.length) >= raw.keep && startsWith(line, EVENT.matchPath)) {
      countRawMatch(raw, current)
      return
    }
    if (startsWith(line, EVENT.summary)) {
      state.sawSummary = true
      return
    }
    if (startsWith(line, EVENT.end) && line.includes(EVENT.textEnd) &&
      (numberAfter(line, EVENT.bytesSearched) ?? Infinity) <= MAX_SEARCH_FILE_BYTES) {
      commit()
      return
    }
    const event = parseEvent(line)
    if (event === undefined) state.parseFailure = line.toString("utf8").slice(0, 200)
    const data = event?.data
    if (data === undefined) return
    if (event?.type === "summary") state.sawSummary = true
    if (event?.type === "match") onMatch(line, data)
    if (event?.type === "end") {
      const binary = data.binary_offset !== null && data.binary_offset !== undefined
      const size = data.stats?.bytes_searched ?? fileSize(data.path) ?? 0
      if (binary || size > MAX_SEARCH_FILE_BYTES) drop(relPath(fieldText(data.path)))
      else commit()
    }
  }
  return { raw, dropped, onLine, state }
}
