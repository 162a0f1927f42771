/**
 * The whole grep operation as the tool wraps it: validate, check the root, choose a backend,
 * search.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import { InvalidToolParams, SearchPathNotFound } from "../../tool/errors.js"
import { validateGrepPattern } from "../regex/compile.js"
import { selectGrepBackend } from "./select.js"
import type { GrepBackendName, GrepRequest } from "./types.js"

/** Validates the request, then searches with the chosen (or forced) backend. @category searching */
export const grepSearch = Effect.fn("grep.search")(function*(
  request: GrepRequest,
  options: { readonly force?: GrepBackendName } = {}
) {
  const invalid = validateGrepPattern(request.pattern)
  if (invalid !== undefined) return yield* new InvalidToolParams({ message: invalid })
  if (request.limit !== undefined && (!Number.isInteger(request.limit) || request.limit < 1)) {
    return yield* new InvalidToolParams({ message: "limit must be a positive integer" })
  }
  const exists = yield* Effect.promise(() => fs.stat(request.root).then(() => true, () => false))
  if (!exists) return yield* new SearchPathNotFound({ message: `Path does not exist: ${request.root}` })
  const backend = yield* selectGrepBackend(request.root, options)
  return yield* backend.search(request)
})
