/**
 * Typed failures of the output room. Each carries a model-facing `message` (what happened and
 * what it means for the output) plus the numbers behind it, so a caller can `catchTag` the exact
 * case and choose the right stub note.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The content is over the per-file byte cap, so it was not saved. @category errors */
export class OutputTooLarge extends Schema.TaggedError<OutputTooLarge>()("OutputTooLarge", {
  toolName: Schema.String,
  bytes: Schema.Number,
  maxBytes: Schema.Number,
  message: Schema.String
}) {
  /** The wire code a door reports for it. */
  static readonly code = "output_too_large" as const
  readonly code = "output_too_large" as const
}

/** Saving the content would exceed the session's byte budget, so it was not saved. @category errors */
export class SessionBudgetExhausted extends Schema.TaggedError<SessionBudgetExhausted>()("SessionBudgetExhausted", {
  toolName: Schema.String,
  bytes: Schema.Number,
  usedBytes: Schema.Number,
  maxBytes: Schema.Number,
  message: Schema.String
}) {
  /** The wire code a door reports for it. */
  static readonly code = "session_budget_exhausted" as const
  readonly code = "session_budget_exhausted" as const
}

/** Writing the output file failed (directory, temp file, permissions or rename). @category errors */
export class OutputWriteFailed extends Schema.TaggedError<OutputWriteFailed>()("OutputWriteFailed", {
  toolName: Schema.String,
  path: Schema.String,
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {
  /** The wire code a door reports for it. */
  static readonly code = "persist_error" as const
  readonly code = "persist_error" as const
}

/** No saved output with that id exists in this session. @category errors */
export class OutputNotFound extends Schema.TaggedError<OutputNotFound>()("OutputNotFound", {
  id: Schema.String,
  message: Schema.String
}) {}

/** A saved output could not be read back (e.g. it was cleaned up). @category errors */
export class OutputReadFailed extends Schema.TaggedError<OutputReadFailed>()("OutputReadFailed", {
  id: Schema.String,
  path: Schema.String,
  message: Schema.String,
  cause: Schema.optionalKey(Schema.Defect())
}) {}

/** A paged read asked for an invalid line range. @category errors */
export class InvalidOutputPage extends Schema.TaggedError<InvalidOutputPage>()("InvalidOutputPage", {
  id: Schema.String,
  message: Schema.String
}) {}

/** An output-limit environment variable holds an invalid value. @category errors */
export class InvalidOutputLimit extends Schema.TaggedError<InvalidOutputLimit>()("InvalidOutputLimit", {
  variable: Schema.String,
  value: Schema.String,
  message: Schema.String
}) {}

/** Every failure `OutputStore.persist` can report; each carries its wire `code`. @category errors */
export type PersistError = OutputTooLarge | SessionBudgetExhausted | OutputWriteFailed

/** Every failure `OutputStore.read` can report. @category errors */
export type ReadError = OutputNotFound | OutputReadFailed | InvalidOutputPage
