/**
 * The output pipeline as it was before saves were written concurrently (one result after the
 * other, each save written before the next result is looked at), kept as the reference the
 * concurrent pipeline must agree with.
 */
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Stream from "effect/Stream"
import type { CallResult } from "../../../src/tool/outcome.js"
import type { LlmPart } from "../../../src/tool/result.js"
import { fitHeader, fitText, planTextBudget } from "../../../src/output/budget.js"
import { persistForBudget, persistWithStub, truncateAndPersist } from "../../../src/output/compose.js"
import { exceedsPersistGate, type OutputLimits } from "../../../src/output/config.js"
import type { PipelineEntry, PipelineOutput } from "../../../src/output/pipeline.js"
import { MIN_PREVIEW_CHARS } from "../../../src/output/pipeline.js"
import { OutputStore } from "../../../src/output/store.js"
import { isAlreadyTruncated, noOutputMessage } from "../../../src/output/truncate.js"

interface Working {
  readonly entry: PipelineEntry
  readonly result: CallResult
  readonly persisted: ReadonlyArray<string>
}

const textOf = (parts: ReadonlyArray<LlmPart>): string =>
  parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n")
const mediaOf = (parts: ReadonlyArray<LlmPart>): Array<LlmPart> => parts.filter((p) => p.type !== "text")

const slotText = (result: CallResult): string =>
  result._tag === "Success" ? textOf(result.llmContent) : result.message

const withText = (result: CallResult, text: string): CallResult =>
  result._tag === "Success"
    ? { ...result, llmContent: [{ type: "text", text }, ...mediaOf(result.llmContent)] }
    : { ...result, message: text }

const toolNameOf = (w: Working): string => w.entry.tool?.name ?? w.result.name

/** The sequential pipeline on one batch. */
export const finalizeSequential = (
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

const finalizeSlow = Effect.fnUntraced(function*(
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

