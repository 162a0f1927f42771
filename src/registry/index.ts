/**
 * The registry room's surface: what other rooms import from it (kept by `node scripts/surfaces.mjs`).
 *
 * @since 0.1.0
 */
export * as Registry from "./registry.js"
export { PublishFailed, type ToolFactory, ToolRegistry } from "./registry.js"
export { mcpToolName } from "./toolSearch/mcpNames.js"
export {
  buildChangedMcpToolsBody,
  buildChangedMcpToolsReminder,
  buildDeferredToolsReminder,
  buildMcpServerInstructionsReminder
} from "./toolSearch/reminder.js"
export { makeToolSearch } from "./toolSearch/toolSearch.js"
export { wrapSystemReminder } from "./toolSearch/xml.js"
export type { DeferredToolSummary } from "./toolSearch/types.js"
