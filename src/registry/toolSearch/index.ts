/**
 * On-demand tool disclosure, pure logic: `tool_search` tokenising, scoring, `select:` parsing,
 * keyword ranking, result formatting, the deferred-tools reminders, and MCP tool names.
 *
 * @since 0.1.0
 */
export * from "./format.js"
export * from "./keyword.js"
export * from "./mcpNames.js"
export * from "./messages.js"
export * from "./reminder.js"
export * from "./score.js"
export * from "./searchIndex.js"
export * from "./select.js"
export * from "./tokenize.js"
export * from "./types.js"
export * from "./xml.js"
