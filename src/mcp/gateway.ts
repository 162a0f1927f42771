/**
 * The MCP gateway of one session: connects the configured servers through the workspace pool,
 * registers their tools (deferred behind `tool_search`), follows their `list_changed`
 * notifications into the registry, and keeps what the model must be told (the after-startup
 * reminders, server instructions) and what a person should see (server status).
 *
 * Every server is supervised on its own fiber: a server that fails, hangs or is refused by the
 * budget is reported and retried in the background; it never stops the others.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import {
  buildChangedMcpToolsBody,
  buildMcpServerInstructionsReminder,
  type DeferredToolSummary,
  ToolRegistry,
  wrapSystemReminder
} from "../registry/index.js"
import { SessionEvents, Workspace } from "../session/index.js"
import { ExecutionFailed } from "../tool/index.js"
import { refusedMessage, warningMessage } from "./budget.js"
import { toSessionEvent } from "./hostLog.js"
import type { McpConfig, McpServerConfig } from "./config.js"
import {
  DEFAULT_STARTUP_WAIT_MS,
  STARTUP_RETRY_ATTEMPTS,
  STARTUP_RETRY_BASE_DELAY_MS,
  STARTUP_RETRY_MAX_DELAY_MS
} from "./constants.js"
import type { Catalog } from "./discovery.js"
import { makeMcpPool, McpPool } from "./pool.js"
import type { ResolveServer } from "./readMcpResource.js"
import { type GatewayEvent, type GatewayLevel, type GatewayPrompt, type GatewayResource, McpGateway, type McpSessionOptions, type ServerStatus } from "./service.js"
import { type RegisteredTools, syncTools } from "./sync.js"
import { type SchemaValidatorProvider, toCallError } from "./tool.js"
import type { Upstream } from "./upstream.js"

/** Options of the gateway. @category models */
export interface GatewayOptions {
  readonly config: McpConfig
  /** How long building waits for servers (default {@link DEFAULT_STARTUP_WAIT_MS}; `Infinity`: all first attempts). */
  readonly startupWaitMs?: number | undefined
}

interface ServerEntry {
  readonly server: McpServerConfig
  readonly upstream: Upstream
  /** What this session registered from the server. */
  readonly registered: RegisteredTools
  /** The catalog last synced into the registry. */
  catalog: Catalog | undefined
}

/**
 * Builds the gateway: starts supervising every server, waits up to the startup bound, and marks
 * what the model was told at startup.
 *
 * @category constructors
 */
