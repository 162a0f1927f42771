/**
 * The pure JS grep backend: walks the tree itself and matches every line with the canonical
 * JavaScript regex. It is also where every other backend falls back when its regex dialect
 * cannot express a query exactly. Files are read synchronously in small batches (far faster
 * than one thread-pool round trip per file), yielding to other fibers between batches.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { forEachLine } from "../text.js"
import { walkFiles } from "../walk.js"
import { addRawMatch, fileVisible, finalizeMatches, makeRawMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import type { GrepBackend, GrepBackendName } from "./types.js"

/** Reads a regular file of searchable size (undefined when it is not one or cannot be read). */
const readSearchable = (abs: string): Buffer | undefined => {
  let fd: number | undefined
  try {
    fd = fs.openSync(abs, "r")
    const stat = fs.fstatSync(fd)
    return stat.isFile() && stat.size <= MAX_SEARCH_FILE_BYTES ? fs.readFileSync(fd) : undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Searches one file, adding its matching lines to `raw`. */
const searchFile = (context: SearchContext, raw: RawMatches, rel: string, abs: string): void => {
  const bytes = readSearchable(abs)
  if (bytes === undefined || bytes.includes(0)) return
  const regex = context.compiled.regex
  forEachLine(bytes, (line, matchText, displayText) => {
    if (regex.test(matchText)) addRawMatch(raw, rel, line, displayText)
  })
}

/** Files searched per synchronous batch; the fiber yields between batches so other work keeps running. */
const BATCH = 128

/** Runs a prepared search on the JS engine (`from`/`reason`: the backend that fell back, and why). @category searching */
export const searchWithJs = Effect.fn("grep.js")(function*(context: SearchContext, fallback?: {
  readonly from: GrepBackendName
  readonly reason: string
}) {
  const raw = makeRawMatches(context.keep)
  if (context.fileName !== undefined) {
    if (fileVisible(context, context.fileName)) searchFile(context, raw, context.fileName, context.request.root)
  } else {
    const files = yield* walkFiles(context.tree, context.glob)
    for (let i = 0; i < files.length; i += BATCH) {
      yield* Effect.sync(() => {
        for (const rel of files.slice(i, i + BATCH)) searchFile(context, raw, rel, path.join(context.dir, rel))
      })
      yield* Effect.yieldNow
    }
  }
  return yield* finalizeMatches(context, raw, {
    inspect: false,
    engine: "js",
    ...(fallback === undefined ? {} : { fallbackReason: `${fallback.from}: ${fallback.reason}` })
  })
})

/** The pure JS backend (always available). @category backends */
export const jsGrepBackend: GrepBackend = {
  name: "js",
  search: (request) => Effect.flatMap(makeSearchContext(request), (context) => searchWithJs(context))
}
