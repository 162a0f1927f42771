/**
 * The tool registry of one session: lazy factories, the disabled set, MCP renaming on a name clash,
 * and on-demand disclosure (which deferred tools have been revealed).
 *
 * The registry is generic: it knows tools, not which tools exist. The declaration list a model sees
 * is non-deferred ∪ alwaysLoad ∪ visible ∪ revealed, and every change to it is published.
 *
 * @since 0.1.0
 */
import * as Cache from "effect/Cache"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TxHashMap from "effect/TxHashMap"
import * as TxHashSet from "effect/TxHashSet"
import { ExecutionFailed, ToolNotRegistered } from "../tool/errors.js"
import { type AnyTool, JsonSchemaParams, type ToolInfo } from "../tool/tool.js"
import { byNameOrder, sortTools } from "../tool/declarations.js"
import { compareText } from "../tool/order.js"
import { mcpToolName } from "./toolSearch/mcpNames.js"

/**
 * A tool that is loaded on first use: a dynamic `import()` plus a constructor effect. It runs at
 * most once per registry (concurrent callers share the attempt); a failure may be retried later.
 *
 * @category models
 */
export interface ToolFactory<R = never> {
  readonly name: string
  readonly load: Effect.Effect<AnyTool, unknown, R>
  /**
   * The tool's declaration, when it is known without loading (built-in tools carry one generated
   * at build time). Declared factories are listed and searched without being loaded; their module is
   * imported on the first call.
   */
  readonly info?: ToolInfo | undefined
}

/**
 * Why the declaration list changed, and which names. Subscribers that need the new list read
 * `declarations` (computing it per event would make bulk registration quadratic).
 *
 * @category models
 */
export interface DeclarationChange {
  readonly reason: "registered" | "revealed" | "unrevealed" | "removed"
  readonly names: ReadonlyArray<string>
}

/** Publishing a new declaration list to a model or host failed. @category errors */
export class PublishFailed extends Schema.TaggedError<PublishFailed>()("PublishFailed", { message: Schema.String }) {}

/** Sends a new declaration list to wherever the model reads it (an MCP host, an effect/ai toolkit). @category models */
export type Publisher = (declarations: ReadonlyArray<ToolInfo>) => Effect.Effect<void, PublishFailed>

/** How a registration ended. @category models */
export type RegisterOutcome =
  | { readonly _tag: "Registered"; readonly name: string }
  | { readonly _tag: "Renamed"; readonly from: string; readonly name: string }
  | { readonly _tag: "Replaced"; readonly name: string }
  | { readonly _tag: "Disabled"; readonly name: string }

/** A tool's summary in the deferred-tools reminder. @category models */
export interface DeferredSummary {
  readonly name: string
  readonly description: string
  readonly serverName?: string | undefined
}

/**
 * The deferred tools as a search index needs them: `deferred` is the same array until the tool set
 * changes (a reveal does not change it), so an index built over it can be kept across reveals.
 *
 * @category models
 */
export interface DeferredView {
  /** Every deferred tool, revealed or not, sorted by name (`sortTools`). */
  readonly deferred: ReadonlyArray<AnyTool>
  /** True when the tool of that name is deferred and not revealed now. */
  readonly isHidden: (name: string) => boolean
}

/** Registry options. @category models */
export interface RegistryOptions {
  /** Names never registered (also matched after an MCP tool is renamed). */
  readonly disabled?: Iterable<string> | undefined
  /** Deferred tools that are nonetheless always declared. */
  readonly visible?: Iterable<string> | undefined
  /** The fully qualified name of an MCP tool, used on a name clash. Default `mcp__<server>__<tool>`, normalised. */
  readonly qualifyMcpName?: ((serverName: string, toolName: string) => string) | undefined
}

/**
 * The registry of one session.
 *
 * @category services
 */
export class ToolRegistry extends Context.Service<ToolRegistry, ToolRegistry.Service>()("toolwright/registry/ToolRegistry") {}

