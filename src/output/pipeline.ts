/**
 * The output pipeline over one batch of finished calls:
 *
 * 1. persistence gate — a single-text result over `truncateChars + persistHeadroom` is saved
 *    whole and replaced by a `<persisted-output>` stub (`read_file` and `read_mcp_resource` are
 *    exempt; failures, multi-part, media and already-truncated results pass);
 * 2. per-tool truncation — `maxOutputChars` and `truncateKeep` of the tool (Infinity exempt; the
 *    line cap only for tools without their own budget), the full text saved;
 * 3. batch budget — the text of all results shares `batchBudget` by max-min fair allocation;
 *    results over their share are saved and cut to a head/tail preview naming the file.
 *
 * A call whose output is a stream went through steps 1–2 as it arrived (`stream.ts`,
 * {@link OutputPipeline.Service.drain}); if it spilled, its entry says so and this pass only
 * gives it its share of the batch budget.
 *
 * An offload that fails never fails the batch: it is logged, counted, and the text says so.
 *
 * Steps 1 and 2 decide what each result saves in call order (reserving room in the store in that
 * order), write the saves several at once, then build each result's text in call order.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import type { CallResult, LlmPart, ToolError, ToolInfo, ToolOutputStream } from "../tool/index.js"
import { fitHeader, fitText, planTextBudget } from "./budget.js"
import { persistForBudget, stubText, truncateAndPersist, truncatedText } from "./compose.js"
import { CurrentOutputLimits, exceedsPersistGate, type OutputLimits } from "./config.js"
import type { OutputTooLarge, PersistError, SessionBudgetExhausted } from "./errors.js"
import { OutputStore, type PersistedOutput, type Reservation } from "./store.js"
import { type DrainedOutput, drainOutput, type DrainOptions } from "./stream.js"
import { isAlreadyTruncated, noOutputMessage, truncateLlmText } from "./truncate.js"

/** One finished call and the tool facts the pipeline needs. @category models */
export interface PipelineEntry {
  readonly result: CallResult
  readonly tool?: Pick<ToolInfo, "name" | "maxOutputChars" | "truncateKeep"> | undefined
  /** Set for a streamed output that spilled: already cut, its full text in these files. */
  readonly streamed?: { readonly persisted: ReadonlyArray<string> } | undefined
}

/** What the pipeline did to a batch. @category models */
export interface PipelineReport {
  /** Results whose full text was saved to the output store. */
  readonly offloaded: number
  /** Saves that failed (logged; the text says the output could not be saved). */
  readonly offloadFailures: number
  /** Text characters of the batch before and after. */
  readonly charsBefore: number
  readonly charsAfter: number
  /** Human-readable warnings with figures (a batch that cannot get under budget, say). */
  readonly warnings: ReadonlyArray<string>
}

/** The pipeline's output: results in call order and the report. @category models */
export interface PipelineOutput {
  readonly results: ReadonlyArray<CallResult>
  readonly report: PipelineReport
}

/** The least a cut result keeps besides its header: separators and a short head/tail preview. @category constants */
export const MIN_PREVIEW_CHARS = 80

/** Most saves of one batch written at once (each holds one write buffer of the store). @category constants */
export const SAVE_CONCURRENCY = 4

interface Working {
  readonly entry: PipelineEntry
  readonly result: CallResult
  readonly persisted: ReadonlyArray<string>
}

