/**
 * `toolwright serve`: an MCP server over one workspace session. `tools/list` is the session's
 * current declaration list; `tools/call` runs through the scheduler (policy, approval, budgets); a
 * reveal by `tool_search` sends `notifications/tools/list_changed`; `initialize` returns
 * instructions carrying the deferred-tools reminder. Per host, deferred tools are also reachable
 * through `call_tool` (`proxy`) or not deferred at all (`off`): see ./deferred.ts.
 *
 * @since 0.1.0
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { CallToolRequestSchema, ListToolsRequestSchema, type ServerCapabilities } from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Stream from "effect/Stream"
// floors: start-up — mcp/index.ts loads the MCP client, which a session loads only when servers are configured
import { McpGateway } from "../mcp/service.js"
import { OutputStore } from "../output/index.js"
import { buildDeferredToolsReminder, PublishFailed, ToolRegistry } from "../registry/index.js"
import { Approver, Scheduler, SessionInitError, SessionLayer } from "../run/index.js"
import { SessionEvents } from "../session/index.js"
import { type CallResult, type ConfirmationOutcome, InvalidToolParams, toMcp } from "../tool/index.js"
import { exceedsDepth, tooDeepMessage } from "./argumentDepth.js"
import { toCallToolResult } from "./content.js"
import { CALL_TOOL_NAME, callToolDeclaration, type DeferredMode, deferredModeForClient, deferredModeFromEnv, resolveProxyCall } from "./deferred.js"
import { elicitingApprover } from "./elicitation.js"
import { forwardSessionEvents, gatewayCapabilities, registerPrompts } from "./gatewayBridge.js"
import { registerOutputResources, withOutputLinks } from "./outputResources.js"
import { type LiveTap, progressTokenOf, withProgress } from "./progress.js"

/** The server's name and version as announced in `initialize`. @category constants */
export const SERVER_INFO = { name: "toolwright", version: "0.1.0" } as const

/** Options of the MCP door. @category models */
export interface ServeOptions extends SessionLayer.SessionOptions {
  /**
   * The answer when a call needs approval but the host cannot ask its user (no elicitation).
   * Default: cancel.
   */
  readonly fallbackApproval?: ConfirmationOutcome | undefined
  /**
   * How deferred tools are offered: `list-changed`, `proxy` (plus `call_tool`) or `off` (all
   * listed). Default: `TOOLWRIGHT_DEFERRED`, else the MCP config's `"deferred"`, else by the host's
   * `clientInfo.name`.
   */
  readonly deferred?: DeferredMode | undefined
}

const INTRO = `toolwright gives you tools over this workspace: read and edit files, run commands, search, and more. ` +
  `Paths may be absolute or relative to the first workspace root. Some tools are deferred: they are listed in the ` +
  `reminder below and become callable after you fetch them with tool_search.`

/**
 * The `initialize` instructions: an introduction, the MCP server instructions reminder, and the
 * deferred-tools reminder last (reveals change it; only the tail should lose the prompt cache).
 *
 * @category constructors
 */
export const instructionsFor = (reminder: string | null, mcpInstructions: string | null = null): string =>
  [INTRO, mcpInstructions, reminder].filter((part): part is string => part !== null).join("\n\n")

/** The session of one MCP connection: its services, built in the current scope. @category models */
export type SessionParts = Context.Context<SessionLayer.SessionContext>

/**
 * Builds one session whose approver asks through `server` (read when a call needs approval).
 *
 * @category constructors
 */
export const buildSession = (options: ServeOptions, server: () => Server | undefined) =>
  Layer.build(SessionLayer.layer(options).pipe(Layer.provide(Layer.succeed(
    Approver,
    elicitingApprover(server, options.fallbackApproval ?? { _tag: "cancel", reason: "the host cannot ask for approval", unasked: true })
  ))))

/**
 * What the server announces for a session: `initialize` instructions and capabilities.
 *
 * @category constructors
 */
