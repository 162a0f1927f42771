/**
 * What the MCP server door adds when a session has upstreams: upstream prompts as prompts of our
 * server, upstream status and logs as MCP log notifications, `prompts/list_changed` when upstream
 * prompts change, and the after-startup tool reminder appended to the next tool result (the one
 * place an MCP server can speak to the model).
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  type LoggingLevel,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { ExecutionFailed, hasCode } from "../tool/errors.js"
import type { GatewayEvent, McpGateway, ServerStatus } from "./service.js"

/** The logger name of gateway status messages. @category constants */
export const GATEWAY_LOGGER = "toolwright/mcp"

/** Upstream log data longer than this (as JSON) is cut. */
const MAX_FORWARDED_LOG_CHARS = 4_000

const LEVELS: ReadonlySet<string> = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"])

/** Capabilities our server declares for a gateway with servers. @category serve */
export const gatewayCapabilities = (gateway: McpGateway["Service"]) =>
  gateway.hasServers ? { prompts: { listChanged: true }, logging: {} } : {}

/** One line about a server's state, for people. @category serve */
export const statusLine = (status: ServerStatus): string => {
  const detail = status.state === "connected"
    ? `connected${status.transport ? ` over ${status.transport}` : ""}, ${status.tools} tool${status.tools === 1 ? "" : "s"}`
    : status.state
  return `MCP server "${status.name}": ${detail}${status.message ? ` — ${status.message}` : ""}`
}

const forwardable = (data: unknown): unknown => {
  const json = JSON.stringify(data) ?? String(data)
  return json.length > MAX_FORWARDED_LOG_CHARS ? `${json.slice(0, MAX_FORWARDED_LOG_CHARS)}…` : data
}

/** The log notification of a gateway event, if it has one. @category serve */
export const eventToLog = (event: GatewayEvent): { level: LoggingLevel; logger: string; data: unknown } | undefined => {
  switch (event._tag) {
    case "Status":
      return { level: event.level, logger: GATEWAY_LOGGER, data: statusLine(event.status) }
    case "Notice":
      return { level: event.level, logger: GATEWAY_LOGGER, data: event.message }
    case "UpstreamLog":
      return {
        level: (LEVELS.has(event.level) ? event.level : "info") as LoggingLevel,
        logger: `mcp/${event.server}`,
        data: forwardable(event.data)
      }
    case "ToolsChanged":
      return {
        level: "info",
        logger: GATEWAY_LOGGER,
        data: `MCP server "${event.server}": ${event.added.length} tool(s) added, ${event.removed.length} removed`
      }
    case "PromptsChanged":
      return undefined
  }
}

/**
 * Registers the prompt handlers on a server (before it connects) and forwards gateway events once
 * the host has initialized; the forwarding ends with the scope.
 *
 * @category serve
 */
export const attachGateway = Effect.fnUntraced(function*(
  server: Server,
  gateway: McpGateway["Service"],
  run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
) {
  if (!gateway.hasServers) return
  server.setRequestHandler(ListPromptsRequestSchema, () =>
    run(Effect.map(gateway.prompts, (prompts) => ({
      prompts: prompts.map((p) => ({
        name: p.name,
        title: `${p.prompt.title ?? p.prompt.name} (${p.server} MCP Server)`,
        ...(p.prompt.description !== undefined ? { description: p.prompt.description } : {}),
        ...(p.prompt.arguments !== undefined ? { arguments: p.prompt.arguments } : {})
      }))
    }))))
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    run(
      gateway.getPrompt(request.params.name, request.params.arguments ?? {}).pipe(
        Effect.mapError((e) => new McpError(hasCode(e, ExecutionFailed) ? ErrorCode.InvalidParams : ErrorCode.InternalError, e.message))
      )
    ))

  const initialized = yield* Deferred.make<void>()
  const previous = server.oninitialized
  server.oninitialized = () => {
    previous?.()
    Deferred.doneUnsafe(initialized, Effect.void)
  }
  const events = yield* gateway.subscribe
  const send = (log: ReturnType<typeof eventToLog>) =>
    log ? Effect.tryPromise(() => server.sendLoggingMessage(log)).pipe(Effect.ignore) : Effect.void
  yield* Effect.forkScoped(Effect.gen(function*() {
    yield* Deferred.await(initialized)
    // What happened before the host was listening: one line per server.
    for (const status of yield* gateway.statuses) {
      yield* send({ level: status.state === "connected" || status.state === "disabled" ? "info" : "error", logger: GATEWAY_LOGGER, data: statusLine(status) })
    }
    yield* Stream.runForEach(events, (event) =>
      event._tag === "PromptsChanged"
        ? Effect.tryPromise(() => server.sendPromptListChanged()).pipe(Effect.ignore)
        : send(eventToLog(event)))
  }))
})

/**
 * Appends the pending after-startup reminder (tools added or removed upstream) to a tool result.
 *
 * @category serve
 */
export const withPendingReminder = <R extends { readonly content: ReadonlyArray<unknown> }>(
  gateway: McpGateway["Service"],
  result: R
): Effect.Effect<R> =>
  Effect.map(gateway.takeReminder, (reminder) =>
    reminder === null ? result : { ...result, content: [...result.content, { type: "text", text: reminder }] })
