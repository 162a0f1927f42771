/**
 * Where a write lands: the target's directory and name, and how to address a name in it — through
 * the descriptor walk of beneath.ts (Linux), or by path with a re-check (elsewhere, or without
 * roots). Shared by atomicWrite.ts's read, check, temp file and rename.
 *
 * @since 0.2.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { call, DiskError, mkdirp, open } from "../disk/index.js"
import { isPathInside, resolveRealPath } from "../session/index.js"
import { FileChangedSinceRead } from "../tool/index.js"
import { type BeneathError, descriptorRealPath, fdPathsSupported, inDirectory, openBeneath, stillInside } from "./beneath.js"

/** How to locate a target. @category models */
export interface LocateOptions {
  /** Real paths of the workspace roots; omitted: no boundary. */
  readonly within?: ReadonlyArray<string> | undefined
  /** Create missing parent directories (inside the roots). */
  readonly createParents?: boolean | undefined
  /** The final name is not checked for a link (see `OpenBeneathOptions.finalUnchecked`; by path it always is). */
  readonly finalUnchecked?: boolean | undefined
}

/** Where the target lives: its directory, its name, and how to address a name in that directory. @category models */
export interface Location {
  /** Real path of the directory (as resolved). */
  readonly dirPath: string
  readonly name: string
  /** A path for `name` in the directory: descriptor-relative where supported. */
  readonly at: (name: string) => string
  /** The last check before the rename: the directory is still inside a root. */
  readonly recheck: Effect.Effect<void, FileChangedSinceRead | DiskError>
  readonly syncDirectory: Effect.Effect<void>
  /**
   * Whether this location may be used again later in the scope it was opened in (a write after the
   * read that located it): its directory is still open and still at `dirPath` (a synchronous
   * `readlink` of `/proc/self/fd/<fd>`). False where a location is found by path: it is found again.
   */
  readonly reusable: () => boolean
}

/** The path a write to `file` really lands on: symlinks (even dangling ones) followed. @category paths */
export const resolveWriteTarget = (file: string): Effect.Effect<string, DiskError> =>
  resolveRealPath(path.resolve(file)).pipe(
    Effect.mapError((e) => new DiskError({ op: "realpath", path: file, code: e.code, message: `cannot resolve ${file}` }))
  )

export const syncDirectoryAt = (dir: string): Effect.Effect<void> =>
  Effect.scoped(Effect.flatMap(open(dir, "r"), (handle) => call("fsync", dir, () => handle.sync()))).pipe(Effect.ignore)

const walkedOut = (file: string, e: BeneathError): DiskError | FileChangedSinceRead =>
  e.reason === "outside"
    ? new FileChangedSinceRead({
      message: `Nothing was read or written: ${e.message.replace(/\.$/, "")}. The path was inside the workspace ` +
        `when checked, so a symbolic link on it changed during this call. Check the path (e.g. with ` +
        `list_directory) and retry with one that stays inside the workspace.`,
      display: "path changed to lead outside the workspace; nothing read or written."
    })
    : new DiskError({ op: "resolve", path: file, code: e.code, message: e.message })

/** The location through the descriptor walk: nothing outside `roots` is ever followed or named. */
const locateBeneath = Effect.fnUntraced(function*(file: string, roots: ReadonlyArray<string>, options: LocateOptions) {
  const found = yield* openBeneath(roots, path.resolve(file), {
    createParents: options.createParents === true,
    finalUnchecked: options.finalUnchecked === true
  }).pipe(
    Effect.mapError((e) => walkedOut(file, e))
  )
  const { dir, dirPath, name } = found
  const recheck = Effect.flatMap(stillInside(dir, roots), (inside) =>
    Option.isSome(inside)
      ? Effect.void
      : Effect.fail(
        new FileChangedSinceRead({
          message: `Nothing was written to ${path.join(dirPath, name)}: its directory was moved or removed during ` +
            `this call and is no longer inside the workspace. Check the path and retry.`,
          display: "directory moved during the write; nothing written."
        })
      ))
  return {
    dirPath,
    name,
    at: (n: string) => inDirectory(dir, n),
    recheck,
    syncDirectory: call("fsync", dirPath, () => dir.sync()).pipe(Effect.ignore),
    // A closed handle's fd is -1: nothing is read through it, and the location is found again.
    reusable: () => dir.fd >= 0 && descriptorRealPath(dir.fd) === dirPath
  } satisfies Location
})

/** The location by path (no descriptor paths here, or no roots given); with roots, re-resolved before the rename. */
const locateByPath = Effect.fnUntraced(function*(file: string, options: LocateOptions) {
  const roots = options.within
  if (options.createParents === true) {
    const parent = path.dirname(yield* resolveWriteTarget(file))
    yield* mkdirp(parent)
  }
  const target = yield* resolveWriteTarget(file)
  const dirPath = path.dirname(target)
  const inside = (real: string) => roots === undefined || roots.some((root) => isPathInside(real, root))
  const escaped = new FileChangedSinceRead({
    message: `Nothing was written to ${file}: it now resolves to ${target}, outside the workspace; a symbolic link ` +
      `on the path changed during this call. Check the path and retry with one inside the workspace.`,
    display: "path changed to lead outside the workspace; nothing written."
  })
  if (!inside(target)) return yield* escaped
  const recheck = roots === undefined ? Effect.void : Effect.flatMap(resolveWriteTarget(dirPath), (now) =>
    now === dirPath && inside(now) ? Effect.void : Effect.fail(escaped))
  return {
    dirPath,
    name: path.basename(target),
    at: (n: string) => path.join(dirPath, n),
    recheck,
    syncDirectory: syncDirectoryAt(dirPath),
    reusable: () => false
  } satisfies Location
})

/**
 * Locates `file` for reading or writing: by the descriptor walk when roots are given and
 * descriptor paths work, else by path (re-checked before the rename when roots are given).
 * @category resolution
 */
export const locate = (
  file: string,
  options: LocateOptions
): Effect.Effect<Location, DiskError | FileChangedSinceRead, Scope.Scope> =>
  options.within !== undefined && fdPathsSupported ? locateBeneath(file, options.within, options) : locateByPath(file, options)
