/**
 * The model-facing failure codes of every tool, one tagged error class per code, each declared
 * once: `toolError` (src/tool/codedError.ts) gives it its wire `code` (what a door reports as the
 * error type, e.g. `edit_no_occurrence_found`) and its `_tag` (the code in PascalCase); every
 * instance has a model-facing `message` (what went wrong and what to do next) and an optional
 * `display` text for people. Operations declare exactly the classes they can fail with, so
 * `catchTag` is precise and the compiler lists the codes a tool can produce.
 *
 * {@link TOOL_ERROR_CLASSES} is the one list: the {@link ToolError} union, the codes and the
 * lookups below are derived from it. Match a tool error by its `code` ({@link hasCode},
 * {@link errorCode}), never by class name or `instanceof`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { codedError, type CodedErrorClass } from "./codedError.js"

const fields = {
  message: Schema.String,
  display: Schema.optionalKey(Schema.String)
}

/** The class of one tool error code: `message` and optional `display`. @category models */
export type ToolErrorClassOf<Self, Code extends string> = CodedErrorClass<Self, Code, typeof fields>

/**
 * Declares the class of one tool error code:
 * `export class FileNotFound extends toolError<FileNotFound>()("file_not_found") {}`.
 * Add the class to {@link TOOL_ERROR_CLASSES} and a row to docs/errors.md (a test checks both).
 * @category constructors
 */
export const toolError = <Self>() => <const Code extends string>(code: Code): ToolErrorClassOf<Self, Code> =>
  codedError<Self>()(code, fields)