export const announcementOf = Effect.fnUntraced(function*(context: SessionParts, deferred?: DeferredMode) {
  const gateway = Context.get(context, McpGateway)
  const summary = yield* Context.get(context, ToolRegistry).deferredSummary
  return {
    // with every tool listed up front there is nothing deferred to remind of
    instructions: instructionsFor(deferred === "off" ? null : buildDeferredToolsReminder(summary), yield* gateway.instructionsReminder),
    capabilities: { tools: { listChanged: true }, resources: { listChanged: true }, logging: {}, ...gatewayCapabilities(gateway) }
  }
})

/**
 * The deferred-tools mode chosen by configuration: the option (flag), else `TOOLWRIGHT_DEFERRED`,
 * else the MCP config's `"deferred"`; undefined leaves it to the host's name.
 *
 * @category constructors
 */
export const chosenDeferredMode = (options: ServeOptions): Effect.Effect<DeferredMode | undefined, SessionInitError> =>
  options.deferred !== undefined
    ? Effect.succeed(options.deferred)
    : Effect.map(
      deferredModeFromEnv.pipe(Effect.mapError((message) => new SessionInitError({ message }))),
      (fromEnv) => fromEnv ?? options.mcp?.config.deferred
    )

/** Makes the MCP server object of one connection (not connected). @category constructors */
export const makeMcpServer = (announcement: { readonly instructions: string; readonly capabilities: ServerCapabilities }) =>
  new Server(SERVER_INFO, {
    capabilities: announcement.capabilities,
    instructions: announcement.instructions,
    debouncedNotificationMethods: ["notifications/tools/list_changed", "notifications/prompts/list_changed"]
  })

/**
 * Starts an MCP server for one session on the given transport. The server lives until the scope
 * closes (or the transport closes, see {@link serveUntilClosed}).
 *
 * @category constructors
 */
export const startServer = Effect.fnUntraced(function*(options: ServeOptions, transport: Transport) {
  // The approver asks through the server (elicitation), and the server's instructions need the
  // session: the approver reads the server once it exists.
  let server: Server | undefined
  const deferred = yield* chosenDeferredMode(options)
  const context = yield* buildSession(options, () => server)
  const announcement = yield* announcementOf(context, deferred)
  const mcp = makeMcpServer(announcement)
  server = mcp
  yield* wireSession(mcp, context, false, deferred)
  yield* Effect.acquireRelease(
    Effect.promise(() => mcp.connect(transport)),
    () => Effect.promise(() => mcp.close())
  )
  return { server: mcp, context, instructions: announcement.instructions }
})

/**
 * Serves a built session on an MCP server: tool, prompt and resource handlers, list_changed
 * notifications and the session's events (sent once the host has initialized, or at once when
 * `initialized` says it already has). `deferred` is the chosen mode ({@link chosenDeferredMode});
 * unset, the host's `clientInfo.name` picks it. Ends with the scope.
 *
 * @category constructors
 */
