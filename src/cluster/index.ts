/**
 * The cluster room: sessions as `effect/cluster` entities (`ToolSession`, keyed by session id) on
 * runner processes, and the front that routes each session to its runner. Loaded only by
 * `toolwright runner` and `toolwright serve --cluster` (and by embedders that import it).
 *
 * @since 0.3.0
 */
export {
  ApprovalRequestWire,
  ConfirmationOutcomeWire,
  fromOutcomeWire,
  toApprovalRequest,
  toApprovalRequestWire,
  toOutcomeWire
} from "./approval.js"
export { type CallBatchOptions, ClusterFront } from "./front.js"
export * as Front from "./front.js"
export * as Runner from "./runner.js"
export * as SessionEntity from "./entity.js"
export { CANNOT_ASK_REASON, DEFAULT_APPROVAL_WAIT, DEFAULT_APPROVAL_WAIT_MS } from "./pending.js"
export {
  Abandon,
  Answer,
  ApprovalNeeded,
  ApprovalNotPending,
  BatchDone,
  BatchStep,
  CallBatch,
  ListTools,
  OutputUnreadable,
  ReadOutput,
  SessionRunnerLost,
  SessionUnavailable,
  storeNameOf,
  ToolSession,
  type WireBatch,
  type WireCall,
  type WireResult,
  workspaceGroupOf
} from "./protocol.js"