/** Invalid parameters: the tool's arguments failed validation. @category errors */
export class InvalidToolParams extends toolError<InvalidToolParams>()("invalid_tool_params") {}
/** An unclassified failure. @category errors */
export class Unknown extends toolError<Unknown>()("unknown") {}
/** A defect (bug) inside a tool, caught at the door. @category errors */
export class UnhandledException extends toolError<UnhandledException>()("unhandled_exception") {}
/** No tool with that name exists in this session. @category errors */
export class ToolNotRegistered extends toolError<ToolNotRegistered>()("tool_not_registered") {}
/** The tool ran but failed. @category errors */
export class ExecutionFailed extends toolError<ExecutionFailed>()("execution_failed") {}
/** The tool did not finish in time. @category errors */
export class ExecutionTimeout extends toolError<ExecutionTimeout>()("execution_timeout") {}
/** A process launch waited too long for a free slot in the launch gate; nothing was run. @category errors */
export class LaunchQueueTimeout extends toolError<LaunchQueueTimeout>()("launch_queue_timeout") {}
/** Policy or the user refused the call. @category errors */
export class ExecutionDenied extends toolError<ExecutionDenied>()("execution_denied") {}
/** The file does not exist. @category errors */
export class FileNotFound extends toolError<FileNotFound>()("file_not_found") {}
/** Writing the file failed. @category errors */
export class FileWriteFailure extends toolError<FileWriteFailure>()("file_write_failure") {}
/** Reading the file failed. @category errors */
export class ReadContentFailure extends toolError<ReadContentFailure>()("read_content_failure") {}
/** An edit with an empty old_string targeted an existing file. @category errors */
export class AttemptToCreateExistingFile extends toolError<AttemptToCreateExistingFile>()("attempt_to_create_existing_file") {}
/** The file is over the size limit. @category errors */
export class FileTooLarge extends toolError<FileTooLarge>()("file_too_large") {}
/** The operating system refused access. @category errors */
export class PermissionDenied extends toolError<PermissionDenied>()("permission_denied") {}
/** The disk is full. @category errors */
export class NoSpaceLeft extends toolError<NoSpaceLeft>()("no_space_left") {}
/** A file operation was given a directory. @category errors */
export class TargetIsDirectory extends toolError<TargetIsDirectory>()("target_is_directory") {}
/** The path resolves outside every workspace root. @category errors */
export class PathNotInWorkspace extends toolError<PathNotInWorkspace>()("path_not_in_workspace") {}
/** The search path does not exist. @category errors */
export class SearchPathNotFound extends toolError<SearchPathNotFound>()("search_path_not_found") {}
/** The search path is not a directory. @category errors */
export class SearchPathNotADirectory extends toolError<SearchPathNotADirectory>()("search_path_not_a_directory") {}
/** The edit could not be computed. @category errors */
export class EditPreparationFailure extends toolError<EditPreparationFailure>()("edit_preparation_failure") {}
/** old_string was not found in the file. @category errors */
export class EditNoOccurrenceFound extends toolError<EditNoOccurrenceFound>()("edit_no_occurrence_found") {}
/** old_string matched a different number of times than expected. @category errors */
export class EditExpectedOccurrenceMismatch extends toolError<EditExpectedOccurrenceMismatch>()("edit_expected_occurrence_mismatch") {}
/** The edit would not change the file. @category errors */
export class EditNoChange extends toolError<EditNoChange>()("edit_no_change") {}
/** The edit was judged a no-op. @category errors */
export class EditNoChangeLlmJudgement extends toolError<EditNoChangeLlmJudgement>()("edit_no_change_llm_judgement") {}
/** The file must be read in this session before it is changed. @category errors */
export class EditRequiresPriorRead extends toolError<EditRequiresPriorRead>()("edit_requires_prior_read") {}
/** The file changed on disk after it was read. @category errors */
export class FileChangedSinceRead extends toolError<FileChangedSinceRead>()("file_changed_since_read") {}
/** The file's state could not be verified against the last read. @category errors */
export class PriorReadVerificationFailed extends toolError<PriorReadVerificationFailed>()("prior_read_verification_failed") {}
/** The target is a FIFO, socket or device. @category errors */
export class TargetNotRegularFile extends toolError<TargetNotRegularFile>()("target_not_regular_file") {}
/** The notebook edit failed. @category errors */
export class NotebookEditFailure extends toolError<NotebookEditFailure>()("notebook_edit_failure") {}
/** The notebook is not valid JSON. @category errors */
export class NotebookInvalidJson extends toolError<NotebookInvalidJson>()("notebook_invalid_json") {}
/** No cell with that id. @category errors */
export class NotebookCellNotFound extends toolError<NotebookCellNotFound>()("notebook_cell_not_found") {}
/** The glob search failed. @category errors */
export class GlobExecutionError extends toolError<GlobExecutionError>()("glob_execution_error") {}
/** The grep search failed. @category errors */
export class GrepExecutionError extends toolError<GrepExecutionError>()("grep_execution_error") {}
/** Listing the directory failed. @category errors */
export class LsExecutionError extends toolError<LsExecutionError>()("ls_execution_error") {}
/** The path is not a directory. @category errors */
export class PathIsNotADirectory extends toolError<PathIsNotADirectory>()("path_is_not_a_directory") {}
/** An MCP upstream failed. @category errors */
export class McpToolError extends toolError<McpToolError>()("mcp_tool_error") {}
/** The shell command could not be run. @category errors */
export class ShellExecuteError extends toolError<ShellExecuteError>()("shell_execute_error") {}
/** The command sandbox cannot start here (no bubblewrap, no user namespaces); nothing ran. @category errors */
export class SandboxUnavailable extends toolError<SandboxUnavailable>()("sandbox_unavailable") {}
/** The model's output was cut, so the call's content is incomplete. @category errors */
export class OutputTruncated extends toolError<OutputTruncated>()("output_truncated") {}
/** No task with that id. @category errors */
export class TaskStopNotFound extends toolError<TaskStopNotFound>()("task_stop_not_found") {}
/** The task is not running. @category errors */
export class TaskStopNotRunning extends toolError<TaskStopNotRunning>()("task_stop_not_running") {}
/** The task cannot be cancelled. @category errors */
export class TaskStopNotCancellable extends toolError<TaskStopNotCancellable>()("task_stop_not_cancellable") {}
/** Stopping the task failed. @category errors */
export class TaskStopInternalError extends toolError<TaskStopInternalError>()("task_stop_internal_error") {}
/** No task with that id. @category errors */
export class SendMessageNotFound extends toolError<SendMessageNotFound>()("send_message_not_found") {}
/** The task is not running. @category errors */
export class SendMessageNotRunning extends toolError<SendMessageNotRunning>()("send_message_not_running") {}

