/**
 * The transport pool of one workspace: sessions that use the same server (same name, same
 * fingerprint) share one connection; a connection nobody uses is closed after an idle period; the
 * workspace budget caps how many servers run. Closing the pool (or {@link McpPool.Service.drain})
 * closes every connection and kills every local server's process tree.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { type BudgetState, type BudgetWarning, initialBudget, refusedMessage, release, tryReserve } from "./budget.js"
import type { McpBudgetConfig, McpServerConfig } from "./config.js"
import { poolKey } from "./fingerprint.js"
import { POOL_IDLE_TIME_TO_LIVE_MS } from "./constants.js"
import { BudgetExhausted } from "./errors.js"
import { makeUpstream, type Upstream, type UpstreamStatus } from "./upstream.js"

/** Options of a pool. @category models */
export interface PoolOptions {
  /** Default working directory of local servers (the workspace's primary root). */
  readonly cwd: string
  /** Workspace roots, announced to servers that ask. */
  readonly roots: ReadonlyArray<string>
  readonly budget?: McpBudgetConfig | undefined
  /** Default {@link POOL_IDLE_TIME_TO_LIVE_MS}. */
  readonly idleTimeToLiveMs?: number | undefined
}

/** One pooled connection, for monitoring. @category models */
export interface PoolEntry {
  readonly key: string
  readonly name: string
  readonly status: UpstreamStatus
}

/** What the pool holds now. @category models */
export interface PoolSnapshot {
  readonly entries: ReadonlyArray<PoolEntry>
  /** Server names holding a budget slot. */
  readonly reserved: ReadonlyArray<string>
  readonly budget: McpBudgetConfig | undefined
  /** Live local server processes. */
  readonly subprocessCount: number
}

/**
 * The MCP transport pool of a workspace.
 *
 * @category services
 */
export class McpPool extends Context.Service<McpPool, McpPool.Service>()("toolwright/mcp/McpPool") {
  /** A pool for one workspace; closing the layer drains it. */
  static readonly layer = (options: PoolOptions): Layer.Layer<McpPool> => Layer.effect(McpPool, makeMcpPool(options))
}

/** @since 0.1.0 */
export declare namespace McpPool {
  /** @category models */
  export interface Service {
    /** The shared upstream of a server, held until the scope closes; fails when the budget refuses it. */
    readonly acquire: (server: McpServerConfig) => Effect.Effect<Upstream, BudgetExhausted, Scope.Scope>
    readonly snapshot: Effect.Effect<PoolSnapshot>
    /** Budget warnings, from now on. */
    readonly warnings: Effect.Effect<Stream.Stream<BudgetWarning>, never, Scope.Scope>
    /** Closes every connection now (local servers' process trees are killed); later requests reconnect. */
    readonly drain: Effect.Effect<void>
    readonly budget: McpBudgetConfig | undefined
  }
}

/**
 * Makes a pool; it drains when the scope closes.
 *
 * @category constructors
 */
export const makeMcpPool = Effect.fnUntraced(function*(options: PoolOptions) {
  const configs = yield* Ref.make(new Map<string, McpServerConfig>())
  const live = yield* Ref.make(new Map<string, Upstream>())
  const budget = yield* Ref.make<BudgetState>(initialBudget)
  const warnings = yield* PubSub.unbounded<BudgetWarning>()

  const reserve = (name: string) =>
    Effect.acquireRelease(
      Effect.gen(function*() {
        const result = yield* Ref.modify(budget, (state) => {
          const r = tryReserve(state, name, options.budget)
          return [r, r.state] as const
        })
        if (result.warning) yield* PubSub.publish(warnings, result.warning)
        if (result.outcome === "refused") {
          return yield* new BudgetExhausted({
            server: name,
            budget: options.budget?.maxServers ?? 0,
            message: refusedMessage([name], options.budget!)
          })
        }
      }),
      () => Ref.update(budget, (state) => release(state, name, options.budget))
    )

  const map = yield* RcMap.make({
    lookup: (key: string) =>
      Effect.gen(function*() {
        const server = (yield* Ref.get(configs)).get(key)!
        yield* reserve(server.name)
        const upstream = yield* makeUpstream(server, { cwd: options.cwd, roots: options.roots })
        yield* Effect.acquireRelease(
          Ref.update(live, (m) => new Map(m).set(key, upstream)),
          () => Ref.update(live, (m) => {
            const next = new Map(m)
            next.delete(key)
            return next
          })
        )
        return upstream
      }),
    idleTimeToLive: options.idleTimeToLiveMs ?? POOL_IDLE_TIME_TO_LIVE_MS
  })

  const acquire = Effect.fn("McpPool.acquire")(function*(server: McpServerConfig) {
    const key = poolKey(server.name, server.transport)
    yield* Ref.update(configs, (m) => (m.has(key) ? m : new Map(m).set(key, server)))
    return yield* RcMap.get(map, key)
  })

  const snapshot = Effect.gen(function*() {
    const upstreams = Array.from((yield* Ref.get(live)).values())
    const entries = yield* Effect.forEach(upstreams, (u) => Effect.map(u.status, (status) => ({ key: u.key, name: u.name, status })))
    return {
      entries,
      reserved: Array.from((yield* Ref.get(budget)).reserved.keys()),
      budget: options.budget,
      subprocessCount: entries.filter((e) => e.status.pid !== undefined).length
    } satisfies PoolSnapshot
  })

  const drain = Effect.gen(function*() {
    const upstreams = Array.from((yield* Ref.get(live)).values())
    yield* Effect.forEach(upstreams, (u) => u.restart, { concurrency: "unbounded", discard: true })
    for (const key of yield* RcMap.keys(map)) yield* RcMap.invalidate(map, key)
  }).pipe(Effect.withSpan("McpPool.drain"))

  return McpPool.of({
    acquire,
    snapshot,
    warnings: Effect.map(PubSub.subscribe(warnings), Stream.fromSubscription),
    drain,
    budget: options.budget
  })
})
