/**
 * The model-facing failure codes of every tool, one tagged error class per code.
 *
 * Each class carries its wire string as `code` (what a door reports as the error type, e.g.
 * `edit_no_occurrence_found`), a model-facing `message` (what went wrong and what to do next)
 * and an optional `display` text for people. Operations declare exactly the classes they can
 * fail with, so `catchTag` is precise and the compiler lists the codes a tool can produce.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

const fields = {
  message: Schema.String,
  display: Schema.optionalKey(Schema.String)
}

/** `invalid_tool_params`: Invalid parameters: the tool's arguments failed validation. @category errors */
export class InvalidToolParams extends Schema.TaggedError<InvalidToolParams>()("InvalidToolParams", fields) {
  static readonly code = "invalid_tool_params" as const
  readonly code = "invalid_tool_params" as const
}

/** `unknown`: An unclassified failure. @category errors */
export class Unknown extends Schema.TaggedError<Unknown>()("Unknown", fields) {
  static readonly code = "unknown" as const
  readonly code = "unknown" as const
}

/** `unhandled_exception`: A defect (bug) inside a tool, caught at the door. @category errors */
export class UnhandledException extends Schema.TaggedError<UnhandledException>()("UnhandledException", fields) {
  static readonly code = "unhandled_exception" as const
  readonly code = "unhandled_exception" as const
}

/** `tool_not_registered`: No tool with that name exists in this session. @category errors */
export class ToolNotRegistered extends Schema.TaggedError<ToolNotRegistered>()("ToolNotRegistered", fields) {
  static readonly code = "tool_not_registered" as const
  readonly code = "tool_not_registered" as const
}

/** `execution_failed`: The tool ran but failed. @category errors */
export class ExecutionFailed extends Schema.TaggedError<ExecutionFailed>()("ExecutionFailed", fields) {
  static readonly code = "execution_failed" as const
  readonly code = "execution_failed" as const
}

/** `execution_timeout`: The tool did not finish in time. @category errors */
export class ExecutionTimeout extends Schema.TaggedError<ExecutionTimeout>()("ExecutionTimeout", fields) {
  static readonly code = "execution_timeout" as const
  readonly code = "execution_timeout" as const
}

/** `execution_denied`: Policy or the user refused the call. @category errors */
export class ExecutionDenied extends Schema.TaggedError<ExecutionDenied>()("ExecutionDenied", fields) {
  static readonly code = "execution_denied" as const
  readonly code = "execution_denied" as const
}

/** `file_not_found`: The file does not exist. @category errors */
export class FileNotFound extends Schema.TaggedError<FileNotFound>()("FileNotFound", fields) {
  static readonly code = "file_not_found" as const
  readonly code = "file_not_found" as const
}

/** `file_write_failure`: Writing the file failed. @category errors */
export class FileWriteFailure extends Schema.TaggedError<FileWriteFailure>()("FileWriteFailure", fields) {
  static readonly code = "file_write_failure" as const
  readonly code = "file_write_failure" as const
}

/** `read_content_failure`: Reading the file failed. @category errors */
export class ReadContentFailure extends Schema.TaggedError<ReadContentFailure>()("ReadContentFailure", fields) {
  static readonly code = "read_content_failure" as const
  readonly code = "read_content_failure" as const
}

/** `attempt_to_create_existing_file`: An edit with an empty old_string targeted an existing file. @category errors */
export class AttemptToCreateExistingFile extends Schema.TaggedError<AttemptToCreateExistingFile>()("AttemptToCreateExistingFile", fields) {
  static readonly code = "attempt_to_create_existing_file" as const
  readonly code = "attempt_to_create_existing_file" as const
}

/** `file_too_large`: The file is over the size limit. @category errors */
export class FileTooLarge extends Schema.TaggedError<FileTooLarge>()("FileTooLarge", fields) {
  static readonly code = "file_too_large" as const
  readonly code = "file_too_large" as const
}

/** `permission_denied`: The operating system refused access. @category errors */
export class PermissionDenied extends Schema.TaggedError<PermissionDenied>()("PermissionDenied", fields) {
  static readonly code = "permission_denied" as const
  readonly code = "permission_denied" as const
}

/** `no_space_left`: The disk is full. @category errors */
export class NoSpaceLeft extends Schema.TaggedError<NoSpaceLeft>()("NoSpaceLeft", fields) {
  static readonly code = "no_space_left" as const
  readonly code = "no_space_left" as const
}

