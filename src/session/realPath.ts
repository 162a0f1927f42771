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
import { isMissing } from "../tool/index.js"
import { DiskError, lstat, readlink, realpath } from "../disk/index.js"

/** Symlink hops followed by hand before giving up with `ELOOP` (Linux's own limit is 40). @category constants */
export const MAX_SYMLINK_HOPS = 40

/** True when absolute, normalized `child` is `parent` itself or lies beneath it (no `/root-evil` prefix tricks). @category predicates */
export const isPathInside = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel))
}

/**
 * One walk from `/` over the components of `absPath` (no `realpath` per missing ancestor, which
 * made a path 1,000 directories deep take seconds): each component is `lstat`ed once; a symbolic
 * link, dangling or not, is replaced by its target's components; the first missing component ends
 * the walk and the rest is joined on as written.
 */
const walk: (absPath: string) => Effect.Effect<string, DiskError> = Effect.fnUntraced(function*(absPath: string) {
  const { root } = path.parse(absPath)
  // Components still to resolve, the next one last.
  const pending = absPath.slice(root.length).split(path.sep).reverse()
  let current = root
  let hops = 0
  while (pending.length > 0) {
    const name = pending.pop()!
    if (name === "" || name === ".") continue
    if (name === "..") {
      current = path.dirname(current)
      continue
    }
    const candidate = path.join(current, name)
    const link = yield* Effect.result(lstat(candidate))
    if (Result.isFailure(link)) {
      if (!isMissing(link.failure)) return yield* link.failure
      return path.join(candidate, ...pending.reverse())
    }
    if (!link.success.isSymbolicLink()) {
      current = candidate
      continue
    }
    if (hops >= MAX_SYMLINK_HOPS) {
      return yield* new DiskError({ op: "realpath", path: absPath, code: "ELOOP", message: `too many symbolic links resolving ${absPath}` })
    }
    hops++
    const target = yield* readlink(candidate)
    if (path.isAbsolute(target)) current = path.parse(target).root
    pending.push(...target.split(path.sep).reverse())
  }
  return current
})

const resolveFrom = Effect.fnUntraced(function*(absPath: string) {
  // The common case, a path that exists, is one system call.
  const real = yield* Effect.result(realpath(absPath))
  if (Result.isSuccess(real)) return real.success
  if (!isMissing(real.failure)) return yield* real.failure
  return yield* walk(absPath)
})

/**
 * The real path of `absPath`, or for a not-yet-existing path the real path of its nearest existing
 * ancestor joined with the rest (dangling symlinks followed). Fails with the underlying
 * {@link DiskError} for anything but `ENOENT`/`ENOTDIR` (e.g. `ELOOP`, `EACCES`).
 * @category resolution
 */
export const resolveRealPath = (absPath: string): Effect.Effect<string, DiskError> =>
  resolveFrom(path.resolve(absPath))