export const wireSession = Effect.fnUntraced(function*(
  mcp: Server,
  context: SessionParts,
  initialized = false,
  deferred?: DeferredMode
) {
  // Calls run on their own fibers, outside the caller's references: stdout is the MCP stream, so
  // their logs (a defect's included) go to stderr.
  const run = Effect.runPromiseWith(Context.add(context, Logger.LogToStderr, true))

  const registry = Context.get(context, ToolRegistry)
  const scheduler = Context.get(context, Scheduler)
  const gateway = Context.get(context, McpGateway)
  const deferredMode = (): DeferredMode => deferred ?? deferredModeForClient(mcp.getClientVersion()?.name)
  // Protocol trouble (a handler that threw, a response to an unknown request) is said on stderr, never swallowed.
  mcp.onerror = (error) => void run(Effect.logWarning(`toolwright serve: ${error.message}`))
  // MCP upstreams' prompts; the session's events (upstream status and logs, finished background
  // shells) as log notifications once the host has initialized.
  registerPrompts(mcp, gateway, run)
  yield* forwardSessionEvents(mcp, Context.get(context, SessionEvents), gateway, initialized)
  // Saved (offloaded) outputs as resources; a cut result links to its saved output.
  const store = Context.get(context, OutputStore)
  registerOutputResources(mcp, store)

  const byName = (a: { readonly name: string }, b: { readonly name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  const listed = Effect.suspend(() => {
    switch (deferredMode()) {
      case "list-changed":
        return Effect.map(registry.declarations, (list) => list.map(toMcp))
      case "proxy":
        return Effect.map(registry.declarations, (list) => [...list.map(toMcp), callToolDeclaration].sort(byName))
      case "off":
        return Effect.zipWith(registry.declarations, registry.hiddenTools, (shown, hidden) => [...shown, ...hidden].map(toMcp).sort(byName))
    }
  })
  mcp.setRequestHandler(ListToolsRequestSchema, () => run(Effect.map(listed, (tools) => ({ tools }))))

  // Arguments nested past MAX_ARGUMENT_DEPTH are refused before any decoding (which recurses).
  // In proxy mode `call_tool` stands for the revealed tool it names: the same scheduler call.
  const runCall = (callId: string, name: string, args: Record<string, unknown>, onPart?: LiveTap): Effect.Effect<CallResult> => {
    const tap = onPart ? { onPart: (_: string, part: Parameters<LiveTap>[0], origin: Parameters<LiveTap>[1]) => onPart(part, origin) } : {}
    return exceedsDepth(args)
      ? Effect.succeed({ _tag: "Failure", callId, name, code: InvalidToolParams.code, message: tooDeepMessage(name), display: tooDeepMessage(name) })
      : name === CALL_TOOL_NAME && deferredMode() === "proxy"
      ? Effect.flatMap(
        Effect.provideContext(resolveProxyCall(args), context),
        (target): Effect.Effect<CallResult> =>
          target._tag === "Call"
            ? scheduler.runOne({ callId, name: target.name, args: target.args }, tap)
            : Effect.succeed({ _tag: "Failure", callId, name, code: target.code, message: target.message, display: target.message })
      )
      : scheduler.runOne({ callId, name, args }, tap)
  }
  let nextCallId = 0
  mcp.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    run(
      // Live output as progress notifications when the call carries a progress token (progress.ts).
      withProgress(
        progressTokenOf(request),
        (params) => extra.sendNotification({ method: "notifications/progress", params }),
        (onPart) => runCall(`mcp-${++nextCallId}`, request.params.name, request.params.arguments ?? {}, onPart)
      ).pipe(
        Effect.flatMap((result) =>
          withOutputLinks(store, result, toCallToolResult(result)).pipe(
            Effect.tap(({ linked }) => linked > 0 ? Effect.ignore(Effect.tryPromise(() => mcp.sendResourceListChanged())) : Effect.void),
            Effect.map(({ result }) => result)
          ))
      ),
      { signal: extra.signal }
    ) as Promise<never>)

  const notify = Effect.tryPromise({
    try: () => mcp.sendToolListChanged(),
    catch: (error) => new PublishFailed({ message: `could not notify the host: ${String(error)}` })
  })
  yield* registry.setPublisher(() => notify)
  // Changes other than reveals (tools registered or removed later, e.g. MCP upstreams) notify too.
  const changes = yield* registry.subscribe
  yield* changes.pipe(
    Stream.filter((change) => change.reason !== "revealed"),
    Stream.runForEach(() => notify.pipe(Effect.ignore)),
    Effect.forkScoped
  )
})

/**
 * Serves until the transport closes.
 *
 * @category constructors
 */
export const serveUntilClosed = (options: ServeOptions, transport: Transport) =>
  Effect.scoped(Effect.gen(function*() {
    const { server } = yield* startServer(options, transport)
    yield* Effect.callback<void>((resume) => {
      const previous = server.onclose
      server.onclose = () => {
        previous?.()
        resume(Effect.void)
      }
    })
  }))
