/**
 * The pure JS grep backend: walks the tree itself and matches every line with the canonical
 * JavaScript regex. It is also where every other backend falls back when its regex dialect
 * cannot express a query exactly. Files are read and split into lines synchronously in small
 * batches (far faster than one thread-pool round trip per file); the lines are matched in a
 * worker thread (`regexWorker.ts`), because a backtracking regex can take any time on a line,
 * and the event loop must keep serving other calls. Files are searched in tree order, and the
 * search stops (when the request has a limit) once more lines match than the result keeps.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { forEachLine } from "../text.js"
import { walkFiles } from "../walk.js"
import { addRawMatch, compareTreeOrder, fileVisible, finalizeMatches, makeRawMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import { type LineHits, makeRegexMatcher, type RegexMatcher } from "./regexWorker.js"
import type { GrepBackend, GrepBackendName } from "./types.js"

type Readout =
  | { readonly _tag: "Text"; readonly bytes: Buffer }
  | { readonly _tag: "TooLarge" }
  | { readonly _tag: "Skip" }

/** Reads a regular file of searchable size; `TooLarge` past the cap, `Skip` when it is not a regular file or cannot be read. */
const readSearchable = (abs: string): Readout => {
  let fd: number | undefined
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is then skipped as not a regular file)
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK)
    const stat = fs.fstatSync(fd)
    if (!stat.isFile()) return { _tag: "Skip" }
    if (stat.size > MAX_SEARCH_FILE_BYTES) return { _tag: "TooLarge" }
    return { _tag: "Text", bytes: fs.readFileSync(fd) }
  } catch {
    return { _tag: "Skip" }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Files searched per batch, and bytes read per batch: one worker round trip each. */
const BATCH_FILES = 128
const BATCH_BYTES = 8 * 1024 * 1024

/** The lines of a batch of files, ready for the worker: every line, and each file's first line index. */
interface Batch {
  readonly lines: Array<string>
  /** Display text where it differs from the matched text (invalid UTF-8), by line index. */
  readonly display: Map<number, string>
  readonly files: Array<{ readonly rel: string; readonly first: number }>
}

/** Reads files from `queue[from]` until a batch is full; returns the batch and where the next one starts. */
const readBatch = (
  queue: ReadonlyArray<{ readonly rel: string; readonly abs: string }>,
  from: number,
  tooLarge: Array<string>
): { readonly batch: Batch; readonly next: number } => {
  const batch: Batch = { lines: [], display: new Map(), files: [] }
  let bytesRead = 0
  let i = from
  for (; i < queue.length && i - from < BATCH_FILES && bytesRead < BATCH_BYTES; i++) {
    const { abs, rel } = queue[i]!
    const readout = readSearchable(abs)
    if (readout._tag === "TooLarge") tooLarge.push(abs)
    if (readout._tag !== "Text" || readout.bytes.includes(0)) continue
    bytesRead += readout.bytes.length
    batch.files.push({ rel, first: batch.lines.length })
    forEachLine(readout.bytes, (_line, matchText, displayText) => {
      if (displayText !== matchText) batch.display.set(batch.lines.length, displayText)
      batch.lines.push(matchText)
    })
  }
  return { batch, next: i }
}

/** Adds the matching lines of a batch to `raw` (`found.hits` ascending; a long line cut around its first hit). */
const collectHits = (raw: RawMatches, batch: Batch, found: LineHits): void => {
  let file = 0
  for (let k = 0; k < found.hits.length; k++) {
    const hit = found.hits[k]!
    while (file + 1 < batch.files.length && batch.files[file + 1]!.first <= hit) file++
    const { rel, first } = batch.files[file]!
    const at = found.at[k]!
    addRawMatch(raw, rel, hit - first + 1, batch.display.get(hit) ?? batch.lines[hit]!, at < 0 ? undefined : at)
  }
}

/** Matching lines in all files of `raw` (every file of a batch is complete once the batch is matched). */
const totalOf = (raw: RawMatches): number => {
  let total = 0
  for (const file of raw.files.values()) total += file.count
  return total
}

/**
 * Searches the files (in tree order) in batches: read and split here, match in the worker, yield
 * between batches; with a limit, stops once more lines match than the result keeps.
 */
const searchFiles = Effect.fnUntraced(function*(
  matcher: RegexMatcher,
  raw: RawMatches,
  queue: ReadonlyArray<{ readonly rel: string; readonly abs: string }>,
  tooLarge: Array<string>,
  stopsAtCap: boolean
) {
  let next = 0
  while (next < queue.length && !(stopsAtCap && totalOf(raw) > raw.keep)) {
    const read = yield* Effect.sync(() => readBatch(queue, next, tooLarge))
    next = read.next
    const hits = yield* matcher.matchLines(read.batch.lines)
    collectHits(raw, read.batch, hits)
    yield* Effect.yieldNow
  }
})

/** Runs a prepared search on the JS engine (`from`/`reason`: the backend that fell back, and why). @category searching */
export const searchWithJs = Effect.fn("grep.js")(function*(context: SearchContext, fallback?: {
  readonly from: GrepBackendName
  readonly reason: string
}) {
  const raw = makeRawMatches(context.keep, { ordered: true })
  const tooLarge: Array<string> = []
  const queue = context.fileName !== undefined
    ? (fileVisible(context, context.fileName) ? [{ rel: context.fileName, abs: context.request.root }] : [])
    : [...(yield* walkFiles(context.tree, context.glob))].sort(compareTreeOrder).map((rel) => ({ rel, abs: path.join(context.dir, rel) }))
  if (queue.length > 0) {
    yield* Effect.scoped(Effect.gen(function*() {
      const matcher = yield* makeRegexMatcher(context.compiled.regex)
      yield* searchFiles(matcher, raw, queue, tooLarge, context.stopsAtCap)
    }))
  }
  return yield* finalizeMatches(context, raw, {
    inspect: false,
    engine: "js",
    skippedLargeFiles: tooLarge,
    ...(fallback === undefined ? {} : { fallbackReason: `${fallback.from}: ${fallback.reason}` })
  })
})

/** The pure JS backend (always available). @category backends */
export const jsGrepBackend: GrepBackend = {
  name: "js",
  search: (request) => Effect.flatMap(makeSearchContext(request), (context) => searchWithJs(context))
}