/** @since 0.1.0 */
export declare namespace ToolRegistry {
  /** @category models */
  export interface Service {
    /** Registers a loaded tool; an MCP tool whose name is taken is renamed to its qualified form. */
    readonly register: (tool: AnyTool) => Effect.Effect<RegisterOutcome>
    /** Registers a lazy factory (skipped when its name is disabled). */
    readonly registerFactory: (factory: ToolFactory) => Effect.Effect<RegisterOutcome>
    /** The tool of that name, loading its factory if needed. */
    readonly ensure: (name: string) => Effect.Effect<AnyTool, ToolNotRegistered | ExecutionFailed>
    /** Loads every pending factory; failures are logged and counted, not raised. */
    readonly warmAll: Effect.Effect<{ readonly loaded: number; readonly failed: ReadonlyArray<string> }>
    /** Every registered name (loaded and pending). */
    readonly names: Effect.Effect<ReadonlyArray<string>>
    /** The registered name matching `requested` case-insensitively (loaded or pending), if any. */
    readonly canonicalName: (requested: string) => Effect.Effect<string | undefined>
    /** Every loaded tool, sorted by display name. */
    readonly tools: Effect.Effect<ReadonlyArray<AnyTool>>
    /** The tools a model sees now, sorted by name (loads pending factories first). */
    readonly declarations: Effect.Effect<ReadonlyArray<ToolInfo>>
    /** Deferred, not always loaded, not visible, not revealed. */
    readonly isDeferredAndHidden: (name: string) => Effect.Effect<boolean>
    /** The hidden deferred tools (candidates for `tool_search`), sorted by name; loads pending factories first. */
    readonly hiddenTools: Effect.Effect<ReadonlyArray<AnyTool>>
    /** The deferred tools and which are hidden now, without building the hidden list (loads pending factories first, like `hiddenTools`). */
    readonly deferredView: Effect.Effect<DeferredView>
    /** Summaries of the hidden deferred tools, sorted by name. */
    readonly deferredSummary: Effect.Effect<ReadonlyArray<DeferredSummary>>
    /**
     * Reveals deferred tools and publishes the new list as one step: if publishing fails, this
     * call's reveals are rolled back (earlier ones stay). Returns the names newly revealed.
     */
    readonly reveal: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, PublishFailed>
    /** Forgets every reveal (a new conversation). */
    readonly clearRevealed: Effect.Effect<void>
    /** Removes an MCP server's tools and their reveal marks in one transaction. */
    readonly removeByServer: (serverName: string) => Effect.Effect<ReadonlyArray<string>>
    /** Sets where declaration lists are published (an MCP host, a toolkit). */
    readonly setPublisher: (publisher: Publisher) => Effect.Effect<void>
    /** Every change to the declaration list, from the moment the stream starts. */
    readonly changes: Stream.Stream<DeclarationChange>
    /** Subscribes now (no change after this returns is missed); the subscription ends with the scope. */
    readonly subscribe: Effect.Effect<Stream.Stream<DeclarationChange>, never, Scope.Scope>
  }
}

interface Sorted {
  /** Tools shown whatever the reveals (not deferred, always loaded, or configured visible). */
  readonly visibleBase: ReadonlyArray<AnyTool>
  /** Tools shown only once revealed. */
  readonly deferred: ReadonlyArray<AnyTool>
  readonly deferredNames: ReadonlySet<string>
  readonly byName: ReadonlyArray<AnyTool>
  /** Sorted by display name on first use (only `allTools` asks; sorting 100,000 tools is not free). */
  readonly byDisplayName: () => ReadonlyArray<AnyTool>
  /** Lower-cased name → name, built on first use (only a miss in `canonicalName` asks). */
  readonly byLowerName: () => ReadonlyMap<string, string>
  readonly byNameMap: ReadonlyMap<string, AnyTool>
}

interface ReadCache {
  readonly tools: number
  readonly reveals: number
  readonly sorted?: Sorted | undefined
  readonly snapshot?: Snapshot | undefined
}

/**
 * Merges two lists sorted by {@link byNameOrder}, ties left first. `right` (the revealed tools) is
 * usually short: each of its items is placed by binary search, so a reveal costs a few comparisons
 * and one copy of `left`, not a comparison per declared tool.
 */
const mergeByName = <A extends ToolInfo>(left: ReadonlyArray<A>, right: ReadonlyArray<A>): Array<A> => {
  const out = new Array<A>(left.length + right.length)
  let i = 0
  let o = 0
  for (const item of right) {
    // The first left item after `item` (ties stay before it), searched from where the last one went.
    let lo = i
    let hi = left.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (byNameOrder(left[mid]!, item) <= 0) lo = mid + 1
      else hi = mid
    }
    while (i < lo) out[o++] = left[i++]!
    out[o++] = item
  }
  while (i < left.length) out[o++] = left[i++]!
  return out
}

