/**
 * The whole grep operation as the tool wraps it: validate, check the root (a FIFO or device is
 * refused, a file over the size cap is reported as skipped), choose a backend, search.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { InvalidToolParams, ReadContentFailure, SearchPathNotFound } from "../../tool/index.js"
import { MAX_SEARCH_FILE_BYTES } from "../constants.js"
import { validateGrepPattern } from "../regex/compile.js"
import { type GrepBackendSelector, selectGrepBackend } from "./select.js"
import type { GrepBackendName, GrepRequest, GrepResult } from "./types.js"

/** Validates the request, then searches with the chosen (or forced) backend; `select` (default {@link selectGrepBackend}) picks it. @category searching */
export const grepSearch = Effect.fn("grep.search")(function*(
  request: GrepRequest,
  options: { readonly force?: GrepBackendName; readonly select?: GrepBackendSelector } = {}
) {
  const invalid = validateGrepPattern(request.pattern)
  if (invalid !== undefined) return yield* new InvalidToolParams({ message: invalid })
  if (request.limit !== undefined && (!Number.isInteger(request.limit) || request.limit < 1)) {
    return yield* new InvalidToolParams({ message: "limit must be a positive integer" })
  }
  const stat = yield* Effect.sync(() => {
    try {
      return fs.statSync(request.root, { throwIfNoEntry: false })
    } catch {
      return undefined
    }
  })
  if (stat === undefined) return yield* new SearchPathNotFound({ message: `Path does not exist: ${request.root}` })
  // A FIFO or device never ends (or never starts): refused like read_file refuses it, before any backend opens it.
  if (!stat.isFile() && !stat.isDirectory()) {
    return yield* new ReadContentFailure({
      message: `Cannot search ${request.root}: it is not a regular file or directory (e.g. device, socket, or pipe). ` +
        `Search a regular file or a directory instead.`,
      display: "Not a regular file."
    })
  }
  // A file root over the cap is not searched (ripgrep's --max-filesize spares only files it finds by walking).
  if (stat.isFile() && stat.size > MAX_SEARCH_FILE_BYTES) {
    const skipped: GrepResult = { matches: [], totalMatches: 0, engine: options.force ?? "js", skippedLargeFiles: [request.root] }
    return skipped
  }
  const force = options.force === undefined ? {} : { force: options.force }
  const backend = yield* (options.select ?? selectGrepBackend)(request.root, force)
  return yield* backend.search(request)
})
