/**
 * Real-path resolution for boundary checks, including paths that do not exist yet.
 *
 * A path that exists resolves through `realpath`. A path that does not exist resolves to the real
 * path of its nearest existing ancestor joined with the missing tail — and a dangling symlink on
 * the way is followed to its target, so `link -> /elsewhere/new-file` resolves to
 * `/elsewhere/new-file` (writing through the link would create the file there).
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { isMissing } from "../tool/errno.js"
import { FsError, lstat, readlink, realpath } from "./fsEffect.js"

/** Symlink hops followed by hand before giving up with `ELOOP` (Linux's own limit is 40). @category constants */
export const MAX_SYMLINK_HOPS = 40

/** True when absolute, normalized `child` is `parent` itself or lies beneath it (no `/root-evil` prefix tricks). @category predicates */
export const isPathInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

const resolveFrom: (absPath: string, hops: number) => Effect.Effect<string, FsError> = Effect.fnUntraced(
  function*(absPath: string, hops: number) {
    const real = yield* Effect.result(realpath(absPath))
    if (Result.isSuccess(real)) return real.success
    if (!isMissing(real.failure)) return yield* real.failure
    const parent = path.dirname(absPath)
    if (parent === absPath) return absPath
    const link = yield* Effect.result(lstat(absPath))
    if (Result.isSuccess(link) && link.success.isSymbolicLink()) {
      if (hops >= MAX_SYMLINK_HOPS) {
        return yield* new FsError({ op: "realpath", path: absPath, code: "ELOOP", cause: undefined })
      }
      const target = yield* readlink(absPath)
      return yield* resolveFrom(path.resolve(parent, target), hops + 1)
    }
    if (Result.isFailure(link) && !isMissing(link.failure)) return yield* link.failure
    const realParent = yield* resolveFrom(parent, hops)
    return path.join(realParent, path.basename(absPath))
  }
)

/**
 * The real path of `absPath`, or for a not-yet-existing path the real path of its nearest existing
 * ancestor joined with the rest (dangling symlinks followed). Fails with the underlying
 * {@link FsError} for anything but `ENOENT`/`ENOTDIR` (e.g. `ELOOP`, `EACCES`).
 * @category resolution
 */
export const resolveRealPath = (absPath: string): Effect.Effect<string, FsError> =>
  resolveFrom(path.resolve(absPath), 0)