const textOf = (parts: ReadonlyArray<LlmPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
const mediaOf = (parts: ReadonlyArray<LlmPart>): Array<LlmPart> => parts.filter((p) => p.type !== "text")

/** The text that counts against the batch budget. @category getters */
export const slotText = (result: CallResult): string =>
  result._tag === "Success" ? textOf(result.llmContent) : result.message

const withText = (result: CallResult, text: string): CallResult =>
  result._tag === "Success"
    ? { ...result, llmContent: [{ type: "text", text }, ...mediaOf(result.llmContent)] }
    : { ...result, message: text }

const toolNameOf = (w: Working): string => w.entry.tool?.name ?? w.result.name

type Reserved = Result.Result<Reservation, OutputTooLarge | SessionBudgetExhausted>

/** What steps 1–2 do to one result, decided before anything is written. */
type Plan =
  /** The gate saves `text` and replaces the result by a stub. */
  | { readonly _tag: "Gate"; readonly w: Working; readonly text: string; readonly reserved: Reserved }
  /** Per-tool truncation saves the full text and shows `preview`. */
  | { readonly _tag: "Cut"; readonly w: Working; readonly preview: string; readonly reserved: Reserved }
  /** Nothing to save; `countFailure` repeats the old count of a replacement that saved nothing. */
  | { readonly _tag: "Done"; readonly w: Working; readonly countFailure: boolean }

/**
 * Runs the pipeline on one batch.
 *
 * @category pipeline
 */
export const finalizeBatch = (
  entries: ReadonlyArray<PipelineEntry>,
  limits: OutputLimits
): Effect.Effect<PipelineOutput, never, OutputStore> => {
  const untouched = passesUntouched(entries, limits)
  return untouched ? Effect.succeed(untouched) : finalizeSlow(entries, limits)
}

/** The largest text no step can touch: under every char threshold and too short to hold 1,000 lines. */
const quietChars = (limits: OutputLimits): number =>
  Math.min(limits.truncateChars, limits.truncateLines, limits.truncateChars + limits.persistHeadroom)

/**
 * The common case, checked without allocating: every result is non-empty text short enough that no
 * step would change it, and the batch is within budget. Then the results pass as they are.
 */
const passesUntouched = (entries: ReadonlyArray<PipelineEntry>, limits: OutputLimits): PipelineOutput | undefined => {
  const quiet = quietChars(limits)
  let total = 0
  for (const { result, tool, streamed } of entries) {
    if (streamed) return undefined // its save is counted in the report
    if (result._tag === "Cancelled") continue
    if (result._tag === "Failure") {
      total += result.message.length
      continue
    }
    let chars = 0
    let hasText = false
    for (const part of result.llmContent) {
      if (part.type !== "text") continue
      chars += part.text.length + (hasText ? 1 : 0)
      hasText = true
      if (part.text.trim() === "") return undefined
    }
    if (!hasText && result.llmContent.length === 0) return undefined
    const own = tool?.maxOutputChars
    if (chars > (own !== undefined && own < quiet ? own : quiet)) return undefined
    total += chars
  }
  if (total > limits.batchBudget) return undefined
  return {
    results: entries.map((e) => e.result),
    report: { offloaded: 0, offloadFailures: 0, charsBefore: total, charsAfter: total, warnings: [] }
  }
}

const finalizeSlow = Effect.fn("OutputPipeline.finalize")(function*(
  entries: ReadonlyArray<PipelineEntry>,
  limits: OutputLimits
) {
  const counts = yield* Ref.make({ offloaded: 0, failures: 0 })
  const count = (ok: boolean) =>
    Ref.update(counts, (c) => (ok ? { ...c, offloaded: c.offloaded + 1 } : { ...c, failures: c.failures + 1 }))

  const store = yield* OutputStore
  // Streamed outputs that spilled were saved (or not) as they arrived.
  for (const { streamed } of entries) if (streamed) yield* count(streamed.persisted.length > 0)

  /** Step 2 as it was when the result went through step 1 unchanged or as a stub whose save failed. */
  const truncate = Effect.fnUntraced(function*(w: Working) {
    const { result } = w
    if (result._tag !== "Success") return w
    const name = toolNameOf(w)
    const text = textOf(result.llmContent)
    const media = mediaOf(result.llmContent)
    if (text.trim() === "" && media.length === 0) return { ...w, result: withText(result, noOutputMessage(name)) }
    const own = w.entry.tool?.maxOutputChars
    if (own === Infinity || text === "" || isAlreadyTruncated(text)) return w
    const out = yield* truncateAndPersist(name, text, {
      chars: own ?? limits.truncateChars,
      lines: own !== undefined ? Infinity : limits.truncateLines,
      keep: w.entry.tool?.truncateKeep ?? "both"
    })
    if (!out.replaced) return w
    yield* count(out.persisted !== undefined)
    return { ...w, result: withText(result, out.content), persisted: out.persisted ? [...w.persisted, out.persisted.path] : w.persisted }
  })

  /** Steps 1–2 for one result up to the save: what it saves, with the room reserved (in call order). */
  const decide = Effect.fnUntraced(function*(entry: PipelineEntry) {
    const w: Working = { entry, result: entry.result, persisted: entry.streamed?.persisted ?? [] }
    const { result } = w
    if (result._tag !== "Success" || entry.streamed) return { _tag: "Done", w, countFailure: false } satisfies Plan
    const name = toolNameOf(w)
    const single = result.llmContent.length === 1 && result.llmContent[0]!.type === "text"
    if (single) {
      const text = slotText(result)
      if (exceedsPersistGate(name, text, limits)) {
        return { _tag: "Gate", w, text, reserved: yield* Effect.result(store.reserve(name, text)) } satisfies Plan
      }
    }
    const text = textOf(result.llmContent)
    const media = mediaOf(result.llmContent)
    if (text.trim() === "" && media.length === 0) {
      return { _tag: "Done", w: { ...w, result: withText(result, noOutputMessage(name)) }, countFailure: false } satisfies Plan
    }
    const own = w.entry.tool?.maxOutputChars
    if (own === Infinity || text === "" || isAlreadyTruncated(text)) return { _tag: "Done", w, countFailure: false } satisfies Plan
    const cut = truncateLlmText(name, text, {
      chars: own ?? limits.truncateChars,
      lines: own !== undefined ? Infinity : limits.truncateLines,
      keep: w.entry.tool?.truncateKeep ?? "both",
      pathChars: store.pathLength(name)
    })
    if (cut.truncated) {
      return { _tag: "Cut", w, preview: cut.content, reserved: yield* Effect.result(store.reserve(name, cut.fullText)) } satisfies Plan
    }
    return cut.content === text
      ? { _tag: "Done", w, countFailure: false } satisfies Plan
      : { _tag: "Done", w: { ...w, result: withText(result, cut.content) }, countFailure: true } satisfies Plan
  })

  /** Steps 1–2 for one result after its save: the text it shows. */
  const finish = Effect.fnUntraced(function*(p: Plan, outcome: Result.Result<PersistedOutput, PersistError> | undefined) {
    if (p._tag === "Done" || outcome === undefined) {
      if (p._tag === "Done" && p.countFailure) yield* count(false)
      return p.w
    }
    const { w } = p
    yield* count(Result.isSuccess(outcome))
    const paths = Result.isSuccess(outcome) ? [outcome.success.path] : []
    if (p._tag === "Gate") {
      const out = yield* stubText(p.text, outcome, limits.previewChars)
      // A stub naming its file is already truncated; a stub with a note goes through step 2.
      return yield* truncate({ ...w, result: withText(w.result, out.content), persisted: paths })
    }
    const out = yield* truncatedText(p.preview, outcome)
    return { ...w, result: withText(w.result, out.content), persisted: [...w.persisted, ...paths] }
  })

  const save = (p: Plan): Effect.Effect<Result.Result<PersistedOutput, PersistError> | undefined> => {
    if (p._tag === "Done") return Effect.succeed(undefined)
    return Result.isFailure(p.reserved) ? Effect.succeed(Result.fail(p.reserved.failure)) : Effect.result(p.reserved.success.save)
  }
  const cancel = (p: Plan) => (p._tag !== "Done" && Result.isSuccess(p.reserved) ? p.reserved.success.cancel : Effect.void)
  const { plans, saved } = yield* Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      // In call order: what each result saves, its room reserved in that order.
      const plans: Array<Plan> = []
      for (const entry of entries) plans.push(yield* decide(entry))
      // The saves, several at once; on interruption the saves that never started give their room back.
      const saved = yield* restore(Effect.forEach(plans, save, { concurrency: SAVE_CONCURRENCY })).pipe(
        Effect.onInterrupt(() => Effect.forEach(plans, cancel, { discard: true }))
      )
      return { plans, saved }
    })
  )
  // In call order: the text each result shows.
  const staged: Array<Working> = []
  for (let i = 0; i < plans.length; i++) staged.push(yield* finish(plans[i]!, saved[i]))

  // Batch budget: every result's text is a slot.
  const texts = staged.map((w) => (w.result._tag === "Cancelled" ? "" : slotText(w.result)))
  const charsBefore = entries.reduce((n, e) => n + (e.result._tag === "Cancelled" ? 0 : slotText(e.result).length), 0)
  const plan = planTextBudget(texts.map((t) => t.length), limits.batchBudget)
  const final: Array<CallResult> = []
  for (let i = 0; i < staged.length; i++) {
    const w = staged[i]!
    if (!plan.overBudget.includes(i)) {
      final.push(w.result)
      continue
    }
    let files = w.persisted
    if (files.length === 0) {
      files = yield* persistForBudget(toolNameOf(w), [texts[i]!])
      yield* count(files.length > 0)
    }
    // Never cut below the header naming the saved file plus a short preview: a pointer that is
    // itself cut off loses the data. When that floor breaks the budget, the report says so.
    const floor = Math.min(texts[i]!.length, fitHeader(files).length + MIN_PREVIEW_CHARS)
    final.push(withText(w.result, fitText(texts[i]!, Math.max(plan.allocations[i]!, floor), files)))
  }

  const charsAfter = final.reduce((n, r) => n + (r._tag === "Cancelled" ? 0 : slotText(r).length), 0)
  const warnings: Array<string> = []
  const budget = limits.batchBudget
  if (Number.isFinite(budget) && budget > 0) {
    for (const w of staged) {
      const own = w.entry.tool?.maxOutputChars
      if (own !== undefined && Number.isFinite(own) && own > budget) {
        warnings.push(
          `Tool ${toolNameOf(w)} allows ${own} chars per result, more than the batch budget of ${budget} chars; the batch budget cuts it.`
        )
      }
    }
    if (charsAfter > budget) {
      warnings.push(
        `The batch cannot get under its budget: ${charsAfter} chars after offloading, budget ${budget} chars, ${final.length} results (each keeps at least its header).`
      )
    }
  }
  const c = yield* Ref.get(counts)
  return {
    results: final,
    report: { offloaded: c.offloaded, offloadFailures: c.failures, charsBefore, charsAfter, warnings: Array.from(new Set(warnings)) }
  } satisfies PipelineOutput
})

