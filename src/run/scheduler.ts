/**
 * The scheduler: every door sends tool calls here, as a batch. Each call is looked up, validated,
 * decided by the policy, confirmed when it must be, executed (consecutive concurrency-safe calls
 * in parallel, everything else alone and in order), and finally the whole batch goes through the
 * output pipeline. Results come back in call order. The session's waiting reminders (a finished
 * background shell, changed MCP tools, a budget warning) go last on the batch's last result, as one
 * `<system-reminder>` part, so every door shows them to the model once.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { OutputPipeline, type PipelineEntry, type PipelineReport } from "../output/index.js"
import { ToolRegistry, wrapSystemReminder } from "../registry/index.js"
import { locateParam, locateWritableParam, SessionEvents, Workspace } from "../session/index.js"
import {
  type Amendment,
  type AnyTool,
  type AppliedAmendment,
  type CallFailure,
  type CallResult,
  type ConfirmationDetails,
  type ConfirmationOutcome,
  type ExecuteContext,
  ExecutionDenied,
  hasCode,
  InvalidToolParams,
  type Invocation,
  isToolError,
  type LiveOutput,
  type LivePart,
  type LlmPart,
  outputStreamOf,
  type PartOrigin,
  partsText,
  type ToolError,
  type ToolResult,
  UnhandledException
} from "../tool/index.js"
import { Approver } from "./approver.js"
import { eventHooksFor, ToolHooks } from "./hooks.js"
import { type ApprovalMode, decide, type PermissionRule, type PolicyDecision, type PolicyInput } from "./policy.js"

/** One call as a model emitted it. @category models */
export interface ToolCall {
  readonly callId: string
  readonly name: string
  readonly args: unknown
}

/** The result of a batch. @category models */
export interface BatchResult {
  readonly results: ReadonlyArray<CallResult>
  /** Every path the calls touched: their locations (real paths) and result files. */
  readonly touchedPaths: ReadonlyArray<string>
  /** What the output pipeline did (offloads, failures, warnings). */
  readonly output: PipelineReport
}

/** Scheduler options. @category models */
export interface SchedulerOptions {
  readonly mode?: ApprovalMode | undefined
  readonly rules?: ReadonlyArray<PermissionRule> | undefined
  /** How many concurrency-safe calls run at once (default 10). */
  readonly maxConcurrency?: number | undefined
  /** Receives live output of every call. */
  readonly onOutput?: ((callId: string, chunk: LiveOutput) => Effect.Effect<void>) | undefined
  /**
   * The tap on every call's output stream: each part, in order, as the output pipeline takes it
   * (a finished result's parts when it finishes, origin `result`; a streamed one's as they arrive,
   * origin `stream`), and the live parts a tool emits while it runs (origin `live`, see
   * `ExecuteContext.emit`: progress, new shell output lines).
   */
  readonly onPart?: ((callId: string, part: LivePart, origin: PartOrigin) => Effect.Effect<void>) | undefined
}

/** Options of one batch: taps that override the scheduler's. @category models */
export interface RunOptions {
  readonly onOutput?: SchedulerOptions["onOutput"]
  readonly onPart?: SchedulerOptions["onPart"]
}

/**
 * Runs batches of tool calls for one session.
 *
 * @category services
 */
export class Scheduler extends Context.Service<Scheduler, {
  readonly runBatch: (calls: ReadonlyArray<ToolCall>, options?: RunOptions) => Effect.Effect<BatchResult>
  /** Runs one call as a batch of one. */
  readonly runOne: (call: ToolCall, options?: RunOptions) => Effect.Effect<CallResult>
  readonly setMode: (mode: ApprovalMode) => Effect.Effect<void>
  readonly mode: Effect.Effect<ApprovalMode>
}>()("toolwright/run/Scheduler") {}

/** Partitions items into runs: consecutive safe items share a parallel run; each unsafe item runs alone. @category scheduling */
export const partitionByConcurrencySafety = <A>(
  items: ReadonlyArray<A>,
  isSafe: (item: A) => boolean
): Array<{ readonly parallel: boolean; readonly items: Array<A> }> => {
  const runs: Array<{ parallel: boolean; items: Array<A> }> = []
  for (const item of items) {
    const safe = isSafe(item)
    const last = runs[runs.length - 1]
    if (safe && last?.parallel) last.items.push(item)
    else runs.push({ parallel: safe, items: [item] })
  }
  return runs
}

