/**
 * What the three task tools share: the id param, the text params with their limits, and who "the
 * caller" is when a task is claimed without an owner.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { invalidTaskIdMessage, MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS, TASK_ID_PATTERN } from "./board.js"

/** A task id param: a string holding a positive integer (checked by {@link firstInvalidId}). @category schemas */
export const TaskIdParam = (description: string) => Schema.String.annotate({ description })

/** A subject: at most 200 characters, not blank. @category schemas */
export const SubjectParam = (description: string) =>
  Schema.String.check(
    Schema.isPattern(/\S/u, { message: "The subject must not be empty." }),
    Schema.isMaxLength(MAX_SUBJECT_CHARS)
  ).annotate({ description })

/** A description: at most 10 000 characters. @category schemas */
export const DescriptionParam = (description: string) =>
  Schema.String.check(Schema.isMaxLength(MAX_DESCRIPTION_CHARS)).annotate({ description })

/** The present-continuous form shown while the task runs: at most 200 characters. @category schemas */
export const ActiveFormParam = Schema.String.check(Schema.isMaxLength(MAX_SUBJECT_CHARS)).annotate({
  description: `Present-continuous form shown while the task is in progress (e.g. "Running the tests"), at most ${MAX_SUBJECT_CHARS} characters.`
})

/** Free-form metadata. @category schemas */
export const MetadataParam = (description: string) => Schema.Record(Schema.String, Schema.Unknown).annotate({ description })

/** The reference message for the first id that is not a positive integer, if any. @category validation */
export const firstInvalidId = (ids: ReadonlyArray<string | undefined>): string | undefined => {
  const bad = ids.find((id) => id !== undefined && !TASK_ID_PATTERN.test(id))
  return bad === undefined ? undefined : invalidTaskIdMessage(bad)
}

/** The owner recorded when this session claims a task without naming one. @category constructors */
export const sessionOwner = (sessionId: string): string => `session-${sessionId.slice(0, 8)}`