/**
 * The session's output pipeline (needs the session's {@link OutputStore}).
 *
 * @category services
 */
export class OutputPipeline extends Context.Service<OutputPipeline, {
  readonly finalize: (entries: ReadonlyArray<PipelineEntry>) => Effect.Effect<PipelineOutput>
  /**
   * Steps 1–2 over one call's output stream as it arrives (see `stream.ts`): bounded memory,
   * spilled to the store past the hold limit; `onPart` is the live tap.
   */
  readonly drain: (stream: ToolOutputStream, options: Omit<DrainOptions, "limits">) => Effect.Effect<DrainedOutput, ToolError>
}>()("toolwright/output/OutputPipeline") {
  /** A pipeline with the given limits (default: the current {@link CurrentOutputLimits}). */
  static readonly layer = (limits?: OutputLimits): Layer.Layer<OutputPipeline, never, OutputStore> =>
    Layer.effect(
      OutputPipeline,
      Effect.gen(function*() {
        const store = yield* OutputStore
        const effective = limits ?? (yield* CurrentOutputLimits)
        return OutputPipeline.of({
          finalize: (entries) => finalizeBatch(entries, effective).pipe(Effect.provideService(OutputStore, store)),
          drain: (stream, options) =>
            drainOutput(stream, { ...options, limits: effective }).pipe(Effect.provideService(OutputStore, store))
        })
      })
    )
}
