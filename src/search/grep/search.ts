/**
 * The whole grep operation as the tool wraps it: validate, check the root, choose a backend,
 * search.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { InvalidToolParams, SearchPathNotFound } from "../../tool/errors.js"
import { validateGrepPattern } from "../regex/compile.js"
import { type GrepBackendSelector, selectGrepBackend } from "./select.js"
import type { GrepBackendName, GrepRequest } from "./types.js"

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
  const exists = yield* Effect.sync(() => {
    try {
      return fs.statSync(request.root, { throwIfNoEntry: false }) !== undefined
    } catch {
      return false
    }
  })
  if (!exists) return yield* new SearchPathNotFound({ message: `Path does not exist: ${request.root}` })
  const force = options.force === undefined ? {} : { force: options.force }
  const backend = yield* (options.select ?? selectGrepBackend)(request.root, force)
  return yield* backend.search(request)
})