/**
 * What the policy sees of a call: its locations, the real paths the tool itself resolved (never the
 * raw params, resolved a second time), for a tool with path params; the classifier input and rule
 * subjects for the others (a shell command that is simulated as an edit still answers to
 * `run_shell_command(...)` rules by its command).
 * @category policy
 */
export const policyInputOf = (
  invocation: Invocation,
  defaultPermission: PolicyInput["defaultPermission"],
  subject: string
): PolicyInput => ({
  tool: invocation.tool,
  defaultPermission,
  paths: invocation.tool.pathFields.length > 0 ? invocation.locations : [],
  subject,
  subjects: invocation.ruleSubjects
})

type Prepared =
  | {
    readonly _tag: "Ready"
    readonly call: ToolCall
    readonly invocation: Invocation
    readonly paths: ReadonlyArray<string>
    /** The approver's answer, when the call was put to a person. */
    readonly confirmation?: ConfirmationOutcome | undefined
    /** The person's rewrite of the call, when they amended it (the invocation is built from it). */
    readonly amendment?: AppliedAmendment | undefined
  }
  | { readonly _tag: "Done"; readonly result: CallResult; readonly paths: ReadonlyArray<string> }

const failureOf = (call: ToolCall, error: ToolError): CallFailure => ({
  _tag: "Failure",
  callId: call.callId,
  name: call.name,
  code: error.code,
  message: error.message,
  display: error.display ?? error.message
})

const deniedMessage = (name: string, decision: PolicyDecision): string => {
  const why = decision.reason === "rule"
    ? ` (the permission rule "${decision.rule}" denies it)`
    : decision.reason === "mode"
    ? " (plan mode allows only tools that change nothing; present your plan instead)"
    : ""
  return `toolwright requires permission to use ${name}, but that permission was declined${why}.`
}

const cancelledMessage = (name: string, outcome: Extract<ConfirmationOutcome, { _tag: "cancel" }>): string =>
  outcome.unasked === true
    ? `This ${name} call needs approval, but no one could be asked (${outcome.reason ?? "no way to ask"}); it did not run. ` +
      `Do not retry it unchanged: ask the user to allow ${name} (a permission rule such as --allow "${name}", or starting ` +
      `toolwright with --approval auto-edit or yolo), or do the task without it.`
    : `The user declined this ${name} call${outcome.reason ? `: ${outcome.reason}` : ""}. Do not retry it unchanged; ask the user how to proceed.`

/** Converts whatever a tool failed with into a tool error; defects become `unhandled_exception`. @category errors */
export const toToolError = (cause: Cause.Cause<unknown>): ToolError => {
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure && isToolError(failure.error)) return failure.error
  const error = failure ? failure.error : cause.reasons.find(Cause.isDieReason)?.defect
  const message = error instanceof Error ? error.message : String(error ?? Cause.pretty(cause))
  return new UnhandledException({ message: `Tool call execution failed. Reason: ${message}` })
}

/**
 * What an "always" answer covers: the tool, or for a tool whose rules match parts of the call (the
 * shell's simple commands and each write redirection) those parts of this tool. A later call is
 * covered only when every one of its parts was approved, so "always" for `git status` does not
 * cover `git status > /etc/x`.
 */
const alwaysKeys = (invocation: Invocation): ReadonlyArray<string> => {
  const parts = invocation.ruleSubjects
  return parts !== undefined && parts.length > 0
    ? parts.map((part) => `${invocation.tool.name}(${part})`)
    : [invocation.tool.name]
}

/**
 * A result with the reminder text added last: a part after a success's content, a paragraph after
 * a failure's or cancellation's message.
 *
 * @category reminders
 */
export const withReminder = (result: CallResult, reminder: string): CallResult =>
  result._tag === "Success"
    ? { ...result, llmContent: [...result.llmContent, { type: "text", text: reminder }] }
    : { ...result, message: `${result.message}\n\n${reminder}` }

