/**
 * Failures of the MCP client side that are not tool-call results: a config file that cannot be
 * used, a server that cannot be reached, a workspace out of server slots.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { codedError } from "../tool/index.js"

/** The MCP config file cannot be used at all (unreadable, not JSON, wrong shape). @category errors */
export class McpConfigError extends Schema.TaggedError<McpConfigError>()("McpConfigError", {
  message: Schema.String
}) {}

/** A server could not be started, connected or discovered. @category errors */
export class McpConnectError extends Schema.TaggedError<McpConnectError>()("McpConnectError", {
  server: Schema.String,
  message: Schema.String
}) {}

/**
 * The workspace has no free MCP server slot (budget in `enforce` mode). Wire kind `budget_exhausted`.
 *
 * @category errors
 */
export class BudgetExhausted extends codedError<BudgetExhausted>()("budget_exhausted", {
  server: Schema.String,
  budget: Schema.Number,
  message: Schema.String
}) {}
