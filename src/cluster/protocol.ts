/**
 * The `ToolSession` cluster entity's protocol: one entity per session id, whose messages are the
 * scheduler's batch call, the answer to an approval the batch asked for, and the tool listing.
 * Every message is volatile (never persisted, never replayed by the cluster): a call that mutates
 * is sent once, a call re-sent after a crash goes through the edit's compare-and-swap like any other
 * call, and an approval lives only as long as the batch that asked it (an answer is applied once,
 * to that batch, or refused).
 *
 * @since 0.3.0
 */
import * as Schema from "effect/Schema"
import { ClusterSchema, Entity } from "effect/cluster"
import { Rpc } from "effect/rpc"
import { ERROR_TYPE_META } from "../serve/index.js"
import { ApprovalRequestWire, ConfirmationOutcomeWire } from "./approval.js"

/** One call as the model emitted it. @category models */
export const WireCall = Schema.Struct({
  callId: Schema.String,
  name: Schema.String,
  args: Schema.Unknown
})
/** @category models */
export type WireCall = typeof WireCall.Type

/** One call's result, as an MCP `CallToolResult` (content, `isError`, `_meta`). @category models */
export const WireResult = Schema.Struct({
  callId: Schema.String,
  result: Schema.Unknown
})
/** @category models */
export type WireResult = typeof WireResult.Type

/** What a batch returns: the results in call order, and the runner that ran them. @category models */
export const WireBatch = Schema.Struct({
  results: Schema.Array(WireResult),
  runner: Schema.String
})
/** @category models */
export type WireBatch = typeof WireBatch.Type

/** The session could not start on its runner (bad root, expired name, unreadable store record). @category errors */
export class SessionUnavailable extends Schema.TaggedError<SessionUnavailable>()("SessionUnavailable", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "session_unavailable"
}

/**
 * A call of the batch needs a person: the front asks (through its client) and sends the outcome
 * with {@link Answer} and this `approvalId`, or {@link Abandon} when it cannot. The batch waits
 * meanwhile, at most `waitMs` (then the call is cancelled).
 * @category models
 */
export const ApprovalNeeded = Schema.TaggedStruct("ApprovalNeeded", {
  approvalId: Schema.String,
  request: ApprovalRequestWire,
  waitMs: Schema.Number
})
/** @category models */
export type ApprovalNeeded = typeof ApprovalNeeded.Type

/** The batch is done: its results. @category models */
export const BatchDone = Schema.TaggedStruct("BatchDone", { batch: WireBatch })

/** A batch's next step: an approval it needs, or its results. @category models */
export const BatchStep = Schema.Union([ApprovalNeeded, BatchDone])
/** @category models */
export type BatchStep = typeof BatchStep.Type

/**
 * An answer for an approval that is not pending: answered already, its batch ended (the front
 * went away, the runner stopped), or never asked in this session.
 * @category errors
 */
export class ApprovalNotPending extends Schema.TaggedError<ApprovalNotPending>()("ApprovalNotPending", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "approval_not_pending"
}

/**
 * Runs a batch of calls in the session (the scheduler's `runBatch`) and returns its first step:
 * {@link BatchDone}, or an {@link ApprovalNeeded} for the first call that needs a person (only
 * when `canAsk`; otherwise such a call is cancelled as unasked, as by a host that cannot ask).
 * @category rpcs
 */
export const CallBatch = Rpc.make("CallBatch", {
  payload: { calls: Schema.Array(WireCall), canAsk: Schema.Boolean },
  success: BatchStep,
  error: SessionUnavailable
})

/**
 * The front's answer to an {@link ApprovalNeeded}; returns the batch's next step. An approval
 * whose wait ran out is not changed by a late answer (its call was cancelled), which still gets
 * the next step.
 * @category rpcs
 */
export const Answer = Rpc.make("Answer", {
  payload: { approvalId: Schema.String, outcome: ConfirmationOutcomeWire },
  success: BatchStep,
  error: Schema.Union([ApprovalNotPending, SessionUnavailable])
})

/** The front will not answer (it went away): the batch that asked is interrupted, nothing more of it runs. @category rpcs */
export const Abandon = Rpc.make("Abandon", {
  payload: { approvalId: Schema.String },
  error: Schema.Union([ApprovalNotPending, SessionUnavailable])
})

/**
 * The session's tool declarations as MCP `tools/list` shows them (revealed deferred tools
 * included), and the `initialize` instructions an MCP door announces for the session (the
 * deferred-tools reminder among them; absent from runners older than the HTTP front).
 * @category rpcs
 */
export const ListTools = Rpc.make("ListTools", {
  success: Schema.Struct({ tools: Schema.Array(Schema.Unknown), runner: Schema.String, instructions: Schema.optional(Schema.String) }),
  error: SessionUnavailable
})

/** A saved output could not be read (no such output in the session, a bad URI or page). @category errors */
export class OutputUnreadable extends Schema.TaggedError<OutputUnreadable>()("OutputUnreadable", {
  /** The JSON-RPC error code of MCP `resources/read` (-32002 not found, -32602 invalid params). */
  errorCode: Schema.Number,
  message: Schema.String
}) {}

/**
 * A page of one of the session's saved outputs (`toolwright://output/<id>?offset=&limit=`), as MCP
 * `resources/read` contents: the outputs live in the runner's state directory.
 * @category rpcs
 */
export const ReadOutput = Rpc.make("ReadOutput", {
  payload: { uri: Schema.String },
  success: Schema.Struct({ contents: Schema.Array(Schema.Unknown) }),
  error: Schema.Union([SessionUnavailable, OutputUnreadable])
})

/**
 * The `ToolSession` entity, keyed by session id. Its shard group is the session's workspace group:
 * an id `NAME@GROUP` lives on runners that mount workspace group `GROUP`; any other id on the
 * `default` group.
 * @category entities
 */
export const ToolSession = Entity.make("ToolSession", [CallBatch, Answer, Abandon, ListTools, ReadOutput]).annotate(
  ClusterSchema.ShardGroup,
  (entityId) => workspaceGroupOf(entityId)
)

/** The workspace group of a session id (`NAME@GROUP` → `GROUP`, else `default`). @category constructors */
export const workspaceGroupOf = (sessionId: string): string => {
  const at = sessionId.lastIndexOf("@")
  return at > 0 && at < sessionId.length - 1 ? sessionId.slice(at + 1) : "default"
}

/** The session's name in the store: the id without its `@GROUP`, with the group kept as a suffix. @category constructors */
export const storeNameOf = (sessionId: string): string => sessionId.replace("@", ".at.")

/**
 * The runner hosting the session stopped (or could not be reached) while a call ran: whether the
 * call took effect is unknown, and it is never re-sent blindly.
 * @category errors
 */
export class SessionRunnerLost extends Schema.TaggedError<SessionRunnerLost>()("SessionRunnerLost", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "session_runner_lost"
}

/** Every call of a batch as a `session_runner_lost` failure (an MCP `CallToolResult` each). @category constructors */
export const lostBatch = (
  sessionId: string,
  calls: ReadonlyArray<WireCall>,
  why: string
): ReadonlyArray<WireResult> => {
  const error = new SessionRunnerLost({
    message: `The runner hosting session "${sessionId}" ${why}. Whether the call took effect is unknown, and it was ` +
      "not run again. Read the files it would have changed again before editing them; background shells of the " +
      "session have ended."
  })
  const result = { isError: true, content: [{ type: "text", text: error.message }], _meta: { [ERROR_TYPE_META]: error.code } }
  return calls.map((c) => ({ callId: c.callId, result }))
}
