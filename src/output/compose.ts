/**
 * The pure steps of the output room joined with the {@link OutputStore}: per-call truncation
 * that saves the full text, the persistence-gate stub, and the save that precedes a batch-budget
 * fit. None of them fails: a save that does not happen is logged and reflected in the text the
 * model sees (a note instead of a path).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { NOTE_FILE_TOO_LARGE, NOTE_PERSISTENCE_UNAVAILABLE, NOTE_SESSION_BUDGET_EXHAUSTED } from "./constants.js"
import type { PersistError } from "./errors.js"
import { type PersistedOutput, OutputStore } from "./store.js"
import { persistedOutputStub } from "./stub.js"
import { truncateLlmText, type TruncateOptions, wrapTruncatedOutput, wrapUnsavedOutput } from "./truncate.js"

/** Text for the model after a save step, and the saved record when there is one. @category models */
export interface OutputText {
  readonly content: string
  /** True when `content` is no longer the tool's original output. */
  readonly replaced: boolean
  readonly persisted?: PersistedOutput | undefined
}

/** The stub note matching a failed save. @category constructors */
export const noteFor = (error: PersistError): string =>
  error._tag === "OutputTooLarge"
    ? NOTE_FILE_TOO_LARGE
    : error._tag === "SessionBudgetExhausted"
    ? NOTE_SESSION_BUDGET_EXHAUSTED
    : NOTE_PERSISTENCE_UNAVAILABLE

/**
 * The text of a cut result once its save ended: the preview wrapped with the file path, or with
 * the "could not save" note (the failure is logged).
 *
 * @category pipeline
 */
export const truncatedText = (
  preview: string,
  saved: Result.Result<PersistedOutput, PersistError>
): Effect.Effect<OutputText> =>
  Result.isSuccess(saved)
    ? Effect.succeed({ content: wrapTruncatedOutput(preview, { path: saved.success.path }), replaced: true, persisted: saved.success })
    : Effect.as(Effect.logWarning(saved.failure.message), { content: wrapUnsavedOutput(preview), replaced: true })

/**
 * The persistence gate's text once the save of `content` ended: the `<persisted-output>` stub
 * naming the file, or the non-file stub with the matching note (the failure is logged).
 *
 * @category pipeline
 */
export const stubText = (
  content: string,
  saved: Result.Result<PersistedOutput, PersistError>,
  previewChars?: number,
  /** Size and digest of the whole output when `content` is only its head (a streamed output). */
  whole?: { readonly bytes: number; readonly sha256: string }
): Effect.Effect<OutputText> =>
  Result.isSuccess(saved)
    ? Effect.succeed({
      content: persistedOutputStub(content, { path: saved.success.path }, {
        previewChars,
        bytes: saved.success.bytes,
        sha256: saved.success.sha256
      }),
      replaced: true,
      persisted: saved.success
    })
    : Effect.as(Effect.logWarning(saved.failure.message), {
      content: persistedOutputStub(content, { note: noteFor(saved.failure) }, { previewChars, bytes: whole?.bytes, sha256: whole?.sha256 }),
      replaced: true
    })

/**
 * Per-call truncation (§10.2 + `truncateLlmContent`): empty output becomes the no-output
 * message; an over-limit output is cut, its full text saved, and the preview wrapped with the
 * file path, or with the "could not save" note when saving fails.
 *
 * @category pipeline
 */
export const truncateAndPersist = Effect.fn("output.truncateAndPersist")(function*(
  toolName: string,
  content: string,
  options: TruncateOptions
) {
  const store = yield* OutputStore
  const result = truncateLlmText(toolName, content, { ...options, pathChars: options.pathChars ?? store.pathLength(toolName) })
  if (!result.truncated) return { content: result.content, replaced: result.content !== content } satisfies OutputText
  return yield* truncatedText(result.content, yield* Effect.result(store.persist(toolName, result.fullText)))
})

/**
 * The persistence gate's replacement (§10.3): saves `content` and returns the
 * `<persisted-output>` stub naming the file, or the non-file stub with the matching note
 * (`(file too large to persist)`, `(session disk budget exhausted)`, `(disk persistence
 * unavailable)`).
 *
 * @category pipeline
 */
export const persistWithStub = Effect.fn("output.persistWithStub")(function*(
  toolName: string,
  content: string,
  previewChars?: number
) {
  const store = yield* OutputStore
  return yield* stubText(content, yield* Effect.result(store.persist(toolName, content)), previewChars)
})

/**
 * Saves the text slots of one over-budget entry (joined by a blank line, as the reference does)
 * before the batch budget cuts them; returns the files to name in the `fitText` header (empty
 * when the save failed, which is logged).
 *
 * @category pipeline
 */
export const persistForBudget = Effect.fn("output.persistForBudget")(function*(
  toolName: string,
  texts: ReadonlyArray<string>
) {
  const store = yield* OutputStore
  return yield* store.persist(toolName, texts.join("\n\n")).pipe(
    Effect.map((persisted): ReadonlyArray<string> => [persisted.path]),
    Effect.catch((error) => Effect.logWarning(error.message).pipe(Effect.as<ReadonlyArray<string>>([])))
  )
})
