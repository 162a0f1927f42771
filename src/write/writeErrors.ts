/**
 * How an OS-level failure of a mutation (edit, write_file, notebook_edit, the shell's sed -i) becomes a tool
 * error: the refusals through the shared errno mapping (src/tool/errno.ts), anything else as the
 * tool's own code.
 *
 * @since 0.1.0
 */
import type { DiskError } from "../disk/index.js"
import {
  directoryTarget,
  FileWriteFailure,
  type NoSpaceLeft,
  type PermissionDenied,
  readRefusal,
  type TargetIsDirectory,
  writeRefusal
} from "../tool/index.js"

/** Every error {@link writeFailure} produces. @category errors */
export type WriteFailure = PermissionDenied | NoSpaceLeft | TargetIsDirectory | FileWriteFailure

/**
 * EACCES/EPERM/EROFS → `permission_denied`, ENOSPC/EDQUOT → `no_space_left`, EISDIR →
 * `target_is_directory` (the reference's messages, with what to do next), anything else →
 * `otherwise` (by default the reference's `file_write_failure`).
 * @category errors
 */
export const writeFailure = <F = FileWriteFailure>(
  file: string,
  e: DiskError,
  otherwise: (e: DiskError) => F = otherWriteFailure(file) as (e: DiskError) => F
): PermissionDenied | NoSpaceLeft | TargetIsDirectory | F =>
  writeRefusal(e.code, e.op === "mkdir" ? e.path : file, e.op === "mkdir" ? "creating the directory of" : "writing to file") ??
    directoryTarget(e.code, file) ?? otherwise(e)

const otherWriteFailure = (file: string) => (e: DiskError): FileWriteFailure => {
  const message = e.code === undefined
    ? `Error writing to file: ${e.message}. Nothing was written; tell the user if it persists.`
    : `Error writing to file '${file}': ${e.message} (${e.code}). Nothing was written; retry once, and tell the user if it fails again.`
  return new FileWriteFailure({ message, display: message })
}

/**
 * A failed read of the file a mutation starts from: EACCES/EPERM → `permission_denied`, anything
 * else → the tool's own code, built by `otherwise` from the errno (or the failure's text).
 * @category errors
 */
export const snapshotReadFailure = <F>(
  e: DiskError,
  otherwise: (reason: string) => F
): PermissionDenied | F => readRefusal(e.code, e.path) ?? otherwise(e.code ?? e.message)
