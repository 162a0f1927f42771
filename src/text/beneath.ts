/**
 * Resolving a path for a write without following a link that was not there at check time.
 *
 * Node has no `openat`, but Linux gives every open descriptor a directory at
 * `/proc/self/fd/<fd>`: a path through it is resolved from the directory the descriptor holds,
 * whatever has been renamed or swapped since. So the walk opens the root, then each parent
 * component with `O_NOFOLLOW | O_DIRECTORY` relative to the previous descriptor. A component that
 * is a symbolic link is read (`readlink`) and its target walked the same way, step by step, so a
 * link is followed only while it stays inside a root: `..` never climbs above the root the walk is
 * in, and an absolute target must lie under a root as written. A final link is followed too (a
 * symlinked file is written through to its target, as before). The result is the opened parent
 * directory and the final name, to be addressed as `/proc/self/fd/<fd>/<name>` by the writer.
 *
 * Where `/proc/self/fd` is missing (macOS, a container without /proc), {@link fdPathsSupported} is
 * false and the writer falls back to paths with a re-check before the rename (see atomicWrite.ts).
 *
 * @since 0.2.0
 */
import * as fs from "node:fs"
import type { Stats } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { type DiskError, lstat, mkdir, open, readlink } from "../disk/index.js"
import { isPathInside, MAX_SYMLINK_HOPS } from "../session/index.js"

/** Whether descriptor-relative paths (`/proc/self/fd/<fd>/<name>`) work on this machine (asked once, synchronously, at module load). @category constants */
export const fdPathsSupported: boolean = process.platform === "linux" && fs.existsSync("/proc/self/fd")

const DIRECTORY_FLAGS = fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW

/** Why a walk stopped. @category models */
export type BeneathReason =
  /** A link (or `..`) leads out of every root. */
  | "outside"
  /** Too many links (a loop). */
  | "loop"
  /** A parent directory does not exist (and was not to be created). */
  | "missing"
  /** A parent component is a file, or the path names a directory. */
  | "not-directory"
  /** The OS refused (permissions, I/O). */
  | "io"

/** A walk could not reach the file's directory safely. @category errors */
export class BeneathError extends Data.TaggedError("BeneathError")<{
  readonly reason: BeneathReason
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** The opened directory a write lands in, and the final name in it. @category models */
export interface BeneathTarget {
  readonly dir: FileHandle
  /** The real path the walk reached (the directory may be renamed later; {@link realPathOf} tells). */
  readonly dirPath: string
  readonly name: string
  /** `lstat` of the name at walk time (never a link: a final link was followed). */
  readonly stats: Option.Option<Stats>
}

/** `/proc/self/fd/<fd>/<name>`: `name` inside the directory `dir` holds. @category paths */
export const inDirectory = (dir: FileHandle, name: string): string => `/proc/self/fd/${dir.fd}/${name}`

/**
 * The real path of what an open descriptor holds now (`readlink /proc/self/fd/<fd>`), or
 * `undefined` where `/proc` is missing or the file or directory was removed ("<path> (deleted)":
 * nothing can be reached through it). Synchronous on purpose: `/proc` answers from kernel memory in
 * microseconds, where a trip through the thread pool costs tens, and reads and writes ask on every call.
 * @category paths
 */
export const descriptorRealPath = (fd: number): string | undefined => {
  let target: string
  try {
    target = fs.readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    return undefined
  }
  return target.endsWith(" (deleted)") || !path.isAbsolute(target) ? undefined : target
}

/** The real path of the directory an open handle holds now (see {@link descriptorRealPath}). @category paths */
export const realPathOf = (dir: FileHandle): Effect.Effect<Option.Option<string>> =>
  Effect.sync(() => Option.fromNullishOr(descriptorRealPath(dir.fd)))

const componentsOf = (p: string): Array<string> => p.split("/").filter((c) => c !== "" && c !== ".")

interface Frame {
  readonly handle: FileHandle
  readonly path: string
}

const fail = (reason: BeneathReason, at: string, message: string, code?: string) =>
  new BeneathError({ reason, path: at, code, message })

const ioFailure = (at: string) => (e: DiskError) => fail("io", at, e.message, e.code)

const openDirectory = (at: string, shown: string): Effect.Effect<FileHandle, BeneathError, Scope.Scope> =>
  open(at, DIRECTORY_FLAGS).pipe(Effect.mapError(ioFailure(shown)))

const lstatOption = (at: string, shown: string): Effect.Effect<Option.Option<Stats>, BeneathError> =>
  lstat(at).pipe(
    Effect.mapError(ioFailure(shown)),
    Effect.map(Option.some),
    Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(Option.none<Stats>()))
  )

/** The longest root that `components` (an absolute path, as written) starts with. */
const rootOf = (roots: ReadonlyArray<string>, components: ReadonlyArray<string>) => {
  let best: { readonly root: string; readonly length: number } | undefined
  for (const root of roots) {
    const own = componentsOf(root)
    const fits = own.length <= components.length && own.every((c, i) => components[i] === c)
    if (fits && (best === undefined || own.length > best.length)) best = { root, length: own.length }
  }
  return best
}

