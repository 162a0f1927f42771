/**
 * What the MCP server door adds to a session: upstream prompts as prompts of our server, the
 * session's events (`SessionEvents`: upstream status and logs, finished background shells) as MCP
 * log notifications and `prompts/list_changed` when upstream prompts change. (What the model must
 * hear, e.g. the after-startup tool reminder, the scheduler attaches to the next tool result.)
 *
 * @since 0.1.0
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  McpError
} from "@modelcontextprotocol/sdk/types.js"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
// floors: start-up — mcp/index.ts loads the MCP client, which a session loads only when servers are configured
import { statusLog } from "../mcp/hostLog.js"
// floors: start-up — as above
import type { McpGateway } from "../mcp/service.js"
import type { SessionEvent, SessionEvents } from "../session/index.js"
import { ExecutionFailed, hasCode } from "../tool/index.js"

/** The logger name of background-shell notifications. @category constants */
export const BACKGROUND_LOGGER = "toolwright/background"

/** Capabilities our server declares for a gateway with servers. @category serve */
export const gatewayCapabilities = (gateway: McpGateway["Service"]) =>
  gateway.hasServers ? { prompts: { listChanged: true }, logging: {} } : {}

/**
 * Registers the prompt handlers on a server (before it connects). Nothing when the session has no
 * MCP servers.
 *
 * @category serve
 */
export const registerPrompts = (
  server: Server,
  gateway: McpGateway["Service"],
  run: <A, E>(effect: Effect.Effect<A, E>) => Promise<A>
): void => {
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
}

/**
 * Subscribes to the session's events now (before the server connects) and forwards them once the
 * host has initialized (or at once, when it already has): first one status line per MCP server (what happened before the host was
 * listening), then every event as it comes. The forwarding ends with the scope.
 *
 * @category serve
 */
export const forwardSessionEvents = Effect.fnUntraced(function*(
  server: Server,
  events: SessionEvents["Service"],
  gateway: McpGateway["Service"],
  alreadyInitialized = false
) {
  const initialized = yield* Deferred.make<void>()
  if (alreadyInitialized) Deferred.doneUnsafe(initialized, Effect.void)
  const previous = server.oninitialized
  server.oninitialized = () => {
    previous?.()
    Deferred.doneUnsafe(initialized, Effect.void)
  }
  const stream = yield* events.subscribe
  const send = (event: SessionEvent) => {
    switch (event._tag) {
      case "PromptsChanged":
        return Effect.ignore(Effect.tryPromise(() => server.sendPromptListChanged()))
      case "Log":
        return Effect.ignore(Effect.tryPromise(() => server.sendLoggingMessage({ level: event.level, logger: event.logger, data: event.data })))
      case "ShellFinished":
        return Effect.ignore(Effect.tryPromise(() =>
          server.sendLoggingMessage({ level: event.status === "completed" ? "info" : "warning", logger: BACKGROUND_LOGGER, data: event.text })
        ))
    }
  }
  yield* Effect.forkScoped(Effect.gen(function*() {
    yield* Deferred.await(initialized)
    if (gateway.hasServers) {
      for (const status of yield* gateway.statuses) yield* send(statusLog(status))
    }
    yield* Stream.runForEach(stream, send)
  }))
})
