/**
 * Thin Effect wrappers over `node:fs/promises` for the session layer: each call fails with an
 * {@link FsError} that keeps the errno `code`, so callers can branch on `ENOENT`, `ENOTDIR`, …
 *
 * @since 0.1.0
 */
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { errnoCode } from "../tool/errno.js"

/** A failed file-system call: the operation, the path and the errno code when Node gave one. @category errors */
export class FsError extends Data.TaggedError("FsError")<{
  readonly op: string
  readonly path: string
  readonly code: string | undefined
  readonly cause: unknown
}> {}

/** The errno code (`ENOENT`, `EACCES`, …) of a thrown Node error, if any (defined with the errno mapping). @category utils */
export { errnoCode }

const call = <A>(op: string, path: string, f: () => Promise<A>): Effect.Effect<A, FsError> =>
  Effect.tryPromise({ try: f, catch: (cause) => new FsError({ op, path, code: errnoCode(cause), cause }) })

/** `fs.realpath`: the canonical path, every symlink resolved. @category fs */
export const realpath = (path: string): Effect.Effect<string, FsError> => call("realpath", path, () => fsp.realpath(path))

/** `fs.stat`: follows symlinks. @category fs */
export const stat = (path: string): Effect.Effect<Stats, FsError> => call("stat", path, () => fsp.stat(path))

/** `fs.lstat`: does not follow a final symlink. @category fs */
export const lstat = (path: string): Effect.Effect<Stats, FsError> => call("lstat", path, () => fsp.lstat(path))

/** `fs.readlink`: the raw target of a symlink. @category fs */
export const readlink = (path: string): Effect.Effect<string, FsError> => call("readlink", path, () => fsp.readlink(path))

/** `fs.mkdir(path, { recursive: true, mode })`: the first directory created, if any. @category fs */
export const mkdirp = (path: string, mode: number): Effect.Effect<string | undefined, FsError> =>
  call("mkdir", path, () => fsp.mkdir(path, { recursive: true, mode }))

/** `fs.chmod`. @category fs */
export const chmod = (path: string, mode: number): Effect.Effect<void, FsError> =>
  call("chmod", path, () => fsp.chmod(path, mode))
