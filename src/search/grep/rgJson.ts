/**
 * Reading `rg --json` output: the matches of each file, minus binary files and files over the
 * 20 MiB cap, read lazily — `begin` and `summary` events and the `end` events of text files are
 * recognised by their first bytes and never parsed — and the `--debug` log on stderr scanned for
 * paths a `.rgignore` hid.
 *
 * @since 0.1.0
 */
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { decodeLossy, stripLineEnding } from "../text.js"
import { addRawMatch, makeRawMatches, type RawMatches } from "./context.js"

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

const relPath = (p: string): string => (p.startsWith("./") ? p.slice(2) : p)

/** ripgrep's `--debug` line for a path a `.rgignore` rule skipped (`ignoring ./x: Ignore(… from: Some("./.rgignore") …)`). */
const RGIGNORE_HIT = /ignoring .*from: Some\(".*\.rgignore"\)/
const DEBUG_PREFIX = Buffer.from("DEBUG|")

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
  /** A file's size (a `stat`), asked only when an `end` event lacks `bytes_searched`. */
  readonly fileSize: (path: RgField | undefined) => number | undefined
  /** The shared post-filter, asked once per file at its first match (default: every file). */
  readonly visible?: (rel: string) => boolean
  /** Bytes of `--debug` log to read before `onDebugOverflow` is called once (default: no limit). */
  readonly debugBudget?: number
  readonly onDebugOverflow?: () => void
}

/** What reading one `rg --json` run gathers, and the line handlers that feed it. @category models */
export interface RgCollector {
  readonly raw: RawMatches
  /** Files to drop: a NUL byte seen, or over `MAX_SEARCH_FILE_BYTES`. */
  readonly dropped: Set<string>
  readonly onLine: (line: Buffer) => void
  readonly onStderrLine: (line: Buffer) => boolean
  readonly state: { sawSummary: boolean; parseFailure: string | undefined; rgignoreHid: boolean; debugOverflow: boolean }
}

const parseEvent = (line: Buffer): { readonly type?: string; readonly data?: RgData } | undefined => {
  try {
    return JSON.parse(line.toString("utf8")) as { readonly type?: string; readonly data?: RgData }
  } catch {
    return undefined
  }
}

/**
 * Collects the `match` events of `rg --json` output, minus the files ripgrep found a NUL byte in
 * and the files over `MAX_SEARCH_FILE_BYTES`; scans the `--debug` lines of stderr for `.rgignore`
 * hits (and drops them from the kept stderr).
 *
 * The size cap is applied here rather than with `--max-filesize`, which makes ripgrep stat every
 * file it walks (~20% of its time on a tree of small files). ripgrep reads a text file whole, so
 * an `end` event's `bytes_searched` is the file's size; and a match at an offset past the cap
 * proves the file too large while it is still printing, after which its remaining `match` events
 * (printed together, each file's events being contiguous) are recognised by their first bytes and
 * skipped unparsed. `begin` events and the `end` events of text files are never parsed.
 * `fileSize` (a `stat`) serves only when an `end` event lacks `bytes_searched`. `visible` (the
 * shared post-filter) is asked once per file, at its first match, so that work overlaps ripgrep's.
 * ripgrep writes its `--debug` log a few bytes per system call (a line per ignored path, ~60 µs
 * each): past `debugBudget` bytes, `onDebugOverflow` is called (the caller stops the search).
 * @category parsing
 */
export const makeRgCollector = (options: RgCollectorOptions): RgCollector => {
  const { fileSize, visible = () => true, debugBudget = Infinity, onDebugOverflow = () => undefined } = options
  const raw = makeRawMatches(options.keep)
  const dropped = new Set<string>()
  const state: RgCollector["state"] = { sawSummary: false, parseFailure: undefined, rgignoreHid: false, debugOverflow: false }
  let debugBytes = 0
  /** The raw `path` JSON of the file whose matches are being skipped (it is over the cap). */
  let skipping: Buffer | undefined
  const skipped = (line: Buffer): boolean => {
    if (skipping === undefined || !startsWith(line, EVENT.matchPath)) return false
    const at = EVENT.matchPath.length
    return line.length > at + skipping.length && line[at + skipping.length] === 0x2c &&
      line.compare(skipping, 0, skipping.length, at, at + skipping.length) === 0
  }
  const onMatch = (line: Buffer, data: RgData) => {
    const rel = relPath(fieldText(data.path))
    if (dropped.has(rel) || data.line_number === undefined) return
    if (!raw.files.has(rel) && !visible(rel)) {
      dropped.add(rel)
      return
    }
    if ((data.absolute_offset ?? 0) >= MAX_SEARCH_FILE_BYTES) {
      dropped.add(rel)
      const close = startsWith(line, EVENT.matchPath) ? line.indexOf(EVENT.afterMatchPath, EVENT.matchPath.length) : -1
      if (close >= 0) skipping = Buffer.from(line.subarray(EVENT.matchPath.length, close + 1))
      return
    }
    addRawMatch(raw, rel, data.line_number, lineText(data.lines))
  }
  const onLine = (line: Buffer) => {
    if (startsWith(line, EVENT.begin)) {
      skipping = undefined
      return
    }
    if (skipped(line)) return
    if (startsWith(line, EVENT.summary)) {
      state.sawSummary = true
      return
    }
    if (startsWith(line, EVENT.end) && line.includes(EVENT.textEnd) &&
      (numberAfter(line, EVENT.bytesSearched) ?? Infinity) <= MAX_SEARCH_FILE_BYTES) return
    const event = parseEvent(line)
    if (event === undefined) state.parseFailure = line.toString("utf8").slice(0, 200)
    const data = event?.data
    if (data === undefined) return
    if (event?.type === "summary") state.sawSummary = true
    if (event?.type === "match") onMatch(line, data)
    if (event?.type === "end") {
      const binary = data.binary_offset !== null && data.binary_offset !== undefined
      const size = data.stats?.bytes_searched ?? fileSize(data.path) ?? 0
      if (binary || size > MAX_SEARCH_FILE_BYTES) dropped.add(relPath(fieldText(data.path)))
    }
  }
  const onStderrLine = (line: Buffer) => {
    if (!startsWith(line, DEBUG_PREFIX)) return true
    if (!state.rgignoreHid && line.includes(".rgignore") && RGIGNORE_HIT.test(line.toString("utf8"))) state.rgignoreHid = true
    debugBytes += line.length + 1
    if (debugBytes > debugBudget && !state.debugOverflow) {
      state.debugOverflow = true
      onDebugOverflow()
    }
    return false
  }
  return { raw, dropped, onLine, onStderrLine, state }
}

