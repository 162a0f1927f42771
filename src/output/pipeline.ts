/**
 * The output pipeline over one batch of finished calls, as a Stream:
 *
 * 1. persistence gate — a single-text result over `truncateChars + persistHeadroom` is saved
 *    whole and replaced by a `<persisted-output>` stub (`read_file` and `read_mcp_resource` are
 *    exempt; failures, multi-part, media and already-truncated results pass);
 * 2. per-tool truncation — `maxOutputChars` and `truncateKeep` of the tool (Infinity exempt; the
 *    line cap only for tools without their own budget), the full text saved;
 * 3. batch budget — the text of all results shares `batchBudget` by max-min fair allocation;
 *    results over their share are saved and cut to a head/tail preview naming the file.
 *
 * An offload that fails never fails the batch: it is logged, counted, and the text says so.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type { CallResult } from "../tool/outcome.js"
import type { LlmPart } from "../tool/result.js"
import type { ToolInfo } from "../tool/tool.js"
import { fitHeader, fitText, planTextBudget } from "./budget.js"
import { persistForBudget, persistWithStub, truncateAndPersist } from "./compose.js"
import { CurrentOutputLimits, exceedsPersistGate, type OutputLimits } from "./config.js"
import { OutputStore } from "./store.js"
import { isAlreadyTruncated, noOutputMessage } from "./truncate.js"

/** One finished call and the tool facts the pipeline needs. @category models */
export interface PipelineEntry {
  readonly result: CallResult
  readonly tool?: Pick<ToolInfo, "name" | "maxOutputChars" | "truncateKeep"> | undefined
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
  for (const { result, tool } of entries) {
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

  const gate = Effect.fnUntraced(function*(w: Working) {
    const { result } = w
    const name = toolNameOf(w)
    if (result._tag !== "Success") return w
    const single = result.llmContent.length === 1 && result.llmContent[0]!.type === "text"
    if (!single) return w
    const text = slotText(result)
    if (!exceedsPersistGate(name, text, limits)) return w
    const out = yield* persistWithStub(name, text, limits.previewChars)
    yield* count(out.persisted !== undefined)
    return { ...w, result: withText(result, out.content), persisted: out.persisted ? [out.persisted.path] : [] }
  })

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

  const staged = yield* Stream.fromIterable(entries).pipe(
    Stream.map((entry): Working => ({ entry, result: entry.result, persisted: [] })),
    Stream.mapEffect(gate),
    Stream.mapEffect(truncate),
    Stream.runCollect
  )

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
}>()("toolwright/output/OutputPipeline") {
  /** A pipeline with the given limits (default: the current {@link CurrentOutputLimits}). */
  static readonly layer = (limits?: OutputLimits): Layer.Layer<OutputPipeline, never, OutputStore> =>
    Layer.effect(
      OutputPipeline,
      Effect.gen(function*() {
        const store = yield* OutputStore
        const effective = limits ?? (yield* CurrentOutputLimits)
        return OutputPipeline.of({
          finalize: (entries) => finalizeBatch(entries, effective).pipe(Effect.provideService(OutputStore, store))
        })
      })
    )
}
