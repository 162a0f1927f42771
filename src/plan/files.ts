/**
 * Small file primitives of the planning tools: read a file that may be missing, create a file
 * only if it does not exist (`O_EXCL`), and replace a file atomically (temp file in the same
 * directory, fsync, rename), so a reader sees the old bytes or the new ones, never a torn file.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as Effect from "effect/Effect"
import { errnoCode, FsError } from "../session/fsEffect.js"
import { writeRefusalWith } from "../tool/errno.js"
import { FileWriteFailure, NoSpaceLeft, PermissionDenied } from "../tool/errors.js"

/** Mode of every file the planning tools write: owner only. @category constants */
export const PLAN_FILE_MODE = 0o600

const call = <A>(op: string, path: string, f: () => Promise<A>): Effect.Effect<A, FsError> =>
  Effect.tryPromise({ try: f, catch: (cause) => new FsError({ op, path, code: errnoCode(cause), cause }) })

/** The file's text, or undefined when it does not exist. @category fs */
export const readTextIfExists = (path: string): Effect.Effect<string | undefined, FsError> =>
  call("readFile", path, () => fsp.readFile(path, "utf8")).pipe(
    Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(undefined))
  )

/** `fs.stat`, or undefined when the path does not exist. @category fs */
export const statIfExists = (path: string): Effect.Effect<Stats | undefined, FsError> =>
  call("stat", path, () => fsp.stat(path)).pipe(Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(undefined)))

/** Removes a file; a missing file is not an error. @category fs */
export const removeIfExists = (path: string): Effect.Effect<void, FsError> =>
  call("unlink", path, () => fsp.unlink(path)).pipe(Effect.catchIf((e) => e.code === "ENOENT", () => Effect.void))

const writeAndSync = (path: string, flag: "wx", data: string): Effect.Effect<void, FsError> =>
  Effect.acquireUseRelease(
    call("open", path, () => fsp.open(path, flag, PLAN_FILE_MODE)),
    (handle) =>
      Effect.andThen(
        call("write", path, () => handle.writeFile(data, "utf8")),
        call("fsync", path, () => handle.sync())
      ),
    (handle) => Effect.promise(() => handle.close()).pipe(Effect.ignore)
  )

/**
 * Creates `path` with `data` only if nothing exists there (`O_EXCL`): true when this call created
 * it, false when the path already existed.
 *
 * @category fs
 */
export const createExclusive = (path: string, data: string): Effect.Effect<boolean, FsError> =>
  writeAndSync(path, "wx", data).pipe(
    Effect.as(true),
    Effect.catchIf((e) => e.code === "EEXIST" && e.op === "open", () => Effect.succeed(false))
  )

/**
 * Replaces `path` with `data` atomically: the bytes go to a temp file next to it, are flushed, and
 * the temp file is renamed over the target. On failure the temp file is removed and the target is
 * untouched.
 *
 * @category fs
 */
export const writeFileAtomic = (path: string, data: string): Effect.Effect<void, FsError> =>
  Effect.suspend(() => {
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
    return writeAndSync(temp, "wx", data).pipe(
      Effect.andThen(call("rename", path, () => fsp.rename(temp, path))),
      Effect.onError(() => removeIfExists(temp).pipe(Effect.ignore))
    )
  })

/**
 * The tool error for a failed write: `permission_denied`, `no_space_left` or `file_write_failure`,
 * by errno.
 *
 * @category errors
 */
export const writeFailure = (
  error: FsError,
  message: string,
  display: string
): PermissionDenied | NoSpaceLeft | FileWriteFailure => writeRefusalWith(error, { message, display }) ?? new FileWriteFailure({ message, display })

/** The same kind of write failure with a new message (to say which operation it broke). @category errors */
export const restateWriteFailure = (
  error: PermissionDenied | NoSpaceLeft | FileWriteFailure,
  message: string,
  display: string
): PermissionDenied | NoSpaceLeft | FileWriteFailure => {
  switch (error._tag) {
    case "PermissionDenied":
      return new PermissionDenied({ message, display })
    case "NoSpaceLeft":
      return new NoSpaceLeft({ message, display })
    case "FileWriteFailure":
      return new FileWriteFailure({ message, display })
  }
}

/** A one-line description of a file-system failure: `rename /a/b: EISDIR`. @category errors */
export const describeFsError = (error: FsError): string => `${error.op} ${error.path}: ${error.code ?? String(error.cause)}`
