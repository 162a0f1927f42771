/**
 * The run room's surface: what other rooms import from it (kept by `node scripts/surfaces.mjs`).
 *
 * @since 0.1.0
 */
export { type ApprovalRequest, Approver } from "./approver.js"
export { type ApprovalMode, type PermissionRule, validateRule } from "./policy.js"
export { type BatchResult, Scheduler, type ToolCall } from "./scheduler.js"
export * as SessionLayer from "./sessionLayer.js"
export { SessionInitError } from "./sessionLayer.js"