/** Options of {@link openBeneath}. @category models */
export interface OpenBeneathOptions {
  /** Create missing parent directories (mode 0777 before the umask), each inside the last one opened. */
  readonly createParents?: boolean
  /**
   * Return the final name without `lstat`ing it (`stats` is `None`): for a caller that opens it with
   * `O_NOFOLLOW` anyway and, on `ELOOP` (it is a link), walks again without this option, so that the
   * link is followed as usual. Saves a call when the final name is not a link (the common case).
   */
  readonly finalUnchecked?: boolean
}

/**
 * Walks `absPath` from the root it lies in, one component at a time, without following any link
 * out of `roots` (real paths), and returns its opened parent directory and final name. Every
 * handle opened stays in the scope.
 * @category resolution
 */
export const openBeneath = Effect.fnUntraced(function*(
  roots: ReadonlyArray<string>,
  absPath: string,
  options: OpenBeneathOptions = {}
): Effect.fn.Return<BeneathTarget, BeneathError, Scope.Scope> {
  const outside = (why: string) => fail("outside", absPath, `${absPath} ${why} (workspace roots: ${roots.join(", ")}).`)
  const given = componentsOf(absPath)
  const start = path.isAbsolute(absPath) ? rootOf(roots, given) : undefined
  if (start === undefined) return yield* outside("is not under any workspace root")
  let stack: Array<Frame> = [{ handle: yield* openDirectory(start.root, start.root), path: start.root }]
  let queue = given.slice(start.length)
  let hops = 0
  const follow = Effect.fnUntraced(function*(link: string, at: Frame) {
    hops += 1
    if (hops > MAX_SYMLINK_HOPS) {
      return yield* fail("loop", absPath, `Resolving ${absPath} met more than ${MAX_SYMLINK_HOPS} symbolic links (a link loop).`, "ELOOP")
    }
    const target = yield* readlink(inDirectory(at.handle, link)).pipe(Effect.mapError(ioFailure(absPath)))
    const parts = componentsOf(target)
    if (!path.isAbsolute(target)) {
      queue = [...parts, ...queue]
      return
    }
    const root = rootOf(roots, parts)
    if (root === undefined) return yield* outside(`leads through the symbolic link ${path.join(at.path, link)} -> ${target}, out of every workspace root`)
    stack = [{ handle: yield* openDirectory(root.root, root.root), path: root.root }]
    queue = [...parts.slice(root.length), ...queue]
  })
  for (;;) {
    const name = queue.shift()
    const top = stack[stack.length - 1]!
    if (name === undefined) {
      return yield* fail("not-directory", absPath, `${absPath} names a directory (${top.path}), not a file.`, "EISDIR")
    }
    if (name === "..") {
      if (stack.length === 1) return yield* outside(`climbs (through "..") above the workspace root ${top.path}`)
      stack.pop()
      continue
    }
    const at = inDirectory(top.handle, name)
    const shown = path.join(top.path, name)
    if (queue.length === 0) {
      if (options.finalUnchecked === true) return { dir: top.handle, dirPath: top.path, name, stats: Option.none() }
      const stats = yield* lstatOption(at, shown)
      if (Option.isSome(stats) && stats.value.isSymbolicLink()) {
        yield* follow(name, top)
        continue
      }
      return { dir: top.handle, dirPath: top.path, name, stats }
    }
    const opened = yield* Effect.result(openDirectory(at, shown))
    if (Result.isSuccess(opened)) {
      stack.push({ handle: opened.success, path: shown })
      continue
    }
    const code = opened.failure.code
    if (code === "ENOTDIR" || code === "ELOOP") {
      const stats = yield* lstatOption(at, shown)
      if (Option.isSome(stats) && stats.value.isSymbolicLink()) {
        yield* follow(name, top)
        continue
      }
      return yield* fail("not-directory", absPath, `${shown} is not a directory, so ${absPath} cannot be reached.`, "ENOTDIR")
    }
    if (code !== "ENOENT") return yield* opened.failure
    if (options.createParents !== true) {
      return yield* fail("missing", absPath, `The directory ${shown} does not exist.`, "ENOENT")
    }
    yield* mkdir(at, 0o777).pipe(
      Effect.mapError(ioFailure(shown)),
      Effect.catchIf((e) => e.code === "EEXIST", () => Effect.void)
    )
    queue.unshift(name)
  }
})

/**
 * Whether the directory an open handle holds is still inside a root: the last check before a
 * rename lands in it.
 * @category resolution
 */
export const stillInside = (dir: FileHandle, roots: ReadonlyArray<string>): Effect.Effect<Option.Option<string>> =>
  Effect.map(realPathOf(dir), Option.filter((real) => roots.some((root) => isPathInside(real, root))))
