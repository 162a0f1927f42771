/**
 * The streamed half of the output pipeline: a call's output as a `Stream` of parts goes through
 * the persistence gate and per-tool truncation as it arrives, so memory holds a bounded head and
 * tail whatever the tool emits.
 *
 * - While the text is short it is held whole; a stream that ends within the hold limit becomes a
 *   finished result and takes exactly the path of one (gate, truncation, batch budget).
 * - Past the hold limit the stream spills: everything so far and everything after goes to the
 *   output store as it arrives ({@link OutputStore.Service.openWriter}), and memory keeps only a
 *   head window (the first N chars) and a tail window (a byte ring of the last M chars, the
 *   writer's) plus counts.
 *   When the stream ends, the result is the gate's `<persisted-output>` stub, or for tools the gate
 *   exempts the per-tool head/tail preview computed from the windows, naming the saved file.
 * - Every part passes the `onPart` tap first: live output for the doors is this same stream.
 *
 * A save that fails (`output_too_large`, `session_budget_exhausted`, `persist_error`) never fails
 * the call: the typed error picks the stub's note, as for finished results. A stream that fails
 * fails the call with the stream's own error.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { LlmPart, ToolError, ToolInfo, ToolOutputStream } from "../tool/index.js"
import { stubText, truncatedText } from "./compose.js"
import { type OutputLimits, persistGateChars } from "./config.js"
import { DEFAULT_TRUNCATE_CHARS, GATE_EXEMPT_TOOLS } from "./constants.js"
import { OutputStore } from "./store.js"
import { limitOrUnlimited, type TextWindows, windowedPreview } from "./truncate.js"
import type { OutputWriter } from "./writer.js"

/** What the pipeline keeps of a streamed call. @category models */
export interface DrainedOutput {
  /** The parts to go on with: the whole output, or a stub/preview naming the saved file. */
  readonly llmContent: ReadonlyArray<LlmPart>
  /** Files the full text was saved to (empty when it was held whole or its save failed). */
  readonly persisted: ReadonlyArray<string>
  /** True when the stream spilled: `llmContent` is already cut and must not be cut again. */
  readonly spilled: boolean
}

/** Options of {@link drainOutput}. @category models */
export interface DrainOptions {
  readonly toolName: string
  readonly tool?: Pick<ToolInfo, "maxOutputChars" | "truncateKeep"> | undefined
  readonly limits: OutputLimits
  /** The live tap: sees every part, in order, before the pipeline does. */
  readonly onPart?: ((part: LlmPart) => Effect.Effect<void>) | undefined
}

/** Hold limit of a tool without any finite char limit (nor a batch budget): 1 Mi chars. @category constants */
export const UNBOUNDED_HOLD_CHARS = 1024 * 1024

/** Room above a per-tool char limit so that a cut always gains (the wrapper names a path). @category constants */
export const HOLD_MARGIN_CHARS = 4096

/**
 * How a stream of `toolName` is held and cut: the chars held in memory before spilling, and what
 * is shown once spilled (the gate's stub, or a per-tool preview of `preview` chars).
 *
 * @category pipeline
 */
export const streamPlan = (
  toolName: string,
  tool: DrainOptions["tool"],
  limits: OutputLimits
): {
  readonly holdChars: number
  readonly gate: boolean
  readonly preview: number
  readonly lines: number
} => {
  const gateChars = persistGateChars(limits)
  const gate = !GATE_EXEMPT_TOOLS.has(toolName) && Number.isFinite(gateChars)
  const own = tool?.maxOutputChars
  const chars = limitOrUnlimited(own ?? limits.truncateChars)
  const lines = own !== undefined ? Infinity : limits.truncateLines
  const budget = limitOrUnlimited(limits.batchBudget)
  const preview = Number.isFinite(chars) ? chars : Math.min(DEFAULT_TRUNCATE_CHARS, budget)
  const holdChars = gate
    ? gateChars
    : Number.isFinite(chars)
    ? chars + HOLD_MARGIN_CHARS
    : Number.isFinite(budget)
    ? budget + HOLD_MARGIN_CHARS
    : UNBOUNDED_HOLD_CHARS
  return { holdChars, gate, preview, lines }
}

/** The first `size` chars of a text, collected chunk by chunk. */
class HeadWindow {
  text = ""
  constructor(readonly size: number) {}
  push(chunk: string): void {
    if (this.text.length < this.size) this.text += chunk.slice(0, this.size - this.text.length)
  }
}

const newlinesOf = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

/**
 * Consumes a call's output stream with bounded memory (see the module note).
 *
 * @category pipeline
 */
export const drainOutput = (stream: ToolOutputStream, options: DrainOptions): Effect.Effect<DrainedOutput, ToolError, OutputStore> =>
  Effect.scoped(Effect.gen(function*() {
    const store = yield* OutputStore
    const { toolName, limits, onPart } = options
    const plan = streamPlan(toolName, options.tool, limits)
    const media: Array<LlmPart> = []
    let held: Array<string> = []
    let heldChars = 0
    let writer: OutputWriter | undefined
    // Once spilled: more than the largest preview on each side (see `windowedPreview`).
    const windowChars = Math.max(plan.preview, limits.previewChars) + 1
    const head = new HeadWindow(windowChars)
    let newlines = 0

    const spill = (chunk: string) => {
      head.push(chunk)
      newlines += newlinesOf(chunk)
      return writer!.append(chunk)
    }

    const keep = (part: LlmPart): Effect.Effect<void, never, Scope.Scope> => {
      if (part.type !== "text") {
        media.push(part)
        return Effect.void
      }
      if (part.text === "") return Effect.void
      if (writer !== undefined) return spill(part.text)
      held.push(part.text)
      heldChars += part.text.length
      if (heldChars <= plan.holdChars) return Effect.void
      // The tail window is the writer's byte ring.
      return Effect.flatMap(store.openWriter(toolName, { tailChars: windowChars }), (opened) => {
        writer = opened
        const all = held
        held = []
        heldChars = 0
        return Effect.forEach(all, spill, { discard: true })
      })
    }
    // Plain functions, not a generator per part: at 16 000 parts a second the generators' garbage
    // alone grew the heap by ~90 MiB before the collector caught up.
    const take = onPart ? (part: LlmPart) => Effect.andThen(onPart(part), () => keep(part)) : keep

    yield* Stream.runForEach(stream, take)

    if (writer === undefined) {
      const text = held.join("")
      return {
        llmContent: [...(text === "" ? [] : [{ type: "text", text } as const]), ...media],
        persisted: [],
        spilled: false
      } satisfies DrainedOutput
    }
    const { facts, saved } = yield* writer.finish
    const windows: TextWindows = { head: head.text, tail: writer.tail(), lines: newlines + 1 }
    const persisted = Result.isSuccess(saved) ? [saved.success.path] : []
    if (plan.gate && media.length === 0) {
      const out = yield* stubText(windows.head, saved, limits.previewChars, facts)
      return { llmContent: [{ type: "text", text: out.content }], persisted, spilled: true } satisfies DrainedOutput
    }
    const preview = windowedPreview(windows, { lines: plan.lines, keep: options.tool?.truncateKeep, preview: plan.preview })
    const out = yield* truncatedText(preview, saved)
    return { llmContent: [{ type: "text", text: out.content }, ...media], persisted, spilled: true } satisfies DrainedOutput
  }))