const sortAll = (all: ReadonlyArray<AnyTool>, visible: ReadonlySet<string>): Sorted => {
  // One pass reads the tool objects; the sort then works on names alone (names are unique here). A
  // comparator reading each tool object was 3–5× slower at 100,000 tools: the objects are scattered
  // over a large heap and every read is a cache miss.
  const byNameMap = new Map<string, AnyTool>()
  const deferredNames = new Set<string>()
  for (const tool of all) {
    byNameMap.set(tool.name, tool)
    if (!isVisible(tool, false, visible)) deferredNames.add(tool.name)
  }
  const names = Array.from(byNameMap.keys()).sort(compareText)
  const byName: Array<AnyTool> = []
  const visibleBase: Array<AnyTool> = []
  const deferred: Array<AnyTool> = []
  for (const name of names) {
    const tool = byNameMap.get(name)!
    byName.push(tool)
    ;(deferredNames.has(name) ? deferred : visibleBase).push(tool)
  }
  let displayMemo: ReadonlyArray<AnyTool> | undefined
  let lowerMemo: ReadonlyMap<string, string> | undefined
  return {
    visibleBase,
    deferred,
    deferredNames,
    byName,
    byDisplayName: () =>
      displayMemo ??= [...byName].sort((a, b) => compareText(a.displayName, b.displayName) || compareText(a.name, b.name)),
    byLowerName: () => lowerMemo ??= new Map(names.map((name) => [name.toLowerCase(), name])),
    byNameMap
  }
}

interface Snapshot extends Sorted {
  readonly declarations: ReadonlyArray<ToolInfo>
  readonly hiddenList: ReadonlyArray<AnyTool>
  readonly isHidden: (name: string) => boolean
}

const isVisible = (tool: ToolInfo, revealed: boolean, visible: ReadonlySet<string>): boolean =>
  !tool.shouldDefer || tool.alwaysLoad || revealed || visible.has(tool.name)

