/**
 * Opening a file for read_file so that what was checked is what is read (issue 15): the file is
 * opened once, the descriptor's own real path is checked against the readable directories, and
 * its kind, size and identity come from `fstat` of that descriptor. Every later read (head, whole,
 * streamed pages) uses the same handle, so a symbolic link swapped in after the check cannot
 * redirect the read outside the workspace.
 *
 * The real path of a descriptor is `readlink /proc/self/fd/<fd>` on Linux. Where `/proc` is not
 * mounted (macOS, BSD), the fallback re-resolves the path with `realpath` after the open and
 * accepts it only if it is inside and names the same file (device and inode) as the descriptor —
 * a swap between the open and that check is then refused, never followed.
 *
 * @since 0.1.0
 */
import { constants, type Stats } from "node:fs"
import type * as fsp from "node:fs/promises"
import { call, open, realpath, stat } from "../disk/index.js"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { isPathInside } from "../session/index.js"
import { descriptorRealPath } from "../text/index.js"
import {
  failureReason,
  FileNotFound,
  isMissing,
  PathNotInWorkspace,
  type PermissionDenied,
  ReadContentFailure,
  readRefusal,
  TargetIsDirectory
} from "../tool/index.js"

/** A file opened for reading, with the `fstat` of its descriptor. @category models */
export interface OpenedFile {
  readonly handle: fsp.FileHandle
  readonly stats: Stats
}

/** Every error {@link openVerified} can fail with. @category errors */
export type OpenError = FileNotFound | PermissionDenied | ReadContentFailure | TargetIsDirectory | PathNotInWorkspace

/** The failure of a stat/open/read of `abs`, typed. @category errors */
export const readFailure = (abs: string) => (cause: unknown): FileNotFound | PermissionDenied | ReadContentFailure => {
  if (isMissing(cause)) {
    return new FileNotFound({
      message: "Could not read file because no file was found at the specified path.",
      display: "File not found."
    })
  }
  return readRefusal(cause, abs) ?? new ReadContentFailure({
    message: `Could not read file ${abs} (${failureReason(cause)}). Retry once; if it fails again, tell the user.`,
    display: "Error reading file"
  })
}

const refuseKind = (abs: string, stats: Stats): Effect.Effect<void, TargetIsDirectory | ReadContentFailure> => {
  if (stats.isDirectory()) {
    return Effect.fail(new TargetIsDirectory({
      message: "Could not read file because the provided path is a directory, not a file.",
      display: "Path is a directory."
    }))
  }
  if (!stats.isFile()) {
    return Effect.fail(new ReadContentFailure({
      message: `Cannot read file: ${path.basename(abs)} is not a regular file (e.g. device, socket, or pipe).`,
      display: "Not a regular file."
    }))
  }
  return Effect.void
}

const changedWhileReading = (abs: string, real: string | undefined, allowed: ReadonlyArray<string>) =>
  new PathNotInWorkspace({
    message: `The path ${abs} changed while it was being read: ` +
      (real !== undefined ? `the file opened is ${real}, ` : "the file opened could not be located, ") +
      `which is not inside any workspace root or readable directory (${allowed.join(", ")}). A symbolic link on ` +
      `the path was probably replaced by another process. Nothing was read. Check the path (e.g. with ls -l) and ` +
      `read it again once it stays inside the workspace.`,
    display: `Path changed while being read: ${abs}`
  })

/** The real path of the open descriptor, or `undefined` where `/proc/self/fd` is unavailable. */
const descriptorPath = (handle: fsp.FileHandle): Effect.Effect<string | undefined> =>
  Effect.sync(() => descriptorRealPath(handle.fd))

/** Fallback without `/proc`: the path re-resolved now, if it still names the opened file. */
const recheckedPath = (abs: string, stats: Stats): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    const real = yield* realpath(abs)
    const now = yield* stat(real)
    return now.dev === stats.dev && now.ino === stats.ino ? real : undefined
  }).pipe(Effect.orElseSucceed(() => undefined))

/**
 * Opens `abs` once for reading and verifies the descriptor: it must be a regular file whose real
 * path lies inside one of `allowed`. FIFOs and devices are refused by a `stat` before the open,
 * and the open is non-blocking, so one swapped in between cannot hang the read. The handle is
 * closed with the scope.
 * @category reading
 */
export const openVerified = Effect.fnUntraced(function*(abs: string, allowed: ReadonlyArray<string>) {
  const before = yield* stat(abs).pipe(Effect.mapError(readFailure(abs)))
  yield* refuseKind(abs, before)
  const handle = yield* open(abs, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).pipe(Effect.mapError(readFailure(abs)))
  const stats = yield* call("stat", abs, () => handle.stat()).pipe(Effect.mapError(readFailure(abs)))
  yield* refuseKind(abs, stats)
  const real = (yield* descriptorPath(handle)) ?? (yield* recheckedPath(abs, stats))
  if (real === undefined || !allowed.some((dir) => isPathInside(real, dir))) {
    return yield* changedWhileReading(abs, real, allowed)
  }
  return { handle, stats } satisfies OpenedFile
}) as (abs: string, allowed: ReadonlyArray<string>) => Effect.Effect<OpenedFile, OpenError, Scope.Scope>
