/**
 * The write room: the one mutation path of every tool that changes a file (edit, write_file,
 * notebook_edit, the shell's sed -i), the settings it runs with, and how its OS failures become
 * tool errors. Above `text/` and `session/`, below the tool rooms.
 *
 * @since 0.3.0
 */
/** Load a file for a change, commit new bytes (history, compare-and-swap write, read-cache record). */
export {
  commitPlan,
  commitSnapshot,
  loadSnapshot,
  makeMutationContext,
  snapshotOf,
  unchangedSinceApproval
} from "./mutation.js"
/** A loaded file, a plan to commit, what a commit did, the context and the prior-read guard. */
export type { CommitOptions, CommitPlan, CommitResult, FileSnapshot, MutationContext, PriorGuard } from "./mutation.js"
/** OS failures of a load or a commit → tool errors (through tool/errno.ts). */
export { snapshotReadFailure, type WriteFailure, writeFailure } from "./writeErrors.js"
/** Settings of the mutating tools (and read_file's), their defaults and environment variables. */
export {
  DEFAULT_FILE_TOOLS_SETTINGS,
  DEFAULT_MAX_EDIT_FILE_BYTES,
  FILE_TOOLS_ENV_VARS,
  FileToolsConfig,
  type FileToolsSettings,
  loadFileToolsSettings
} from "./config.js"