/** The URL given to `web_fetch` is not an absolute http(s) URL. @category errors */
export class FetchInvalidUrl extends toolError<FetchInvalidUrl>()("fetch_invalid_url") {}
/** The URL's host resolves to a private, loopback, link-local or metadata address that is not allowed. @category errors */
export class FetchBlockedAddress extends toolError<FetchBlockedAddress>()("fetch_blocked_address") {}
/** The page did not arrive within the fetch time cap. @category errors */
export class FetchTimeout extends toolError<FetchTimeout>()("fetch_timeout") {}
/** The page is over the fetch size cap. @category errors */
export class FetchTooLarge extends toolError<FetchTooLarge>()("fetch_too_large") {}
/** The URL redirected more times than the cap allows. @category errors */
export class FetchTooManyRedirects extends toolError<FetchTooManyRedirects>()("fetch_too_many_redirects") {}
/** The page is not text (an image, an archive, a PDF): it is refused rather than garbled. @category errors */
export class FetchUnsupportedContent extends toolError<FetchUnsupportedContent>()("fetch_unsupported_content") {}
/** The server answered with an HTTP error status (4xx, 5xx). @category errors */
export class FetchHttpStatus extends toolError<FetchHttpStatus>()("fetch_http_status") {}
/** The host could not be resolved or reached (DNS failure, connection refused or reset, TLS failure). @category errors */
export class FetchNetworkError extends toolError<FetchNetworkError>()("fetch_network_error") {}
/** Converting the page's HTML to Markdown failed (the converter ran out of memory, hit too deep a nesting, or stopped). @category errors */
export class FetchConversionFailed extends toolError<FetchConversionFailed>()("fetch_conversion_failed") {}
/** Converting the page's HTML to Markdown took longer than its time cap; the conversion was stopped. @category errors */
export class FetchConversionTimeout extends toolError<FetchConversionTimeout>()("fetch_conversion_timeout") {}
/** The task board's SQL database could not be reached, refused the login, or did not answer in time. @category errors */
export class TaskStoreUnavailable extends toolError<TaskStoreUnavailable>()("task_store_unavailable") {}

/** Every tool error class, in reference order: the single source of the codes. @category errors */
export const TOOL_ERROR_CLASSES = [
  InvalidToolParams,
  Unknown,
  UnhandledException,
  ToolNotRegistered,
  ExecutionFailed,
  ExecutionTimeout,
  LaunchQueueTimeout,
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
  SendMessageNotRunning,
  FetchInvalidUrl,
  FetchBlockedAddress,
  FetchTimeout,
  FetchTooLarge,
  FetchTooManyRedirects,
  FetchUnsupportedContent,
  FetchHttpStatus,
  FetchNetworkError,
  FetchConversionFailed,
  FetchConversionTimeout,
  TaskStoreUnavailable
] as const

/** The class of any tool error. @category models */
export type ToolErrorClass = (typeof TOOL_ERROR_CLASSES)[number]

/** Any tool error. @category errors */
export type ToolError = InstanceType<ToolErrorClass>

/** The wire string of a tool error (`edit_no_occurrence_found`, …). @category models */
export type ToolErrorCode = ToolErrorClass["code"]

/** Every wire string, in reference order. @category models */
export const TOOL_ERROR_CODES: ReadonlyArray<ToolErrorCode> = TOOL_ERROR_CLASSES.map((c) => c.code)

// Keyed by the wire code, never by class name: a bundler renames classes (esbuild makes `Unknown`
// `Unknown3` when another module has an `Unknown`), while `code` is data and survives.
const byCode: ReadonlyMap<string, ToolErrorClass> = new Map(TOOL_ERROR_CLASSES.map((c) => [c.code, c]))

/** The class of a wire code. @category constructors */
export const toolErrorClass = <Code extends ToolErrorCode>(code: Code): Extract<ToolErrorClass, { readonly code: Code }> =>
  byCode.get(code) as Extract<ToolErrorClass, { readonly code: Code }>

/**
 * True when `u` is a tool error: it carries a known wire `code`, a string `_tag` and a `message`.
 * Recognition goes by the code, so a renamed or re-declared class (another copy of this module, a
 * bundle) still counts.
 * @category guards
 */
export const isToolError = (u: unknown): u is ToolError =>
  typeof u === "object" && u !== null && "code" in u && typeof u.code === "string" && byCode.has(u.code) &&
  "_tag" in u && typeof u._tag === "string" && "message" in u && typeof u.message === "string"

/** The wire code of `u` when it is a tool error ({@link isToolError}), else `undefined`. @category guards */
export const errorCode = (u: unknown): ToolErrorCode | undefined => (isToolError(u) ? u.code : undefined)

/**
 * True when `u` is a tool error with the code of `cls` (`hasCode(e, FileChangedSinceRead)`): the
 * match by code that replaces `instanceof` and `_tag` comparisons.
 * @category guards
 */
export const hasCode = <C extends ToolErrorClass>(u: unknown, cls: C): u is InstanceType<C> =>
  isToolError(u) && u.code === cls.code

/**
 * The same kind of tool error (same code) with a new message, e.g. to say which operation a
 * shared failure broke.
 * @category constructors
 */
export const restate = <E extends ToolError>(error: E, text: { readonly message: string; readonly display?: string }): E => {
  const cls: new(props: typeof text) => ToolError = toolErrorClass(error.code)
  return new cls(text) as E
}
