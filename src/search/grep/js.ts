/**
 * The pure JS grep backend: walks the tree itself and matches every line with the canonical
 * JavaScript regex. It is also where every other backend falls back when its regex dialect
 * cannot express a query exactly.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { forEachLine } from "../text.js"
import { walkFiles } from "../walk.js"
import { addRawMatch, fileVisible, finalizeMatches, makeSearchContext, type RawMatches, type SearchContext } from "./context.js"
import type { GrepBackend, GrepBackendName } from "./types.js"

/** Reads a regular file of searchable size (undefined when it is not one or cannot be read). */
const readSearchable = async (abs: string): Promise<Buffer | undefined> => {
  const handle = await fs.open(abs, "r").catch(() => undefined)
  if (handle === undefined) return undefined
  const bytes = await handle
    .stat()
    .then((stat) => (stat.isFile() && stat.size <= MAX_SEARCH_FILE_BYTES ? handle.readFile() : undefined))
    .catch(() => undefined)
    .finally(() => handle.close())
  return bytes
}

/** Searches one file, adding its matching lines to `raw`. */
const searchFile = async (context: SearchContext, raw: RawMatches, rel: string, abs: string): Promise<void> => {
  const bytes = await readSearchable(abs)
  if (bytes === undefined || bytes.includes(0)) return
  const regex = context.compiled.regex
  forEachLine(bytes, (line, matchText, displayText) => {
    if (regex.test(matchText)) addRawMatch(raw, rel, line, displayText)
  })
}

/** Runs a prepared search on the JS engine (`from`/`reason`: the backend that fell back, and why). @category searching */
export const searchWithJs = Effect.fn("grep.js")(function*(context: SearchContext, fallback?: {
  readonly from: GrepBackendName
  readonly reason: string
}) {
  const raw: RawMatches = new Map()
  if (context.fileName !== undefined) {
    const visible = yield* Effect.promise(() => fileVisible(context, context.fileName!))
    if (visible) yield* Effect.promise(() => searchFile(context, raw, context.fileName!, context.request.root))
  } else {
    const files = yield* walkFiles(context.tree, context.glob)
    yield* Effect.forEach(files, (rel) => Effect.promise(() => searchFile(context, raw, rel, path.join(context.dir, rel))), {
      concurrency: 32,
      discard: true
    })
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
