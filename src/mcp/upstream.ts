/**
 * A resilient upstream: one configured server, connected lazily, restarted after it dies,
 * re-discovered when it says its lists changed, shared by every session of a workspace. Requests
 * run through `request.ts` (reconnects with backoff, timeouts, progress); a request never waits on
 * another server.
 *
 * @since 0.1.0
 */
import {
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
  ResultSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Semaphore from "effect/Semaphore"
import * as Stream from "effect/Stream"
import type { McpServerConfig } from "./config.js"
import { poolKey } from "./fingerprint.js"
import { HEALTH_PING_TIMEOUT_MS, LIST_CHANGED_DEBOUNCE_MS } from "./constants.js"
import { classifyFailure, connect, type LiveConnection, type TransportKind, type UpstreamNotice } from "./connection.js"
import { type Catalog, discover } from "./discovery.js"
import { McpConnectError } from "./errors.js"
import { type RequestOptions, type RunRequest, runRequest, type UpstreamFailure } from "./request.js"

export { type Progress, type RequestOptions, UpstreamFailure } from "./request.js"

/** Something that happened to an upstream. @category models */
export type UpstreamEvent =
  | { readonly _tag: "Connected"; readonly kind: TransportKind; readonly catalog: Catalog; readonly restart: boolean }
  | { readonly _tag: "Disconnected"; readonly reason: string }
  | { readonly _tag: "CatalogChanged"; readonly catalog: Catalog }
  | { readonly _tag: "Log"; readonly level: string; readonly logger: string | undefined; readonly data: unknown }
  | { readonly _tag: "Warning"; readonly message: string }

/** Where an upstream stands. @category models */
export interface UpstreamStatus {
  readonly state: "idle" | "connecting" | "connected" | "disconnected" | "failed"
  readonly kind: TransportKind | undefined
  readonly pid: number | undefined
  /** How many times a connection was attempted. */
  readonly connects: number
  readonly lastError: string | undefined
}

/** One configured server, shared by every session that uses it. @category models */
export interface Upstream {
  readonly name: string
  /** `<name>::<fingerprint>`. */
  readonly key: string
  readonly server: McpServerConfig
  /** Connects if needed and returns the current catalog. */
  readonly ensure: Effect.Effect<Catalog, McpConnectError>
  /** The last discovered catalog, without connecting. */
  readonly catalog: Effect.Effect<Option.Option<Catalog>>
  readonly status: Effect.Effect<UpstreamStatus>
  readonly callTool: (
    name: string,
    args: Record<string, unknown>,
    options: RequestOptions
  ) => Effect.Effect<CallToolResult, UpstreamFailure>
  readonly readResource: (uri: string, options: RequestOptions) => Effect.Effect<ReadResourceResult, UpstreamFailure>
  readonly getPrompt: (
    name: string,
    args: Record<string, string>,
    options: RequestOptions
  ) => Effect.Effect<GetPromptResult, UpstreamFailure>
  /** Events from now on; the subscription ends with the scope. */
  readonly subscribe: Effect.Effect<Stream.Stream<UpstreamEvent>, never, Scope.Scope>
  /** Drops the connection (and kills a local server); the next request reconnects. */
  readonly restart: Effect.Effect<void>
}

/** What an upstream needs besides its config. @category models */
export interface UpstreamOptions {
  /** Default working directory of a local server (the workspace's primary root). */
  readonly cwd: string
  readonly roots: ReadonlyArray<string>
}

/** Per-connection facts the SDK callbacks need. */
interface ConnectionFlags {
  intentional: boolean
  live: LiveConnection | undefined
}

interface Current {
  readonly live: LiveConnection
  readonly scope: Scope.Closeable
  readonly generation: number
  readonly flags: ConnectionFlags
}

/**
 * Makes an upstream. Nothing connects until the first request or {@link Upstream.ensure}; the
 * connection is closed (and a local server's process tree killed) when the scope closes.
 *
 * @category constructors
 */
export const makeUpstream = Effect.fnUntraced(function*(server: McpServerConfig, options: UpstreamOptions) {
  const scope = yield* Effect.scope
  const current = yield* Ref.make<Option.Option<Current>>(Option.none())
  const catalog = yield* Ref.make<Option.Option<Catalog>>(Option.none())
  const state = yield* Ref.make<UpstreamStatus>({ state: "idle", kind: undefined, pid: undefined, connects: 0, lastError: undefined })
  const lock = yield* Semaphore.make(1)
  const events = yield* PubSub.unbounded<UpstreamEvent>()
  const refresh = yield* Queue.sliding<void>(1)
  const background = yield* FiberSet.make()

  // A connection that closes on its own is reported from a fiber (the SDK calls us synchronously).
  const closedSignals = yield* Queue.unbounded<ConnectionFlags>()
  let generations = 0
  let progressTokens = 0

  const publish = (event: UpstreamEvent) => PubSub.publish(events, event)

  const onNotice = (flags: ConnectionFlags) => (notice: UpstreamNotice) => {
    switch (notice._tag) {
      case "ListChanged":
        Queue.offerUnsafe(refresh, undefined)
        return
      case "Log":
        PubSub.publishUnsafe(events, { _tag: "Log", level: notice.level, logger: notice.logger, data: notice.data })
        return
      case "Garbage":
        PubSub.publishUnsafe(events, { _tag: "Warning", message: `skipped a line on stdout that is not JSON-RPC: ${notice.line}` })
        return
      case "Closed":
        if (!flags.intentional) Queue.offerUnsafe(closedSignals, flags)
        return
    }
  }

  const closeCurrent = (intentional: boolean) =>
    Effect.gen(function*() {
      const cur = yield* Ref.getAndSet(current, Option.none())
      if (Option.isNone(cur)) return
      cur.value.flags.intentional = intentional
      yield* Scope.close(cur.value.scope, Exit.void)
    })

  const connectNow = Effect.gen(function*() {
    const flags: ConnectionFlags = { intentional: false, live: undefined }
    const connScope = yield* Scope.make()
    yield* Ref.update(state, (s) => ({ ...s, state: "connecting" as const, connects: s.connects + 1 }))
    const attempt = Effect.gen(function*() {
      const live = yield* connect(server, { cwd: options.cwd, roots: options.roots, onNotice: onNotice(flags) }).pipe(Scope.provide(connScope))
      const found = yield* discover(live.client).pipe(
        Effect.mapError((f) =>
          new McpConnectError({
            server: server.name,
            message: `MCP server "${server.name}" connected but listing its ${f.list} failed: ${classifyFailure(f.error).message}`
          })
        )
      )
      return { live, found }
    }).pipe(
      Effect.timeoutOrElse({
        duration: server.discoveryTimeoutMs,
        orElse: () =>
          Effect.fail(new McpConnectError({
            server: server.name,
            message: `MCP server "${server.name}" did not finish connecting and listing its tools within ${server.discoveryTimeoutMs} ms ` +
              `(raise "discoveryTimeout" in its config if it is just slow to start).`
          }))
      })
    )
    const exit = yield* Effect.exit(attempt)
    if (Exit.isFailure(exit)) {
      flags.intentional = true
      yield* Scope.close(connScope, Exit.void)
      const error = exit.cause.reasons.find((r) => r._tag === "Fail")
      const connectError = error && error._tag === "Fail"
        ? error.error
        : new McpConnectError({ server: server.name, message: `MCP server "${server.name}" could not be connected.` })
      yield* Ref.update(state, (s) => ({ ...s, state: "failed" as const, lastError: connectError.message, pid: undefined }))
      return yield* connectError
    }
    const { live, found } = exit.value
    flags.live = live
    const generation = ++generations
    yield* Ref.set(current, Option.some({ live, scope: connScope, generation, flags }))
    const previous = yield* Ref.getAndSet(catalog, Option.some(found))
    const status = yield* Ref.updateAndGet(state, (s) => ({ ...s, state: "connected" as const, kind: live.kind, pid: live.pid, lastError: undefined }))
    yield* publish({ _tag: "Connected", kind: live.kind, catalog: found, restart: status.connects > 1 })
    if (Option.isSome(previous) && catalogKey(previous.value) !== catalogKey(found)) yield* publish({ _tag: "CatalogChanged", catalog: found })
    for (const warning of found.warnings) yield* publish({ _tag: "Warning", message: warning })
    return { live, generation }
  })

  /** The live connection, connecting (or reconnecting after a death) first. */
  const ensureLive = lock.withPermit(Effect.gen(function*() {
    const cur = yield* Ref.get(current)
    if (Option.isSome(cur) && !cur.value.live.isClosed()) return { live: cur.value.live, generation: cur.value.generation }
    if (Option.isSome(cur)) yield* closeCurrent(false)
    return yield* connectNow
  }))

  /** Drops the connection if it is still the one a failed request used. */
  const invalidate = (generation: number) =>
    lock.withPermit(Effect.gen(function*() {
      const cur = yield* Ref.get(current)
      if (Option.isSome(cur) && cur.value.generation === generation) yield* closeCurrent(false)
    }))

  const deathReason = (live: LiveConnection, fallback: string) => live.closeReason() ?? fallback

  /** After a timeout: a server that does not answer a ping is dropped, so the next call restarts it. */
  const healthCheck = (generation: number | undefined) =>
    Effect.gen(function*() {
      const cur = yield* Ref.get(current)
      if (Option.isNone(cur) || (generation !== undefined && cur.value.generation !== generation)) return
      const client = cur.value.live.client
      const ok = yield* Effect.tryPromise((signal) => client.ping({ signal, timeout: HEALTH_PING_TIMEOUT_MS })).pipe(
        Effect.as(true),
        Effect.catch(() => Effect.succeed(false))
      )
      if (!ok) {
        yield* publish({ _tag: "Warning", message: `did not answer a ping after a timeout; it will be restarted on the next call` })
        yield* invalidate(cur.value.generation)
      }
    })
  const healthCheckLater = (generation: number | undefined) => Effect.asVoid(FiberSet.run(background, healthCheck(generation)))

  const request = <A>(label: string, run: RunRequest<A>, opts: RequestOptions) =>
    runRequest({ serverName: server.name, ensureLive, invalidate, healthCheckLater }, label, run, opts)

  // The SDK's own per-request timeout (60 s by default) must never fire before ours.
  const sdkTimeout = (opts: RequestOptions) => opts.timeoutMs + 60_000

  const callTool = (name: string, args: Record<string, unknown>, opts: RequestOptions) =>
    request(name, (live, signal, onprogress) => {
      const token = `toolwright-${++progressTokens}`
      const untrack = live.trackProgress(token, onprogress)
      // Validated as a plain result: content blocks of unknown types are dropped by our mapping
      // instead of failing the whole call in the SDK.
      return (live.client.request(
        { method: "tools/call", params: { name, arguments: args, _meta: { progressToken: token } } },
        ResultSchema,
        { signal, timeout: sdkTimeout(opts) }
      ) as Promise<CallToolResult>).finally(untrack)
    }, opts)

  const readResource = (uri: string, opts: RequestOptions) =>
    request(`resources/read ${uri}`, (live, signal) => live.client.readResource({ uri }, { signal, timeout: sdkTimeout(opts) }), opts)

  const getPrompt = (name: string, args: Record<string, string>, opts: RequestOptions) =>
    request(`prompts/get ${name}`, (live, signal) => live.client.getPrompt({ name, arguments: args }, { signal, timeout: sdkTimeout(opts) }), opts)

  // Re-discovery after list_changed: bursts coalesce into one listing.
  yield* Effect.forkIn(
    Effect.forever(Effect.gen(function*() {
      yield* Queue.take(refresh)
      yield* Effect.sleep(LIST_CHANGED_DEBOUNCE_MS)
      yield* Queue.poll(refresh)
      const cur = yield* Ref.get(current)
      if (Option.isNone(cur) || cur.value.live.isClosed()) return
      const found = yield* discover(cur.value.live.client).pipe(
        Effect.timeoutOrElse({ duration: server.discoveryTimeoutMs, orElse: () => Effect.fail({ list: "lists", error: new Error("timed out") }) }),
        Effect.map(Option.some),
        Effect.catch((f) =>
          Effect.as(publish({ _tag: "Warning", message: `re-listing its ${f.list} after a change failed: ${classifyFailure(f.error).message}` }), Option.none())
        )
      )
      if (Option.isNone(found)) return
      const previous = yield* Ref.getAndSet(catalog, found)
      if (Option.isNone(previous) || catalogKey(previous.value) !== catalogKey(found.value)) {
        yield* publish({ _tag: "CatalogChanged", catalog: found.value })
      }
    })),
    scope
  )

  // Deaths are reported once per connection.
  yield* Effect.forkIn(
    Effect.forever(Effect.gen(function*() {
      const flags = yield* Queue.take(closedSignals)
      const cur = yield* Ref.get(current)
      // A connection that never came up (its failure is the connect error) or one already replaced
      // by a newer one is not news.
      if (flags.live === undefined || (Option.isSome(cur) && cur.value.flags !== flags)) return
      const reason = flags.live ? deathReason(flags.live, "the connection closed") : "the connection closed"
      yield* Ref.update(state, (s) => ({ ...s, state: "disconnected" as const, lastError: reason, pid: undefined }))
      yield* publish({ _tag: "Disconnected", reason })
    })),
    scope
  )

  yield* Effect.addFinalizer(() => closeCurrent(true))

  return {
    name: server.name,
    key: poolKey(server.name, server.transport),
    server,
    ensure: Effect.flatMap(ensureLive, () => Effect.map(Ref.get(catalog), Option.getOrThrow)),
    catalog: Ref.get(catalog),
    status: Ref.get(state),
    callTool,
    readResource,
    getPrompt,
    subscribe: Effect.map(PubSub.subscribe(events), Stream.fromSubscription),
    restart: lock.withPermit(closeCurrent(true)).pipe(
      Effect.andThen(Ref.update(state, (s) => ({ ...s, state: "idle" as const, pid: undefined })))
    )
  } satisfies Upstream
})

/** A comparable key of a catalog (what sessions register from it). */
const catalogKey = (catalog: Catalog): string =>
  JSON.stringify([catalog.tools, catalog.resources, catalog.resourceTemplates, catalog.prompts, catalog.instructions ?? null])
