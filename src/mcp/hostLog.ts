/**
 * Gateway events as the session tells them to a door (`SessionEvents`): upstream status, notices,
 * an upstream's own log messages and tool-list changes become lines for the host's log; a change
 * of upstream prompts says so. The MCP server door forwards them as MCP log notifications.
 *
 * @since 0.1.0
 */
import type { SessionEvent, SessionLogLevel } from "../session/index.js"
import type { GatewayEvent, ServerStatus } from "./service.js"

/** The logger name of gateway status messages. @category constants */
export const GATEWAY_LOGGER = "toolwright/mcp"

/** Upstream log data longer than this (as JSON) is cut. */
const MAX_FORWARDED_LOG_CHARS = 4_000

const LEVELS: ReadonlySet<string> = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])

/** One line about a server's state, for people. @category formatting */
export const statusLine = (status: ServerStatus): string => {
  const detail = status.state === "connected"
    ? `connected${status.transport ? ` over ${status.transport}` : ""}, ${status.tools} tool${status.tools === 1 ? "" : "s"}`
    : status.state
  return `MCP server "${status.name}": ${detail}${status.message ? ` — ${status.message}` : ""}`
}

/** The log line of a server's state as the door announces it once the host listens. @category formatting */
export const statusLog = (status: ServerStatus): SessionEvent => ({
  _tag: "Log",
  level: status.state === "connected" || status.state === "disabled" ? "info" : "error",
  logger: GATEWAY_LOGGER,
  data: statusLine(status)
})

const forwardable = (data: unknown): unknown => {
  const json = JSON.stringify(data) ?? String(data)
  return json.length > MAX_FORWARDED_LOG_CHARS ? `${json.slice(0, MAX_FORWARDED_LOG_CHARS)}…` : data
}

/** The session event of a gateway event. @category formatting */
export const toSessionEvent = (event: GatewayEvent): SessionEvent => {
  switch (event._tag) {
    case "Status":
      return { _tag: "Log", level: event.level, logger: GATEWAY_LOGGER, data: statusLine(event.status) }
    case "Notice":
      return { _tag: "Log", level: event.level, logger: GATEWAY_LOGGER, data: event.message }
    case "UpstreamLog":
      return {
        _tag: "Log",
        level: (LEVELS.has(event.level) ? event.level : "info") as SessionLogLevel,
        logger: `mcp/${event.server}`,
        data: forwardable(event.data)
      }
    case "ToolsChanged":
      return {
        _tag: "Log",
        level: "info",
        logger: GATEWAY_LOGGER,
        data: `MCP server "${event.server}": ${event.added.length} tool(s) added, ${event.removed.length} removed`
      }
    case "PromptsChanged":
      return { _tag: "PromptsChanged" }
  }
}