/** `target_is_directory`: A file operation was given a directory. @category errors */
export class TargetIsDirectory extends Schema.TaggedError<TargetIsDirectory>()("TargetIsDirectory", fields) {
  static readonly code = "target_is_directory" as const
  readonly code = "target_is_directory" as const
}

/** `path_not_in_workspace`: The path resolves outside every workspace root. @category errors */
export class PathNotInWorkspace extends Schema.TaggedError<PathNotInWorkspace>()("PathNotInWorkspace", fields) {
  static readonly code = "path_not_in_workspace" as const
  readonly code = "path_not_in_workspace" as const
}

/** `search_path_not_found`: The search path does not exist. @category errors */
export class SearchPathNotFound extends Schema.TaggedError<SearchPathNotFound>()("SearchPathNotFound", fields) {
  static readonly code = "search_path_not_found" as const
  readonly code = "search_path_not_found" as const
}

/** `search_path_not_a_directory`: The search path is not a directory. @category errors */
export class SearchPathNotADirectory extends Schema.TaggedError<SearchPathNotADirectory>()("SearchPathNotADirectory", fields) {
  static readonly code = "search_path_not_a_directory" as const
  readonly code = "search_path_not_a_directory" as const
}

/** `edit_preparation_failure`: The edit could not be computed. @category errors */
export class EditPreparationFailure extends Schema.TaggedError<EditPreparationFailure>()("EditPreparationFailure", fields) {
  static readonly code = "edit_preparation_failure" as const
  readonly code = "edit_preparation_failure" as const
}

/** `edit_no_occurrence_found`: old_string was not found in the file. @category errors */
export class EditNoOccurrenceFound extends Schema.TaggedError<EditNoOccurrenceFound>()("EditNoOccurrenceFound", fields) {
  static readonly code = "edit_no_occurrence_found" as const
  readonly code = "edit_no_occurrence_found" as const
}

/** `edit_expected_occurrence_mismatch`: old_string matched a different number of times than expected. @category errors */
export class EditExpectedOccurrenceMismatch extends Schema.TaggedError<EditExpectedOccurrenceMismatch>()("EditExpectedOccurrenceMismatch", fields) {
  static readonly code = "edit_expected_occurrence_mismatch" as const
  readonly code = "edit_expected_occurrence_mismatch" as const
}

/** `edit_no_change`: The edit would not change the file. @category errors */
export class EditNoChange extends Schema.TaggedError<EditNoChange>()("EditNoChange", fields) {
  static readonly code = "edit_no_change" as const
  readonly code = "edit_no_change" as const
}

/** `edit_no_change_llm_judgement`: The edit was judged a no-op. @category errors */
export class EditNoChangeLlmJudgement extends Schema.TaggedError<EditNoChangeLlmJudgement>()("EditNoChangeLlmJudgement", fields) {
  static readonly code = "edit_no_change_llm_judgement" as const
  readonly code = "edit_no_change_llm_judgement" as const
}

/** `edit_requires_prior_read`: The file must be read in this session before it is changed. @category errors */
export class EditRequiresPriorRead extends Schema.TaggedError<EditRequiresPriorRead>()("EditRequiresPriorRead", fields) {
  static readonly code = "edit_requires_prior_read" as const
  readonly code = "edit_requires_prior_read" as const
}

/** `file_changed_since_read`: The file changed on disk after it was read. @category errors */
export class FileChangedSinceRead extends Schema.TaggedError<FileChangedSinceRead>()("FileChangedSinceRead", fields) {
  static readonly code = "file_changed_since_read" as const
  readonly code = "file_changed_since_read" as const
}

/** `prior_read_verification_failed`: The file's state could not be verified against the last read. @category errors */
export class PriorReadVerificationFailed extends Schema.TaggedError<PriorReadVerificationFailed>()("PriorReadVerificationFailed", fields) {
  static readonly code = "prior_read_verification_failed" as const
  readonly code = "prior_read_verification_failed" as const
}

/** `target_not_regular_file`: The target is a FIFO, socket or device. @category errors */
export class TargetNotRegularFile extends Schema.TaggedError<TargetNotRegularFile>()("TargetNotRegularFile", fields) {
  static readonly code = "target_not_regular_file" as const
  readonly code = "target_not_regular_file" as const
}

/** `notebook_edit_failure`: The notebook edit failed. @category errors */
export class NotebookEditFailure extends Schema.TaggedError<NotebookEditFailure>()("NotebookEditFailure", fields) {
  static readonly code = "notebook_edit_failure" as const
  readonly code = "notebook_edit_failure" as const
}

