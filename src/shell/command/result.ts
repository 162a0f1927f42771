/**
 * The texts of a finished foreground command (reference §9.4): the seven-line result, the
 * timeout text, the long-run hint, what people see, and the model text of a spilled or binary
 * output.
 *
 * @since 0.1.0
 */
import { TRUNCATION_SEPARATOR, wrapTruncatedOutput, wrapUnsavedOutput } from "../../output/index.js"
import type { CapturedOutput } from "../terminal/capture.js"
import { formatBytes } from "../terminal/host.js"

/** Characters of the head and tail shown when an output spilled to a file (reference preview 4 000: ⅕ head). @category constants */
export const SPILL_PREVIEW_HEAD_CHARS = 800
/** @category constants */
export const SPILL_PREVIEW_TAIL_CHARS = 3_200

/** The seven lines, with `(empty)` / `(none)` / `(root)` for missing values. @category formatting */
export const formatShellResult = (r: {
  readonly command: string
  readonly directory: string | undefined
  readonly output: string
  readonly error: string | undefined
  readonly exitCode: number | null
  readonly signal: string | null
  readonly pgid: number | undefined
}): string =>
  [
    `Command: ${r.command}`,
    `Directory: ${r.directory ?? "(root)"}`,
    `Output: ${r.output === "" ? "(empty)" : r.output}`,
    `Error: ${r.error ?? "(none)"}`,
    `Exit Code: ${r.exitCode ?? "(none)"}`,
    `Signal: ${r.signal ?? "(none)"}`,
    `Process Group PGID: ${r.pgid ?? "(none)"}`
  ].join("\n")

/** The timeout text. @category formatting */
export const timeoutText = (ms: number, output: string): string =>
  `Command timed out after ${ms}ms before it could complete.` +
  (output.trim() === "" ? " There was no output before it timed out." : ` Below is the output before it timed out:\n${output}`)

/** The first sentence of the timeout text (for people). @category formatting */
export const timeoutSummary = (ms: number): string => `Command timed out after ${ms}ms before it could complete.`

/** The long-run hint, adapted to this tool layer's background tools. @category formatting */
export const longRunHint = (elapsedMs: number): string =>
  `Note: this foreground command ran for ${Math.round(elapsedMs / 1000)}s. Next time you run a similar long-running process ` +
  "(build watchers, dev servers, soak tests, polling loops), pass `is_background: true` so the agent isn't blocked while the " +
  "command runs. (This is forward-looking guidance for FUTURE invocations — do NOT re-run the command that just completed; " +
  "for stateful operations like deploys, migrations, or git push, that would cause double side effects.) The output of " +
  "background runs stays inspectable in their output file, and task_stop stops them."

/** Whether the long-run hint applies (§9.4 step 8). @category predicates */
export const wantsLongRunHint = (r: { readonly elapsedMs: number; readonly timeoutMs: number; readonly timedOut: boolean; readonly signal: string | null }): boolean =>
  r.timeoutMs > 0 && !r.timedOut && r.signal === null && r.elapsedMs >= Math.max(1000, Math.floor(r.timeoutMs / 2))

/** The notice of a capture that hit its cap. @category formatting */
export const capNotice = (capturedBytes: number, totalBytes: number): string =>
  `[Output exceeded the maximum captured size of ${formatBytes(capturedBytes)}; captured the first ${formatBytes(capturedBytes)} of ${formatBytes(totalBytes)} and discarded the rest.]`

/** The model's view of a captured output: plain text, or a spilled head/tail, or a binary notice. @category models */
export type OutputView =
  | { readonly kind: "inline"; readonly text: string }
  | { readonly kind: "spilled"; readonly head: string; readonly tail: string; readonly path: string | undefined; readonly notice: string | undefined }
  | { readonly kind: "binary"; readonly text: string }

/** Classifies a captured output for the result text. @category formatting */
export const viewOf = (output: CapturedOutput): OutputView => {
  if (output.kind === "binary") {
    const where = output.spill?.path ? ` The raw bytes were saved to: ${output.spill.path}` : ""
    return { kind: "binary", text: `[Binary output detected: ${formatBytes(output.totalBytes)} (${output.totalBytes} bytes) not shown.${where}]` }
  }
  if (!output.spill) return { kind: "inline", text: output.text }
  const { spill } = output
  const notice = spill.discardedBytes > 0
    ? capNotice(spill.bytes, spill.bytes + spill.discardedBytes)
    : spill.error !== undefined
    ? `[The full output could not be saved: ${spill.error}]`
    : undefined
  return { kind: "spilled", head: output.text, tail: output.tail ?? "", path: spill.path, notice }
}

/**
 * The model text for a spilled output: the seven lines with a short head and tail of the output,
 * wrapped in the reference's truncation message naming the spill file (which holds the whole
 * output), so the output pipeline leaves it alone.
 *
 * @category formatting
 */
export const spilledResultText = (
  view: Extract<OutputView, { kind: "spilled" }>,
  lines: (output: string) => string
): string => {
  const head = view.head.slice(0, SPILL_PREVIEW_HEAD_CHARS)
  const tail = view.tail.slice(-SPILL_PREVIEW_TAIL_CHARS) + (view.notice ? `\n${view.notice}` : "")
  // The separator sits inside the Output line; `lines` adds the other six around it.
  const preview = lines(`${head}${TRUNCATION_SEPARATOR}${tail}`)
  return view.path !== undefined ? wrapTruncatedOutput(preview, { path: view.path }) : wrapUnsavedOutput(preview)
}