/**
 * Builds a registry. Factories run with the services of the context this effect runs in.
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*<R = never>(
  factories: ReadonlyArray<ToolFactory<R>> = [],
  options: RegistryOptions = {}
) {
  const context = yield* Effect.context<R>()
  const disabled: ReadonlySet<string> = new Set(options.disabled ?? [])
  const visible: ReadonlySet<string> = new Set(options.visible ?? [])
  const qualify = options.qualifyMcpName ?? mcpToolName
  const tools = yield* TxHashMap.make<string, AnyTool>()
  const pending = yield* Ref.make(new Map<string, ToolFactory>())
  const revealed = yield* TxHashSet.empty<string>()
  const publisher = yield* Ref.make<Publisher>(() => Effect.void)
  const pubsub = yield* PubSub.unbounded<DeclarationChange>()
  // Reads go through a cached snapshot. Every change to `tools` or `revealed` commits its
  // transaction, then bumps a version and drops what it invalidates; a result is cached only when
  // no bump happened while it was computed. Sorting happens once per tool set; a reveal only
  // re-filters.
  const cache = yield* Ref.make<ReadCache>({ tools: 0, reveals: 0 })
  const bumpTools = Ref.update(cache, (c): ReadCache => ({ tools: c.tools + 1, reveals: c.reveals }))
  const bumpReveals = Ref.update(cache, (c): ReadCache => ({ tools: c.tools, reveals: c.reveals + 1, sorted: c.sorted }))

  const snapshot: Effect.Effect<Snapshot> = Effect.flatMap(Ref.get(cache), (seen) => {
    if (seen.snapshot !== undefined) return Effect.succeed(seen.snapshot)
    // When only reveals changed, the sorted tool list is still valid: read just the (small) reveal set.
    const read = seen.sorted !== undefined
      ? Effect.map(TxHashSet.toHashSet(revealed), (set) => [seen.sorted!, set] as const)
      : Effect.map(
        Effect.tx(Effect.all([TxHashMap.values(tools), TxHashSet.toHashSet(revealed)])),
        ([all, set]) => [sortAll(all, visible), set] as const
      )
    return Effect.flatMap(read, ([sorted, revealedSet]) => {
      // Only the (few) revealed tools differ from the tool set's base lists: no pass over all tools.
      const revealedNames: ReadonlySet<string> = new Set(revealedSet)
      const revealedTools = sortTools(
        Array.from(revealedNames, (name) => sorted.byNameMap.get(name)).filter((t): t is AnyTool => t !== undefined && sorted.deferredNames.has(t.name))
      )
      const declarations = revealedTools.length === 0 ? sorted.visibleBase : mergeByName(sorted.visibleBase, revealedTools)
      // The hidden list is only needed by keyword search: computed on first use.
      let hiddenMemo: ReadonlyArray<AnyTool> | undefined
      const hiddenList = () =>
        hiddenMemo ??= revealedTools.length === 0 ? sorted.deferred : sorted.deferred.filter((t) => !revealedNames.has(t.name))
      const next: Snapshot = {
        ...sorted,
        declarations,
        get hiddenList() {
          return hiddenList()
        },
        isHidden: (name) => sorted.deferredNames.has(name) && !revealedNames.has(name)
      }
      return Ref.modify(cache, (now) =>
        [next, now.tools === seen.tools && now.reveals === seen.reveals ? { ...now, sorted, snapshot: next } : now] as const)
    })
  })
  const declarationsNow = Effect.map(snapshot, (s) => s.declarations)

  const emit = (reason: DeclarationChange["reason"], names: ReadonlyArray<string>) =>
    PubSub.publish(pubsub, { reason, names })

  const nameTaken = (name: string) =>
    Effect.map(
      Effect.all([TxHashMap.has(tools, name), Ref.get(pending)]),
      ([loaded, factories]) => loaded || factories.has(name)
    )

  const insert = Effect.fnUntraced(function*(tool: AnyTool) {
    if (disabled.has(tool.name)) return { _tag: "Disabled", name: tool.name } as RegisterOutcome
    let outcome: RegisterOutcome = { _tag: "Registered", name: tool.name }
    let final = tool
    if (yield* nameTaken(tool.name)) {
      if (tool.serverName !== undefined) {
        const qualified = qualify(tool.serverName, tool.name)
        // The disabled set is checked again: a user may disable the qualified name.
        if (disabled.has(qualified)) return { _tag: "Disabled", name: qualified } as RegisterOutcome
        final = tool.withName(qualified)
        outcome = { _tag: "Renamed", from: tool.name, name: qualified }
      } else {
        yield* Effect.logWarning(`toolwright: tool "${tool.name}" registered twice; the later one replaces the earlier`)
        outcome = { _tag: "Replaced", name: tool.name }
      }
    }
    yield* TxHashMap.set(tools, final.name, final)
    yield* bumpTools
    return outcome
  })

  const register = Effect.fn("ToolRegistry.register")(function*(tool: AnyTool) {
    const outcome = yield* insert(tool)
    if (outcome._tag !== "Disabled") yield* emit("registered", [outcome.name])
    return outcome
  })

  // Stand-ins for declared factories, until their first call loads the real tool.
  const declaredOnly = new WeakSet<AnyTool>()
  const isDeclaredOnly = (tool: AnyTool) => declaredOnly.has(tool)

  const registerFactory = Effect.fn("ToolRegistry.registerFactory")(function*(factory: ToolFactory) {
    if (disabled.has(factory.name)) return { _tag: "Disabled", name: factory.name } as RegisterOutcome
    const replaced = yield* nameTaken(factory.name)
    yield* Ref.update(pending, (m) => new Map(m).set(factory.name, factory))
    if (factory.info !== undefined) {
      const standIn = declaredTool({ ...factory.info, name: factory.name }, ensure(factory.name))
      declaredOnly.add(standIn)
      yield* TxHashMap.set(tools, factory.name, standIn)
      yield* bumpTools
    }
    return (replaced ? { _tag: "Replaced", name: factory.name } : { _tag: "Registered", name: factory.name }) as RegisterOutcome
  })

  for (const factory of factories) {
    yield* registerFactory({ name: factory.name, load: Effect.provideContext(factory.load, context), info: factory.info })
  }

  // One in-flight load per name; a failure is not cached, so a later call retries.
  const loads = yield* makeLoader((name: string) =>
    Effect.gen(function*() {
      const factory = (yield* Ref.get(pending)).get(name)
      if (factory === undefined) return yield* new ToolNotRegistered({ message: unknownToolMessage(name) })
      const tool = yield* factory.load.pipe(
        Effect.catchCause((cause) =>
          Effect.fail(new ExecutionFailed({ message: `Tool "${name}" could not be loaded: ${Cause.pretty(cause)}` }))
        )
      )
      yield* Ref.update(pending, (m) => {
        const next = new Map(m)
        next.delete(name)
        return next
      })
      const loaded = tool.name === name ? tool : tool.withName(name)
      yield* TxHashMap.set(tools, name, loaded)
      yield* bumpTools
      return loaded
    })
  )

  function ensure(name: string): Effect.Effect<AnyTool, ToolNotRegistered | ExecutionFailed> {
    return Effect.gen(function*() {
      const loaded = (yield* snapshot).byNameMap.get(name)
      if (loaded !== undefined && !isDeclaredOnly(loaded)) return loaded
      const existing = yield* TxHashMap.get(tools, name)
      if (existing._tag === "Some" && !isDeclaredOnly(existing.value)) return existing.value
      if (!(yield* Ref.get(pending)).has(name)) return yield* new ToolNotRegistered({ message: unknownToolMessage(name) })
      return yield* loads(name)
    })
  }

  /** Loads the pending factories that match `which` (all, or only those without a declaration). */
  const warm = (which: "all" | "undeclared") => Effect.gen(function*() {
    const names = Array.from((yield* Ref.get(pending)).values())
      .filter((factory) => which === "all" || factory.info === undefined)
      .map((factory) => factory.name)
    if (names.length === 0) return { loaded: 0, failed: [] as ReadonlyArray<string> }
    const results = yield* Effect.forEach(names, (name) => Effect.exit(ensure(name)), { concurrency: "unbounded" })
    const failed = names.filter((_, i) => Exit.isFailure(results[i]!))
    for (const name of failed) yield* Effect.logWarning(`toolwright: tool "${name}" failed to load`)
    return { loaded: names.length - failed.length, failed }
  }).pipe(Effect.withSpan("ToolRegistry.warmAll"))
  const warmAll = warm("all")
  const warmUndeclared = warm("undeclared")

  const names = Effect.map(
    Effect.all([snapshot, Ref.get(pending)]),
    ([snap, factories]) =>
      factories.size === 0
        ? snap.byName.map((t) => t.name)
        : Array.from(new Set([...snap.byName.map((t) => t.name), ...factories.keys()])).sort()
  )

  const canonicalName = (requested: string) =>
    Effect.map(Effect.all([snapshot, Ref.get(pending)]), ([snap, factories]) => {
      const lower = requested.toLowerCase()
      const loaded = snap.byNameMap.has(requested) ? requested : snap.byLowerName().get(lower)
      if (loaded !== undefined) return loaded
      for (const name of factories.keys()) if (name.toLowerCase() === lower) return name
      return undefined
    })

  const allTools = Effect.map(snapshot, (s) => s.byDisplayName())

  const isDeferredAndHidden = (name: string) => Effect.map(snapshot, (s) => s.isHidden(name))

  const hiddenTools = Effect.andThen(warmUndeclared, Effect.map(snapshot, (s) => s.hiddenList))

  const deferredView = Effect.andThen(
    warmUndeclared,
    Effect.map(snapshot, (s): DeferredView => ({ deferred: s.deferred, isHidden: s.isHidden }))
  )

  const deferredSummary = Effect.map(hiddenTools, (hidden) =>
    hidden.map((tool): DeferredSummary => ({
      name: tool.name,
      description: tool.description,
      ...(tool.serverName ? { serverName: tool.serverName } : {})
    })))

  const reveal = Effect.fn("ToolRegistry.reveal")(function*(requested: ReadonlyArray<string>) {
    const newly = yield* Effect.tx(Effect.gen(function*() {
      const added: Array<string> = []
      for (const name of requested) {
        const tool = yield* TxHashMap.get(tools, name)
        if (tool._tag === "None" || (yield* TxHashSet.has(revealed, name))) continue
        if (isVisible(tool.value, false, visible)) continue
        yield* TxHashSet.add(revealed, name)
        added.push(name)
      }
      return added
    }))
    if (newly.length > 0) yield* bumpReveals
    if (newly.length === 0) return newly
    const publish = yield* Ref.get(publisher)
    const list = yield* declarationsNow
    yield* publish(list).pipe(
      Effect.catchCause((cause) =>
        Effect.gen(function*() {
          yield* Effect.tx(Effect.forEach(newly, (name) => TxHashSet.remove(revealed, name), { discard: true }))
          yield* bumpReveals
          const failure = Cause.findErrorOption(cause)
          return yield* (failure._tag === "Some"
            ? failure.value
            : new PublishFailed({ message: Cause.pretty(cause) }))
        })
      )
    )
    yield* PubSub.publish(pubsub, { reason: "revealed", names: newly })
    return newly
  })

  const clearRevealed = Effect.gen(function*() {
    const before = Array.from(yield* TxHashSet.toHashSet(revealed))
    yield* Effect.tx(Effect.forEach(before, (name) => TxHashSet.remove(revealed, name), { discard: true }))
    yield* Effect.andThen(bumpReveals, Effect.void)
    if (before.length > 0) yield* emit("unrevealed", before)
  })

  const removeByServer = Effect.fn("ToolRegistry.removeByServer")(function*(serverName: string) {
    const removed = yield* Effect.tx(Effect.gen(function*() {
      const entries = yield* TxHashMap.entries(tools)
      const names = entries.filter(([, tool]) => tool.serverName === serverName).map(([name]) => name)
      for (const name of names) {
        yield* TxHashMap.remove(tools, name)
        yield* TxHashSet.remove(revealed, name)
      }
      return names
    }))
    if (removed.length > 0) yield* Effect.andThen(bumpTools, bumpReveals)
    if (removed.length > 0) yield* emit("removed", removed)
    return removed
  })

  return ToolRegistry.of({
    register,
    registerFactory,
    ensure,
    warmAll,
    names,
    canonicalName,
    tools: allTools,
    declarations: Effect.andThen(warmUndeclared, declarationsNow),
    isDeferredAndHidden,
    hiddenTools,
    deferredView,
    deferredSummary,
    reveal,
    clearRevealed,
    removeByServer,
    setPublisher: (next) => Ref.set(publisher, next),
    changes: Stream.fromPubSub(pubsub),
    subscribe: Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription)
  })
})

