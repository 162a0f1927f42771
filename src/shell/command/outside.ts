/**
 * Which of a command line's reads and writes reach outside the workspace roots. Known paths are
 * checked by real path (a link inside the root that points out counts as outside); unknown ones
 * are outside; a glob is outside when a symbolic link its pattern can reach leads out (or when
 * there are too many entries to look at).
 *
 * @since 0.1.0
 */
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import type { PathAccess } from "./access.js"
import { HARMLESS_READ_SOURCES } from "./redirects.js"

/** Entries a glob check looks at before it gives up and calls the glob outside. @category constants */
export const MAX_GLOB_ENTRIES = 2000

type IsWithin<R> = (absPath: string) => Effect.Effect<boolean, never, R>

const entriesOf = (dir: string) =>
  Effect.tryPromise(() => fsp.readdir(dir, { withFileTypes: true })).pipe(Effect.orElseSucceed(() => []))

/** Whether `depth` levels below `dir` hold a link leading out of the roots (or more entries than we look at). */
const globLeadsOut = <R>(dir: string, depth: number, isWithin: IsWithin<R>): Effect.Effect<boolean, never, R> =>
  Effect.gen(function*() {
    let budget = MAX_GLOB_ENTRIES
    let level = [dir]
    for (let d = 0; d < depth && level.length > 0; d++) {
      const next: Array<string> = []
      for (const current of level) {
        for (const entry of yield* entriesOf(current)) {
          if (--budget < 0) return true
          const full = nodePath.join(current, entry.name)
          if (entry.isSymbolicLink() && !(yield* isWithin(full))) return true
          if (entry.isDirectory() || entry.isSymbolicLink()) next.push(full)
        }
      }
      level = next
    }
    return false
  })

/**
 * The accesses that reach outside the workspace.
 *
 * @category checks
 */
export const accessesOutside = <R>(accesses: ReadonlyArray<PathAccess>, isWithin: IsWithin<R>): Effect.Effect<ReadonlyArray<PathAccess>, never, R> =>
  Effect.filter(accesses, (access) =>
    Effect.gen(function*() {
      if (access.path === undefined) return true
      if (access.mode === "read" && HARMLESS_READ_SOURCES.has(access.path)) return false
      if (!(yield* isWithin(access.path))) return true
      return access.globDepth !== undefined && access.globDepth > 0 ? yield* globLeadsOut(access.path, access.globDepth, isWithin) : false
    }))
