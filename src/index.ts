/**
 * toolwright: the tool layer of a coding agent, on Effect.
 *
 * Every tool is a typed Effect function; the registry, scheduler and output budget pipeline are
 * services with Layers. Start with {@link SessionLayer.layer} for a whole session, or call a tool
 * directly with `tool.call(params)`.
 *
 * This entry stays small so that importing it is cheap: the tool rooms, the MCP gateway and the
 * server door have their own entry points (`toolwright/files`, `toolwright/shell`,
 * `toolwright/search`, `toolwright/plan`, `toolwright/mcp`, `toolwright/web`, `toolwright/process`, `toolwright/serve`,
 * `toolwright/effect-ai`, and `toolwright/testing` for property tests of edit tools), and a
 * session imports a built-in tool's module on its first call.
 *
 * @since 0.1.0
 */
export * from "./tool/index.js"
export * as Output from "./output/index.js"
export * as Registry from "./registry/registry.js"
export * as ToolSearch from "./registry/toolSearch/index.js"
export { makeToolSearch } from "./registry/toolSearch/toolSearch.js"
export { Workspace, WorkspaceInitError, type WorkspaceOptions } from "./session/workspace.js"
export { FileReadCache } from "./session/readCache.js"
export { Session } from "./session/session.js"
export {
  makeFileSessionStore,
  makeMemorySessionStore,
  SessionExpired,
  SessionNotFound,
  type SessionRecord,
  SessionStoreFailed,
  type SessionStoreService
} from "./session/sessionStore.js"
export { keepUnsaved } from "./session/unsavedSessions.js"
export { Approver, makeRecordingApprover, type ApprovalRequest } from "./run/approver.js"
export { ToolHooks, type HookVerdict } from "./run/hooks.js"
export * as Policy from "./run/policy.js"
export { Scheduler, type BatchResult, type ToolCall, partitionByConcurrencySafety } from "./run/scheduler.js"
export * as SessionLayer from "./run/sessionLayer.js"
export { BuiltinTools, type BuiltinImplementation } from "./run/builtinTools.js"
export type { BuiltinDeclarations, BuiltinTool, BuiltinToolName, SessionServices } from "./run/catalog.js"