/**
 * A stand-in for a tool known only by its declaration: it is listed and searched like the tool, and
 * each call first loads the real tool (the registry's loader runs the factory once).
 */
const declaredTool = (info: ToolInfo, load: Effect.Effect<AnyTool, ToolNotRegistered | ExecutionFailed>): AnyTool => {
  let real: AnyTool | undefined
  const loaded = Effect.map(load, (tool) => (real = tool))
  return {
    ...info,
    params: JsonSchemaParams,
    toAutoClassifierInput: (params) => real?.toAutoClassifierInput(params) ?? "",
    build: (args, context) => Effect.flatMap(loaded, (tool) => tool.build(args, context)),
    call: (params, context) => Effect.flatMap(loaded, (tool) => tool.call(params, context)),
    withName: (name) => declaredTool({ ...info, name }, Effect.map(loaded, (tool) => tool.withName(name)))
  }
}

/** The message for a name nobody registered. @category errors */
export const unknownToolMessage = (name: string): string =>
  `Tool "${name}" not found in registry. Tools must use the exact names that are registered; deferred tools become callable after tool_search reveals them.`

/**
 * A layer with a fresh registry for the given factories.
 *
 * @category layers
 */
export const layer = <R = never>(
  factories: ReadonlyArray<ToolFactory<R>> = [],
  options: RegistryOptions = {}
): Layer.Layer<ToolRegistry, never, R> => Layer.effect(ToolRegistry, make(factories, options))

// A keyed loader: concurrent callers share one in-flight attempt; failures expire at once so a
// later call retries.
const makeLoader = <A, E>(lookup: (name: string) => Effect.Effect<A, E>) =>
  Effect.map(
    Cache.makeWith(lookup, {
      capacity: Number.MAX_SAFE_INTEGER,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    }),
    (cache) => (name: string) => Cache.get(cache, name)
  )