/**
 * Builds a scheduler over the session's registry, workspace, approver, hooks and output pipeline.
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: SchedulerOptions = {}) {
  const registry = yield* ToolRegistry
  const workspace = yield* Workspace
  const approver = yield* Approver
  const hooks = yield* ToolHooks
  const pipeline = yield* OutputPipeline
  const events = yield* SessionEvents
  const mode = yield* Ref.make<ApprovalMode>(options.mode ?? "default")
  const alwaysApproved = yield* Ref.make<ReadonlySet<string>>(new Set())
  const rules = options.rules ?? []
  const maxConcurrency = Math.max(1, options.maxConcurrency ?? 10)

  // Path params are resolved once, in build: a custom tool's before its invoke, a built-in's only when it reports no locations.
  const buildContext = { locate: locateParam(workspace), locateWritable: locateWritableParam(workspace) }

  /** The policy's decision on a built call (its default permission first). */
  const decideOn = Effect.fnUntraced(function*(invocation: Invocation, subject: string) {
    const permission = yield* invocation.defaultPermission
    return decide(
      policyInputOf(invocation, permission, subject),
      { mode: yield* Ref.get(mode), rules, root: workspace.primaryRoot }
    )
  })

  // The note and stats of an amendment need the text room's diffs: loaded when a person amends a call.
  const amendments = Effect.promise(() => import("./amendment.js"))

  /**
   * A call the person amended: built again from the amended params, so the amendment goes through
   * the tool's validation, the policy (a denied amendment is denied, whatever the person approved)
   * and the tool's planning (the preview computed here is what execute must find unchanged).
   * `undefined` when the amendment changes nothing.
   */
  const amend = Effect.fnUntraced(function*(
    call: ToolCall,
    tool: AnyTool,
    invocation: Invocation,
    shown: ConfirmationDetails,
    amendment: Amendment
  ) {
    const { withAmendment } = yield* amendments
    const fail = (error: ToolError, applied?: AppliedAmendment): Prepared => ({
      _tag: "Done",
      paths: invocation.locations,
      result: applied === undefined ? failureOf(call, error) : withAmendment(failureOf(call, error), applied)
    })
    const amendable = shown.type === "edit" || shown.type === "exec" ? shown.amendable : undefined
    if (amendable === undefined || amendable.param !== amendment.param) {
      return fail(new InvalidToolParams({
        message: `The approval amended "${amendment.param}", which this ${call.name} call does not offer for amendment; it did not run. ` +
          `Retry the call; the user will be asked again.`
      }))
    }
    if (amendment.value === amendable.proposal) return undefined
    const applied: AppliedAmendment = {
      param: amendment.param,
      proposal: amendable.proposal,
      value: amendment.value,
      ...(shown.type === "edit" ? { proposedContent: shown.newContent } : {})
    }
    const args = { ...(call.args as Record<string, unknown>), [amendment.param]: amendment.value }
    const built = yield* Effect.exit(tool.build(args, buildContext))
    if (Exit.isFailure(built)) return fail(toToolError(built.cause), applied)
    const decision = yield* Effect.exit(decideOn(built.value, tool.toAutoClassifierInput(built.value.params)))
    if (Exit.isFailure(decision)) return fail(toToolError(decision.cause), applied)
    if (decision.value.permission === "deny") {
      return fail(new ExecutionDenied({ message: deniedMessage(call.name, decision.value) }), applied)
    }
    const planned = yield* Effect.exit(built.value.confirmation)
    if (Exit.isFailure(planned)) return fail(toToolError(planned.cause), applied)
    return { invocation: built.value, applied }
  })

  const prepare = Effect.fnUntraced(function*(call: ToolCall) {
    const fail = (error: ToolError, paths: ReadonlyArray<string> = []): Prepared => ({ _tag: "Done", result: failureOf(call, error), paths })
    const tool = yield* Effect.result(registry.ensure(call.name))
    if (tool._tag === "Failure") return fail(tool.failure)
    const built = yield* Effect.exit(tool.success.build(call.args, buildContext))
    if (Exit.isFailure(built)) return fail(toToolError(built.cause))
    let invocation = built.value
    const paths = invocation.locations
    const decided = yield* Effect.exit(decideOn(invocation, tool.success.toAutoClassifierInput(invocation.params)))
    if (Exit.isFailure(decided)) return fail(toToolError(decided.cause), paths)
    const decision = decided.value
    if (decision.permission === "deny") {
      return fail(new ExecutionDenied({ message: deniedMessage(call.name, decision) }), paths)
    }
    // A call that exists to ask the user (ask_user_question) is asked in every mode, and its answer,
    // a decline included, goes to the call rather than deciding whether it runs.
    const interactive = invocation.requiresUserInteraction
    const personOnly = invocation.requiresPersonApproval
    let confirmation: ConfirmationOutcome | undefined
    let amendment: AppliedAmendment | undefined
    let keys = alwaysKeys(invocation)
    const approvedBefore = yield* Ref.get(alwaysApproved)
    if (interactive || personOnly || (decision.permission === "ask" && !keys.every((k) => approvedBefore.has(k)))) {
      const details = yield* Effect.exit(invocation.confirmation)
      if (Exit.isFailure(details)) return fail(toToolError(details.cause), paths)
      const outcome = yield* approver.confirm({
        tool: invocation.tool,
        description: invocation.description,
        locations: invocation.locations,
        details: details.value
      })
      if (!interactive && outcome._tag === "cancel") {
        return { _tag: "Done", paths, result: { _tag: "Cancelled", callId: call.callId, name: call.name, message: cancelledMessage(call.name, outcome) } } as Prepared
      }
      if (!interactive && outcome._tag !== "cancel" && outcome.amended !== undefined) {
        const amended = yield* amend(call, tool.success, invocation, details.value, outcome.amended)
        if (amended !== undefined && "_tag" in amended) return amended
        if (amended !== undefined) {
          invocation = amended.invocation
          amendment = amended.applied
          keys = alwaysKeys(invocation)
        }
      }
      if (!interactive && !personOnly && outcome._tag === "proceed_always") {
        yield* Ref.update(alwaysApproved, (s) => new Set([...s, ...keys]))
      }
      confirmation = outcome
    }
    const verdict = yield* hooks.beforeCall(invocation)
    if (verdict._tag === "Block") {
      return fail(new ExecutionDenied({ message: `A hook blocked this ${call.name} call: ${verdict.reason}` }), paths)
    }
    return { _tag: "Ready", call, invocation, paths: invocation.locations, confirmation, amendment } as Prepared
  })

  /** A call's output through the stream stage; `undefined` when it is a finished result and nobody taps it. */
  const drain = (ready: Extract<Prepared, { _tag: "Ready" }>, r: ToolResult, tap: SchedulerOptions["onPart"]) => {
    if (r.stream === undefined && tap === undefined) return Effect.succeed(undefined)
    const callId = ready.call.callId
    if (r.stream === undefined) {
      return Effect.as(Effect.forEach(r.llmContent, (part) => tap!(callId, part, "result"), { discard: true }), undefined)
    }
    const onPart = tap ? (part: LlmPart) => tap(callId, part, "stream") : undefined
    return pipeline.drain(outputStreamOf(r), { toolName: ready.call.name, tool: ready.invocation.tool, onPart })
  }

  const execute = (
    ready: Extract<Prepared, { _tag: "Ready" }>,
    runOptions: RunOptions
  ): Effect.Effect<{ readonly result: CallResult; readonly raw?: ToolResult; readonly streamed?: PipelineEntry["streamed"] }> => {
    const sink = runOptions.onOutput ?? options.onOutput
    const tap = runOptions.onPart ?? options.onPart
    const context: ExecuteContext = {
      ...(sink ? { onOutput: (chunk: LiveOutput) => sink(ready.call.callId, chunk) } : {}),
      ...(tap ? { emit: (part: LivePart) => tap(ready.call.callId, part, "live") } : {}),
      confirmation: ready.confirmation,
      amendment: ready.amendment,
      hooks: eventHooksFor(hooks, ready.invocation)
    }
    return Effect.gen(function*() {
      const exit = yield* Effect.exit(Effect.flatMap(
        ready.invocation.execute(context),
        (r) => Effect.map(drain(ready, r, tap), (drained) => ({ r, drained }))
      ))
      if (Exit.isSuccess(exit)) {
        const { r, drained } = exit.value
        yield* hooks.afterCall({ invocation: ready.invocation, outcome: "success", data: r.data })
        return {
          raw: r,
          ...(drained?.spilled ? { streamed: { persisted: drained.persisted } } : {}),
          result: {
            _tag: "Success",
            callId: ready.call.callId,
            name: ready.call.name,
            llmContent: drained?.llmContent ?? r.llmContent,
            text: "", // set from the final content once the batch has been through the pipeline
            display: r.display,
            resultFilePaths: r.resultFilePaths ?? [],
            data: r.data
          } as CallResult
        }
      }
      if (Cause.hasInterruptsOnly(exit.cause)) {
        yield* hooks.afterCall({ invocation: ready.invocation, outcome: "cancelled" })
        return yield* Effect.failCause(exit.cause)
      }
      const error = toToolError(exit.cause)
      if (hasCode(error, UnhandledException)) yield* Effect.logError("toolwright: tool defect", exit.cause)
      yield* hooks.afterCall({ invocation: ready.invocation, outcome: "failure" })
      return { result: failureOf(ready.call, error) }
    }) as Effect.Effect<{ readonly result: CallResult; readonly raw?: ToolResult; readonly streamed?: PipelineEntry["streamed"] }>
  }

  const runBatchBody = Effect.fnUntraced(function*(calls: ReadonlyArray<ToolCall>, runOptions: RunOptions = {}) {
    const prepared: Array<Prepared> = []
    for (const call of calls) prepared.push(yield* prepare(call))
    const results: Array<CallResult | undefined> = prepared.map((p) => (p._tag === "Done" ? p.result : undefined))
    const streamed: Array<PipelineEntry["streamed"]> = []
    const indexed = prepared.flatMap((p, index) => (p._tag === "Ready" ? [{ p, index }] : []))
    const runs = partitionByConcurrencySafety(indexed, ({ p }) => p.invocation.concurrencySafe)
    for (const run of runs) {
      const outs = yield* Effect.forEach(run.items, ({ p }) => execute(p, runOptions), {
        concurrency: run.parallel ? maxConcurrency : 1
      })
      run.items.forEach(({ index }, i) => {
        results[index] = outs[i]!.result
        streamed[index] = outs[i]!.streamed
      })
    }
    const entries: Array<PipelineEntry> = results.map((result, index) => {
      const p = prepared[index]!
      const entry: PipelineEntry = { result: result!, tool: p._tag === "Ready" ? p.invocation.tool : undefined }
      return streamed[index] ? { ...entry, streamed: streamed[index] } : entry
    })
    const finalized = yield* pipeline.finalize(entries)
    const touched = new Set<string>()
    prepared.forEach((p) => p.paths.forEach((path) => touched.add(path)))
    finalized.results.forEach((r) => {
      if (r._tag === "Success") r.resultFilePaths.forEach((path) => touched.add(path))
    })
    // The note about a person's amendment goes after the pipeline, which may cut a long result.
    const anyAmended = prepared.some((p) => p._tag === "Ready" && p.amendment !== undefined)
    const { withAmendment } = anyAmended ? yield* amendments : { withAmendment: (r: CallResult) => r }
    const amended = finalized.results.map((r, index) => {
      const p = prepared[index]
      return p?._tag === "Ready" && p.amendment !== undefined ? withAmendment(r, p.amendment) : r
    })
    const reminders = yield* events.takeReminders
    const final = reminders.length === 0 || amended.length === 0
      ? amended
      : [...amended.slice(0, -1), withReminder(amended.at(-1)!, wrapSystemReminder(reminders.join("\n\n")))]
    // `text` follows the content the pipeline settled on (it may have cut or replaced it), reminder included
    const withText = final.map((r): CallResult => (r._tag === "Success" ? { ...r, text: partsText(r.llmContent) } : r))
    return { results: withText, touchedPaths: Array.from(touched), output: finalized.report } satisfies BatchResult
  })

  // A span per batch, without a captured stack trace: capturing one costs more than the rest of a
  // small call's overhead together.
  const runBatch = (calls: ReadonlyArray<ToolCall>, runOptions: RunOptions = {}) =>
    runBatchBody(calls, runOptions).pipe(
      Effect.withSpan("Scheduler.runBatch", { attributes: { calls: calls.length } }, { captureStackTrace: false })
    )

  return Scheduler.of({
    runBatch,
    runOne: (call, runOptions) => Effect.map(runBatch([call], runOptions), (batch) => batch.results[0]!),
    setMode: (next) => Ref.set(mode, next),
    mode: Ref.get(mode)
  })
})

/** The scheduler layer. @category layers */
export const layer = (
  options: SchedulerOptions = {}
): Layer.Layer<Scheduler, never, ToolRegistry | Workspace | Approver | ToolHooks | OutputPipeline | SessionEvents> =>
  Layer.effect(Scheduler, make(options))
