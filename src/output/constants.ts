/**
 * The fixed strings and numbers of the output room, carried over verbatim from the reference
 * (`reference/qwen-tool-layer.md` §10). Every model-visible marker lives here so that producers
 * (truncation, stubs, batch fitting) and detectors (`isAlreadyTruncated`) cannot drift apart.
 *
 * @since 0.1.0
 */

/** Default per-call character threshold (§10.1 `DEFAULT_TRUNCATE_TOOL_OUTPUT_THRESHOLD`). @category constants */
export const DEFAULT_TRUNCATE_CHARS = 25_000

/** Default per-call line limit (§10.1 `DEFAULT_TRUNCATE_TOOL_OUTPUT_LINES`). @category constants */
export const DEFAULT_TRUNCATE_LINES = 1_000

/** Default character budget for all text of one batch of tool results (§10.1). @category constants */
export const DEFAULT_BATCH_BUDGET = 200_000

/** Headroom above the char threshold before the persistence gate fires (§10.1 `GATE_HEADROOM`). @category constants */
export const DEFAULT_PERSIST_HEADROOM = 3_000

/** Preview size of the `<persisted-output>` stub (§10.1 `PREVIEW_SIZE_CHARS`). @category constants */
export const DEFAULT_PREVIEW_CHARS = 2_000

/** Largest single persisted output file, in bytes (§10.1 `MAX_FILE_SIZE_BYTES`, 50 MiB). @category constants */
export const DEFAULT_MAX_OUTPUT_FILE_BYTES = 50 * 1024 * 1024

/** Largest total of persisted output per session, in bytes (§10.1 `MAX_SESSION_BYTES`, 500 MiB). @category constants */
export const DEFAULT_MAX_SESSION_OUTPUT_BYTES = 500 * 1024 * 1024

/** Default cap on tool calls running in parallel in one batch (§10.1, §10.6). @category constants */
export const DEFAULT_MAX_TOOL_CONCURRENCY = 10

/** Tools whose text is never replaced by the persistence gate (§10.1 `GATE_EXEMPT_TOOLS`). @category constants */
export const GATE_EXEMPT_TOOLS: ReadonlySet<string> = new Set(["read_file", "read_mcp_resource", "enter_plan_mode"])

/** First words of every wrapped truncation message (§10.1 `TOOL_OUTPUT_TRUNCATED_PREFIX`). @category constants */
export const TOOL_OUTPUT_TRUNCATED_PREFIX = "Tool output was too large and has been truncated"

/** The marker that shows where content was removed. @category constants */
export const TRUNCATION_MARKER = "... [CONTENT TRUNCATED] ..."

/** The separator placed where content was removed (39 chars, §10.1). @category constants */
export const TRUNCATION_SEPARATOR = `\n\n---\n${TRUNCATION_MARKER}\n---\n\n`

/** Appended to a truncated preview whose full text could not be saved (§10.2 step 8). @category constants */
export const COULD_NOT_SAVE_NOTE = "[Note: Could not save full output to file]"

/** Ellipsis used when a single line is cut. @category constants */
export const LINE_ELLIPSIS = "..."

/** Opening tag of the persisted-output stub (§10.3). @category constants */
export const PERSISTED_OUTPUT_OPEN_TAG = "<persisted-output>"

/** Closing tag of the persisted-output stub (§10.3). @category constants */
export const PERSISTED_OUTPUT_CLOSE_TAG = "</persisted-output>"

/** Stub note when the content is over the per-file byte cap (§10.3). @category constants */
export const NOTE_FILE_TOO_LARGE = "(file too large to persist)"

/** Stub note when the session byte budget is used up (§10.3). @category constants */
export const NOTE_SESSION_BUDGET_EXHAUSTED = "(session disk budget exhausted)"

/** Stub note when writing failed for another reason (reference's last-resort note). @category constants */
export const NOTE_PERSISTENCE_UNAVAILABLE = "(disk persistence unavailable)"

/** Label of the digest line our stubs carry. @category constants */
export const SHA256_LABEL = "SHA-256: "

/** Header of a batch-budget fit without a persisted file (§10.5). @category constants */
export const BATCH_TRUNCATED_HEADER = "Tool output truncated."

/** Name of the tool the model uses to read saved outputs. @category constants */
export const READ_FILE_TOOL_NAME = "read_file"
