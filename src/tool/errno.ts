/**
 * errno → tool error, in one place. Every tool that touches the file system turns an OS refusal
 * into the documented code (docs/errors.md) through these functions, never by comparing codes of
 * its own, so `permission_denied` and `no_space_left` mean the same thing in read_file, edit,
 * write_file, notebook_edit, the sed rewrite, the plan board and the state directory:
 *
 * | errno | code |
 * |---|---|
 * | EACCES, EPERM | `permission_denied` |
 * | EROFS (read-only file system) | `permission_denied` (the OS refuses every write there; nothing to free) |
 * | ENOSPC, EDQUOT | `no_space_left` (writes only) |
 * | ENOENT, ENOTDIR | `file_not_found`, where the caller asked for an existing file ({@link isMissing}) |
 * | EISDIR | `target_is_directory` ({@link directoryTarget}) |
 * | anything else | the caller's own code (`read_content_failure`, `file_write_failure`, …) |
 *
 * Messages name the path, the operation and the errno, and say what to do next; they never pass
 * on Node's raw text (`EACCES: permission denied, open '…'`).
 *
 * @since 0.1.0
 */
import { errnoCode } from "../disk/index.js"
import { FileWriteFailure, NoSpaceLeft, PermissionDenied, restate, TargetIsDirectory } from "./errors.js"

/** The errno code (`ENOENT`, `EACCES`, …) of a thrown Node error or a disk error, if any (defined by the disk room). @category errno */
export { errnoCode }

/**
 * A failure's errno: the code itself (a string, or `undefined` when there is none), or anything
 * carrying it as `code` (a thrown Node error, a tagged error that kept it).
 */
type CodeOf = unknown

const codeOf = (failure: CodeOf): string | undefined => (typeof failure === "string" ? failure : errnoCode(failure))

/** What was being done when the OS refused; the message says it as "Permission denied <doing>: <path>". @category models */
export type FsOperation =
  | "reading file"
  | "listing directory"
  | "checking file"
  | "writing to file"
  | "creating the directory of"
  | "saving"

/** Whether the errno says the path (or a directory on the way) does not exist: ENOENT, ENOTDIR. @category errno */
export const isMissing = (failure: CodeOf): boolean => {
  const code = codeOf(failure)
  return code === "ENOENT" || code === "ENOTDIR"
}

const permission = (code: string, path: string, doing: FsOperation): PermissionDenied => {
  const head = code === "EROFS" ? `Read-only file system: ${path} (EROFS)` : `Permission denied ${doing}: ${path} (${code})`
  const next = code === "EROFS"
    ? "The file system refuses every write there, so nothing was written. Do not retry; tell the user, or write elsewhere."
    : `The operating system does not let toolwright's user ${doing === "reading file" || doing === "checking file" || doing === "listing directory" ? "read" : "write"} ` +
      `it (or a directory on its path). Do not retry the same call; tell the user which file it is, or use another path.`
  return new PermissionDenied({ message: `${head}. ${next}`, display: head })
}

const noSpace = (code: string, path: string): NoSpaceLeft => {
  const head = `No space left on device: ${path} (${code})`
  const why = code === "EDQUOT" ? "The disk quota is exhausted" : "The device is full"
  return new NoSpaceLeft({
    message: `${head}. ${why}; nothing was written and the file is as it was. Stop writing and tell the user, who can ` +
      `free space; then retry.`,
    display: head
  })
}

/**
 * The tool error of an OS refusal while reading (EACCES, EPERM → `permission_denied`), or
 * `undefined` when the errno is not a refusal (the caller's own code applies).
 * @category errno
 */
export const readRefusal = (
  failure: CodeOf,
  path: string,
  doing: "reading file" | "checking file" | "listing directory" = "reading file"
): PermissionDenied | undefined => {
  const code = codeOf(failure)
  return code === "EACCES" || code === "EPERM" ? permission(code, path, doing) : undefined
}

/**
 * The tool error of an OS refusal while writing (EACCES, EPERM, EROFS → `permission_denied`;
 * ENOSPC, EDQUOT → `no_space_left`), or `undefined` when the errno is not a refusal.
 * @category errno
 */
export const writeRefusal = (
  failure: CodeOf,
  path: string,
  doing: FsOperation = "writing to file"
): PermissionDenied | NoSpaceLeft | undefined => {
  const code = codeOf(failure)
  switch (code) {
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return permission(code, path, doing)
    case "ENOSPC":
    case "EDQUOT":
      return noSpace(code, path)
    default:
      return undefined
  }
}

/** `target_is_directory` for EISDIR, else `undefined`. @category errno */
export const directoryTarget = (failure: CodeOf, path: string): TargetIsDirectory | undefined =>
  codeOf(failure) === "EISDIR"
    ? new TargetIsDirectory({
      message: `Target is a directory, not a file: ${path} (EISDIR). Give a file path; use list_directory or glob to see ` +
        `what the directory holds.`,
      display: `Target is a directory, not a file: ${path}`
    })
    : undefined

/**
 * How a failure that is not a refusal reads in a message: the errno when there is one (never
 * Node's raw text, which repeats the path and the syscall), else the failure's own text.
 * @category errno
 */
export const failureReason = (failure: unknown): string => {
  const code = errnoCode(failure)
  if (code !== undefined) return code
  if (typeof failure === "object" && failure !== null && "message" in failure && typeof failure.message === "string") {
    return failure.message
  }
  return String(failure)
}

/**
 * {@link writeRefusal} for callers that word their own message (it must already say what to do
 * next): the same errno classes, the caller's text.
 * @category errno
 */
export const writeRefusalWith = (
  failure: CodeOf,
  text: { readonly message: string; readonly display: string }
): PermissionDenied | NoSpaceLeft | undefined => {
  switch (codeOf(failure)) {
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new PermissionDenied(text)
    case "ENOSPC":
    case "EDQUOT":
      return new NoSpaceLeft(text)
    default:
      return undefined
  }
}

/**
 * {@link writeRefusalWith}, or `file_write_failure` with the same text when the errno is not a
 * refusal: the whole mapping of a failed write for callers that word their own message.
 * @category errno
 */
export const writeFailureWith = (
  failure: CodeOf,
  text: { readonly message: string; readonly display: string }
): PermissionDenied | NoSpaceLeft | FileWriteFailure => writeRefusalWith(failure, text) ?? new FileWriteFailure(text)

/** The same kind of write failure with a new text (to say which operation it broke). @category errno */
export const restateWriteFailure = (
  error: PermissionDenied | NoSpaceLeft | FileWriteFailure,
  text: { readonly message: string; readonly display: string }
): PermissionDenied | NoSpaceLeft | FileWriteFailure => restate(error, text)