export const makeGateway = Effect.fnUntraced(function*(options: GatewayOptions) {
  const registry = yield* ToolRegistry
  const pool = yield* McpPool
  // The JSON Schema validator (ajv) is loaded when the first upstream tool is called.
  const validator: Effect.Effect<SchemaValidatorProvider> = yield* Effect.cached(
    Effect.promise(() => import("@modelcontextprotocol/sdk/validation/ajv")).pipe(Effect.map((m) => new m.AjvJsonSchemaValidator()))
  )
  const events = yield* PubSub.unbounded<GatewayEvent>()
  const sessionEvents = yield* SessionEvents
  // every gateway event also goes to the session's events, which the door forwards to its host
  const emit = (event: GatewayEvent) =>
    PubSub.publish(events, event).pipe(Effect.andThen(sessionEvents.publish(toSessionEvent(event))))
  const statuses = yield* Ref.make(new Map<string, ServerStatus>())
  const entries = new Map<string, ServerEntry>()
  const announced = yield* Ref.make<ReadonlySet<string> | undefined>(undefined)
  const refusedInPass = yield* Ref.make<ReadonlyArray<string>>([])
  const config = options.config

  const setStatus = (status: ServerStatus, level: GatewayLevel) =>
    Effect.gen(function*() {
      yield* Ref.update(statuses, (m) => new Map(m).set(status.name, status))
      yield* emit({ _tag: "Status", status, level })
    })
  const notice = (level: GatewayLevel, server: string | undefined, message: string) =>
    emit({ _tag: "Notice", level, server, message })
  const status = (name: string, state: ServerStatus["state"], extra: Partial<ServerStatus> = {}): ServerStatus => ({
    name,
    state,
    transport: undefined,
    tools: entries.get(name)?.registered.size ?? 0,
    message: undefined,
    ...extra
  })

  for (const problem of config.problems) {
    if (problem.severity === "error" && problem.server !== undefined) {
      yield* setStatus(status(problem.server, "invalid", { message: problem.message }), "error")
    } else {
      yield* Effect.logWarning(`toolwright: ${problem.message}`)
      yield* notice("warning", problem.server, problem.message)
    }
  }

  const budgetWarnings = yield* pool.warnings
  // a budget warning is logged, told to the host, and reminded to the model with its next result
  yield* Effect.forkScoped(Stream.runForEach(budgetWarnings, (w) =>
    Effect.logWarning(`toolwright: ${warningMessage(w)}`).pipe(
      Effect.andThen(notice("warning", undefined, warningMessage(w))),
      Effect.andThen(sessionEvents.remind("mcp-budget", warningMessage(w)))
    )))

  const promptsKey = () => JSON.stringify([...entries.values()].map((e) => [e.server.name, e.catalog?.prompts ?? []]))

  const supervise = Effect.fnUntraced(function*(entry: ServerEntry, firstAttempt: Deferred.Deferred<void>) {
    const { server, upstream } = entry
    const lock = yield* Semaphore.make(1)

    const sync = (catalog: Catalog) =>
      lock.withPermit(Effect.gen(function*() {
        const before = promptsKey()
        entry.catalog = catalog
        const outcome = yield* syncTools({ registry, server, upstream, validator, registered: entry.registered }, catalog)
        if (outcome.added.length + outcome.removed.length + outcome.changed.length > 0) {
          yield* emit({ _tag: "ToolsChanged", server: server.name, added: outcome.added, removed: outcome.removed })
        }
        if (promptsKey() !== before) yield* emit({ _tag: "PromptsChanged" })
      }))

    const upstreamEvents = yield* upstream.subscribe
    yield* Effect.forkScoped(Stream.runForEach(upstreamEvents, (event) =>
      Effect.gen(function*() {
        switch (event._tag) {
          case "Connected": {
            yield* sync(event.catalog)
            // The first connection is reported by the supervisor below; restarts are reported here.
            if (event.restart) {
              yield* setStatus(status(server.name, "connected", { transport: event.kind, message: `MCP server "${server.name}" was (re)started.` }), "info")
            }
            return
          }
          case "CatalogChanged":
            return yield* sync(event.catalog)
          case "Disconnected":
            return yield* setStatus(
              status(server.name, "disconnected", { message: `${event.reason}. It will be restarted on the next call.` }),
              "warning"
            )
          case "Warning":
            return yield* notice("warning", server.name, `MCP server "${server.name}": ${event.message}`)
          case "Log":
            return yield* emit({ _tag: "UpstreamLog", server: server.name, level: event.level, data: event.data })
        }
      })))

    yield* setStatus(status(server.name, "starting"), "debug")
    for (let attempt = 0; attempt <= STARTUP_RETRY_ATTEMPTS; attempt++) {
      const exit = yield* Effect.exit(upstream.ensure)
      if (Exit.isSuccess(exit)) {
        // The Connected event syncs too; syncing here makes the first attempt's tools visible at once.
        yield* sync(exit.value)
        const current = (yield* upstream.status).kind
        yield* setStatus(status(server.name, "connected", { transport: current }), "info")
        yield* Deferred.succeed(firstAttempt, undefined)
        return
      }
      const reason = exit.cause.reasons.find((r) => r._tag === "Fail")
      const message = reason && reason._tag === "Fail" ? reason.error.message : `MCP server "${server.name}" could not be connected.`
      const last = attempt === STARTUP_RETRY_ATTEMPTS
      const delay = Math.min(STARTUP_RETRY_MAX_DELAY_MS, STARTUP_RETRY_BASE_DELAY_MS * 2 ** attempt)
      yield* Effect.logWarning(`toolwright: ${message}`)
      yield* setStatus(
        status(server.name, "failed", { message: last ? `${message} (gave up after ${attempt + 1} attempts)` : `${message} (retrying in ${delay} ms)` }),
        "error"
      )
      yield* Deferred.succeed(firstAttempt, undefined)
      if (last) return
      yield* Effect.sleep(delay)
    }
  })

  const firstAttempts: Array<Deferred.Deferred<void>> = []
  for (const server of config.servers) {
    if (server.disabled) {
      yield* setStatus(status(server.name, "disabled", { message: `MCP server "${server.name}" is disabled in the MCP config.` }), "info")
      continue
    }
    // Slots are taken in declaration order, so which servers the budget refuses is deterministic.
    const acquired = yield* Effect.exit(pool.acquire(server))
    if (Exit.isFailure(acquired)) {
      const reason = acquired.cause.reasons.find((r) => r._tag === "Fail")
      const text = reason && reason._tag === "Fail" ? reason.error.message : `MCP server "${server.name}" could not be pooled.`
      yield* Ref.update(refusedInPass, (names) => [...names, server.name])
      yield* setStatus(status(server.name, "refused", { message: text }), "error")
      continue
    }
    const entry: ServerEntry = { server, upstream: acquired.value, registered: new Map(), catalog: undefined }
    entries.set(server.name, entry)
    const first = yield* Deferred.make<void>()
    firstAttempts.push(first)
    yield* Effect.forkScoped(supervise(entry, first).pipe(Effect.ensuring(Deferred.succeed(first, undefined))))
  }

  const settled = Effect.forEach(firstAttempts, Deferred.await, { discard: true })
  const wait = options.startupWaitMs ?? DEFAULT_STARTUP_WAIT_MS
  yield* (Number.isFinite(wait) ? Effect.timeoutOption(settled, wait) : settled)
  const refused = yield* Ref.get(refusedInPass)
  if (refused.length > 0 && pool.budget) {
    const message = refusedMessage(refused, pool.budget)
    yield* Effect.logWarning(`toolwright: ${message}`)
    yield* notice("error", undefined, message)
  }

  const mcpSummaries = Effect.gen(function*() {
    const all = yield* registry.tools
    return all.filter((t) => t.serverName !== undefined)
  })
  // What the startup prelude told the model: every MCP tool registered by now.
  yield* Ref.set(announced, new Set((yield* mcpSummaries).map((t) => t.name)))

  // MCP tools added or removed since the model was last told (upstream list_changed, late starts, exits)
  const takeChanges = Effect.gen(function*() {
    const told = yield* Ref.get(announced)
    if (told === undefined) return null
    const now = new Set((yield* mcpSummaries).map((t) => t.name))
    const added: Array<DeferredToolSummary> = (yield* registry.hiddenTools)
      .filter((tool) => tool.serverName !== undefined && !told.has(tool.name))
      .map((tool) => ({ name: tool.name, description: tool.description, serverName: tool.serverName }))
    const removed = [...told].filter((name) => !now.has(name))
    yield* Ref.set(announced, now)
    return buildChangedMcpToolsBody(added, removed)
  })
  const takeReminder = Effect.map(takeChanges, (body) => (body === null ? null : wrapSystemReminder(body)))
  // every door's next tool result carries the changes (the scheduler takes the session's reminders)
  yield* sessionEvents.addReminderSource(takeChanges)

  const instructionsReminder = Effect.sync(() =>
    buildMcpServerInstructionsReminder(
      [...entries.values()].flatMap((e) => (e.catalog?.instructions ? [[e.server.name, e.catalog.instructions] as const] : []))
    )
  )

  const prompts = Effect.sync(() =>
    [...entries.values()].flatMap((e) =>
      (e.catalog?.prompts ?? []).map((prompt): GatewayPrompt => ({ name: `${e.server.name}__${prompt.name}`, server: e.server.name, prompt }))
    )
  )

  const resources = Effect.sync(() =>
    [...entries.values()].flatMap((e): Array<GatewayResource> => [
      ...(e.catalog?.resources ?? []).map((r) => ({ server: e.server.name, uri: r.uri, name: r.name, template: false, mimeType: r.mimeType })),
      ...(e.catalog?.resourceTemplates ?? []).map((t) => ({ server: e.server.name, uri: t.uriTemplate, name: t.name, template: true, mimeType: t.mimeType }))
    ])
  )

  const getPrompt = Effect.fn("McpGateway.getPrompt")(function*(name: string, args: Record<string, string>) {
    const found = (yield* prompts).find((p) => p.name === name)
    const entry = found ? entries.get(found.server) : undefined
    if (!found || !entry) {
      return yield* new ExecutionFailed({ message: `Prompt "${name}" is not offered by any connected MCP server.` })
    }
    return yield* entry.upstream.getPrompt(found.prompt.name, args, {
      timeoutMs: entry.server.timeoutMs,
      idleTimeoutMs: entry.server.idleTimeoutMs,
      resendAfterLoss: true
    }).pipe(Effect.mapError((f) => toCallError(entry.server.name, `prompts/get ${found.prompt.name}`, f)))
  })

  const resolveServer: ResolveServer = (name) =>
    Effect.gen(function*() {
      const entry = entries.get(name)
      if (entry) return { server: entry.server, upstream: entry.upstream }
      const known = (yield* Ref.get(statuses)).get(name)
      if (known?.state === "disabled") return yield* new ExecutionFailed({ message: `MCP server '${name}' is disabled.` })
      if (known?.state === "refused" || known?.state === "invalid") return yield* new ExecutionFailed({ message: known.message ?? `MCP server '${name}' is not available.` })
      const names = config.servers.map((s) => s.name)
      return yield* new ExecutionFailed({
        message: `MCP server '${name}' is not configured.${names.length > 0 ? ` Configured servers: ${names.join(", ")}.` : ""}`
      })
    })

  return McpGateway.of({
    statuses: Effect.map(Ref.get(statuses), (m) => [...m.values()].sort((a, b) => a.name.localeCompare(b.name))),
    subscribe: Effect.map(PubSub.subscribe(events), Stream.fromSubscription),
    instructionsReminder,
    takeReminder,
    prompts,
    resources,
    getPrompt,
    resolveServer,
    settled,
    hasServers: config.servers.length > 0 || config.problems.some((p) => p.server !== undefined)
  })
})

/**
 * The gateway of a session: over the given workspace pool, or over a pool of its own (closed with
 * the session).
 *
 * @category layers
 */
export const layerForSession = (options: McpSessionOptions): Layer.Layer<McpGateway, never, ToolRegistry | Workspace | SessionEvents> =>
  Layer.effect(
    McpGateway,
    Effect.gen(function*() {
      const workspace = yield* Workspace
      const pool = options.pool ?? (yield* makeMcpPool({ cwd: workspace.primaryRoot, roots: workspace.roots, budget: options.config.budget }))
      return yield* makeGateway({ config: options.config, startupWaitMs: options.startupWaitMs }).pipe(
        Effect.provideService(McpPool, pool)
      )
    })
  )
