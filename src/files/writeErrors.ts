/**
 * How an OS-level write failure becomes a tool error for write_file (reference §6 step 7) and
 * notebook_edit.
 *
 * @since 0.1.0
 */
import type { AtomicWriteError } from "../text/atomicWrite.js"
import { FileWriteFailure, NoSpaceLeft, PermissionDenied, TargetIsDirectory } from "../tool/errors.js"

/** Every error {@link writeFailure} produces. @category errors */
export type WriteFailure = PermissionDenied | NoSpaceLeft | TargetIsDirectory | FileWriteFailure

/**
 * EACCES/EPERM → `permission_denied`, ENOSPC/EDQUOT → `no_space_left`, EISDIR →
 * `target_is_directory`, anything else → `file_write_failure`, with the reference's messages.
 * @category errors
 */
export const writeFailure = (file: string, e: AtomicWriteError): WriteFailure => {
  switch (e.code) {
    case "EACCES":
    case "EPERM":
      return new PermissionDenied({
        message: `Permission denied writing to file: ${file} (${e.code})`,
        display: `Permission denied writing to file: ${file} (${e.code})`
      })
    case "ENOSPC":
    case "EDQUOT":
      return new NoSpaceLeft({
        message: `No space left on device: ${file} (${e.code})`,
        display: `No space left on device: ${file} (${e.code})`
      })
    case "EISDIR":
      return new TargetIsDirectory({
        message: `Target is a directory, not a file: ${file} (EISDIR)`,
        display: `Target is a directory, not a file: ${file} (EISDIR)`
      })
    default: {
      const message = e.code === undefined
        ? `Error writing to file: ${e.message}`
        : `Error writing to file '${file}': ${e.message} (${e.code})`
      return new FileWriteFailure({ message, display: message })
    }
  }
}