/** `notebook_invalid_json`: The notebook is not valid JSON. @category errors */
export class NotebookInvalidJson extends Schema.TaggedError<NotebookInvalidJson>()("NotebookInvalidJson", fields) {
  static readonly code = "notebook_invalid_json" as const
  readonly code = "notebook_invalid_json" as const
}

/** `notebook_cell_not_found`: No cell with that id. @category errors */
export class NotebookCellNotFound extends Schema.TaggedError<NotebookCellNotFound>()("NotebookCellNotFound", fields) {
  static readonly code = "notebook_cell_not_found" as const
  readonly code = "notebook_cell_not_found" as const
}

/** `glob_execution_error`: The glob search failed. @category errors */
export class GlobExecutionError extends Schema.TaggedError<GlobExecutionError>()("GlobExecutionError", fields) {
  static readonly code = "glob_execution_error" as const
  readonly code = "glob_execution_error" as const
}

/** `grep_execution_error`: The grep search failed. @category errors */
export class GrepExecutionError extends Schema.TaggedError<GrepExecutionError>()("GrepExecutionError", fields) {
  static readonly code = "grep_execution_error" as const
  readonly code = "grep_execution_error" as const
}

/** `ls_execution_error`: Listing the directory failed. @category errors */
export class LsExecutionError extends Schema.TaggedError<LsExecutionError>()("LsExecutionError", fields) {
  static readonly code = "ls_execution_error" as const
  readonly code = "ls_execution_error" as const
}

/** `path_is_not_a_directory`: The path is not a directory. @category errors */
export class PathIsNotADirectory extends Schema.TaggedError<PathIsNotADirectory>()("PathIsNotADirectory", fields) {
  static readonly code = "path_is_not_a_directory" as const
  readonly code = "path_is_not_a_directory" as const
}

/** `mcp_tool_error`: An MCP upstream failed. @category errors */
export class McpToolError extends Schema.TaggedError<McpToolError>()("McpToolError", fields) {
  static readonly code = "mcp_tool_error" as const
  readonly code = "mcp_tool_error" as const
}

/** `shell_execute_error`: The shell command could not be run. @category errors */
export class ShellExecuteError extends Schema.TaggedError<ShellExecuteError>()("ShellExecuteError", fields) {
  static readonly code = "shell_execute_error" as const
  readonly code = "shell_execute_error" as const
}

/** `sandbox_unavailable`: The command sandbox cannot start here (no bubblewrap, no user namespaces); nothing ran. @category errors */
export class SandboxUnavailable extends Schema.TaggedError<SandboxUnavailable>()("SandboxUnavailable", fields) {
  static readonly code = "sandbox_unavailable" as const
  readonly code = "sandbox_unavailable" as const
}

/** `output_truncated`: The model's output was cut, so the call's content is incomplete. @category errors */
export class OutputTruncated extends Schema.TaggedError<OutputTruncated>()("OutputTruncated", fields) {
  static readonly code = "output_truncated" as const
  readonly code = "output_truncated" as const
}

/** `task_stop_not_found`: No task with that id. @category errors */
export class TaskStopNotFound extends Schema.TaggedError<TaskStopNotFound>()("TaskStopNotFound", fields) {
  static readonly code = "task_stop_not_found" as const
  readonly code = "task_stop_not_found" as const
}

/** `task_stop_not_running`: The task is not running. @category errors */
export class TaskStopNotRunning extends Schema.TaggedError<TaskStopNotRunning>()("TaskStopNotRunning", fields) {
  static readonly code = "task_stop_not_running" as const
  readonly code = "task_stop_not_running" as const
}

/** `task_stop_not_cancellable`: The task cannot be cancelled. @category errors */
export class TaskStopNotCancellable extends Schema.TaggedError<TaskStopNotCancellable>()("TaskStopNotCancellable", fields) {
  static readonly code = "task_stop_not_cancellable" as const
  readonly code = "task_stop_not_cancellable" as const
}

/** `task_stop_internal_error`: Stopping the task failed. @category errors */
export class TaskStopInternalError extends Schema.TaggedError<TaskStopInternalError>()("TaskStopInternalError", fields) {
  static readonly code = "task_stop_internal_error" as const
  readonly code = "task_stop_internal_error" as const
}

/** `send_message_not_found`: No task with that id. @category errors */
export class SendMessageNotFound extends Schema.TaggedError<SendMessageNotFound>()("SendMessageNotFound", fields) {
  static readonly code = "send_message_not_found" as const
  readonly code = "send_message_not_found" as const
}

/** `send_message_not_running`: The task is not running. @category errors */
export class SendMessageNotRunning extends Schema.TaggedError<SendMessageNotRunning>()("SendMessageNotRunning", fields) {
  static readonly code = "send_message_not_running" as const
  readonly code = "send_message_not_running" as const
}

/** Every tool error class, in reference order. @category errors */
export const TOOL_ERROR_CLASSES = [
  InvalidToolParams,
  Unknown,
  UnhandledException,
  ToolNotRegistered,
  ExecutionFailed,
  ExecutionTimeout,
  ExecutionDenied,
  FileNotFound,
  FileWriteFailure,
  ReadContentFailure,
  AttemptToCreateExistingFile,
  FileTooLarge,
  PermissionDenied,
  NoSpaceLeft,
  TargetIsDirectory,
  PathNotInWorkspace,
  SearchPathNotFound,
  SearchPathNotADirectory,
  EditPreparationFailure,
  EditNoOccurrenceFound,
  EditExpectedOccurrenceMismatch,
  EditNoChange,
  EditNoChangeLlmJudgement,
  EditRequiresPriorRead,
  FileChangedSinceRead,
  PriorReadVerificationFailed,
  TargetNotRegularFile,
  NotebookEditFailure,
  NotebookInvalidJson,
  NotebookCellNotFound,
  GlobExecutionError,
  GrepExecutionError,
  LsExecutionError,
  PathIsNotADirectory,
  McpToolError,
  ShellExecuteError,
  SandboxUnavailable,
  OutputTruncated,
  TaskStopNotFound,
  TaskStopNotRunning,
  TaskStopNotCancellable,
  TaskStopInternalError,
  SendMessageNotFound,
  SendMessageNotRunning
] as const

/** Any tool error. @category errors */
export type ToolError =
  | InvalidToolParams
  | Unknown
  | UnhandledException
  | ToolNotRegistered
  | ExecutionFailed
  | ExecutionTimeout
  | ExecutionDenied
  | FileNotFound
  | FileWriteFailure
  | ReadContentFailure
  | AttemptToCreateExistingFile
  | FileTooLarge
  | PermissionDenied
  | NoSpaceLeft
  | TargetIsDirectory
  | PathNotInWorkspace
  | SearchPathNotFound
  | SearchPathNotADirectory
  | EditPreparationFailure
  | EditNoOccurrenceFound
  | EditExpectedOccurrenceMismatch
  | EditNoChange
  | EditNoChangeLlmJudgement
  | EditRequiresPriorRead
  | FileChangedSinceRead
  | PriorReadVerificationFailed
  | TargetNotRegularFile
  | NotebookEditFailure
  | NotebookInvalidJson
  | NotebookCellNotFound
  | GlobExecutionError
  | GrepExecutionError
  | LsExecutionError
  | PathIsNotADirectory
  | McpToolError
  | ShellExecuteError
  | SandboxUnavailable
  | OutputTruncated
  | TaskStopNotFound
  | TaskStopNotRunning
  | TaskStopNotCancellable
  | TaskStopInternalError
  | SendMessageNotFound
  | SendMessageNotRunning

/** The wire string of a tool error (`edit_no_occurrence_found`, …). @category models */
export type ToolErrorCode = ToolError["code"]

/** Every wire string, in reference order. @category models */
export const TOOL_ERROR_CODES: ReadonlyArray<ToolErrorCode> = TOOL_ERROR_CLASSES.map((c) => c.code)

// Keyed by the wire code, never by class name: a bundler renames classes (esbuild makes `Unknown`
// `Unknown3` when another module has an `Unknown`), while `code` is data and survives.
const codes: ReadonlySet<string> = new Set(TOOL_ERROR_CODES)

/**
 * True when `u` is a tool error: it carries a known wire `code`, a string `_tag` and a `message`.
 * Recognition goes by the code, so a renamed or re-declared class (another copy of this module, a
 * bundle) still counts.
 * @category guards
 */
export const isToolError = (u: unknown): u is ToolError =>
  typeof u === "object" && u !== null && "code" in u && typeof u.code === "string" && codes.has(u.code) &&
  "_tag" in u && typeof u._tag === "string" && "message" in u && typeof u.message === "string"
