/**
 * The tool registry of one session: lazy factories, the disabled set, MCP renaming on a name clash,
 * and on-demand disclosure (which deferred tools have been revealed).
 *
 * The registry is generic: it knows tools, not which tools exist. The declaration list a model sees
 * is non-deferred ∪ alwaysLoad ∪ visible ∪ revealed. Every change to it is one transaction that
 * commits the new state, its version and its change event together (the pure steps are in
 * `state.ts`, the read side in `snapshot.ts`). What a lazy tool acquires lives in a scope of its own
 * (an `RcMap` entry per factory registration) and is released when the tool goes.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as RcMap from "effect/RcMap"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as TxPubSub from "effect/TxPubSub"
import * as TxQueue from "effect/TxQueue"
import * as TxRef from "effect/TxRef"
import { type AnyTool, ExecutionFailed, JsonSchemaParams, type ToolInfo, ToolNotRegistered } from "../tool/index.js"
import { declaredTool, idleTool } from "./lazyTools.js"
import { mcpToolName } from "./toolSearch/mcpNames.js"
import { type Snapshot, type Sorted, sortAll, withReveals } from "./snapshot.js"
import {
  clearRevealedStep,
  initialState,
  namesOfServer,
  registerInitialFactoriesStep,
  registerFactoryStep,
  registerStep,
  type Released,
  removeNamesStep,
  revealStep,
  type Slot,
  type State,
  type Step,
  storeLoadedStep
} from "./state.js"

/**
 * A tool that is loaded on first use: a dynamic `import()` plus a constructor effect. The effect
 * runs in the tool's own `Scope`: what it acquires there (a connection, a child process, with
 * `Effect.acquireRelease`) lives as long as the tool and is released when the tool is disabled,
 * replaced (registered again under its name) or removed, or when the registry's scope (the session)
 * closes. Concurrent first callers share one acquisition; a failed one leaves nothing behind and a
 * later call tries again. A plain effect that needs no scope is a factory too.
 *
 * @category models
 */
export interface ToolFactory<R = never> {
  readonly name: string
  readonly load: Effect.Effect<AnyTool, unknown, R | Scope.Scope>
  /**
   * The tool's declaration, when it is known without loading (built-in tools carry one generated
   * at build time). Declared factories are listed and searched without being loaded; their module is
   * imported on the first call.
   */
  readonly info?: ToolInfo | undefined
  /**
   * Releases the tool's resources once no call has used it for this long (a heavy tool: a language
   * server, a browser); the next call acquires them again. Without it the tool is kept until it is
   * disabled, replaced or removed, or the session closes.
   */
  readonly idleTimeToLive?: Duration.Input | undefined
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
  /**
   * The version of the tool set this change made: every committed change adds one, and the change,
   * its version and the new tool set commit in one transaction (an observer never sees one without
   * the others).
   */
  readonly version: number
}

/** A committed tool set: its version and the declarations a model sees. @category models */
export interface ToolSet {
  readonly version: number
  readonly declarations: ReadonlyArray<ToolInfo>
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
    /** Registers a lazy factory (skipped when its name is disabled); one that replaces a tool releases the old one's resources. */
    readonly registerFactory: (factory: ToolFactory) => Effect.Effect<RegisterOutcome>
    /**
     * Disables tools now: they are removed with their reveal marks, their resources are released,
     * and later registrations of these names are skipped. Returns the names that were registered.
     */
    readonly disable: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
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
    /** The declarations with the version of the tool set they come from (loads pending factories first). */
    readonly toolSet: Effect.Effect<ToolSet>
    /** Deferred, not always loaded, not visible, not revealed. */
    readonly isDeferredAndHidden: (name: string) => Effect.Effect<boolean>
    /** The hidden deferred tools (candidates for `tool_search`), sorted by name; loads pending factories first. */
    readonly hiddenTools: Effect.Effect<ReadonlyArray<AnyTool>>
    /** The deferred tools and which are hidden now, without building the hidden list (loads pending factories first, like `hiddenTools`). */
    readonly deferredView: Effect.Effect<DeferredView>
    /** Summaries of the hidden deferred tools, sorted by name. */
    readonly deferredSummary: Effect.Effect<ReadonlyArray<DeferredSummary>>
    /**
     * Reveals deferred tools: the reveal, the new version and its change event commit in one
     * transaction, then the new list goes to the publisher. A reveal that fails before it commits
     * (interrupted) leaves no trace; a publisher that fails after it fails the call with
     * `PublishFailed`, and the tools stay revealed (they are callable; the host's list is stale until
     * its next notice). Returns the names newly revealed.
     */
    readonly reveal: (names: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>, PublishFailed>
    /** Forgets every reveal (a new conversation). */
    readonly clearRevealed: Effect.Effect<void>
    /** Removes an MCP server's tools and their reveal marks in one transaction (releasing their resources). */
    readonly removeByServer: (serverName: string) => Effect.Effect<ReadonlyArray<string>>
    /** Sets where declaration lists are published (an MCP host, a toolkit). */
    readonly setPublisher: (publisher: Publisher) => Effect.Effect<void>
    /** Every change to the declaration list, in commit order, from the moment the stream starts. */
    readonly changes: Stream.Stream<DeclarationChange>
    /** Subscribes now (no change committed after this returns is missed); the subscription ends with the scope. */
    readonly subscribe: Effect.Effect<Stream.Stream<DeclarationChange>, never, Scope.Scope>
  }
}

/**
 * Builds a registry. Factories run with the services of the context this effect runs in; what they
 * acquire is released at the latest when the scope this effect runs in closes.
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*<R = never>(
  factories: ReadonlyArray<ToolFactory<R>> = [],
  options: RegistryOptions = {}
) {
  const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
  const registryScope = yield* Scope.Scope
  const visible: ReadonlySet<string> = new Set(options.visible ?? [])
  const qualify = options.qualifyMcpName ?? mcpToolName
  const stateRef = yield* TxRef.make<State>(initialState(options.disabled ?? []))
  // The committed state, read outside a transaction: the whole state is this one reference, whose
  // value a commit replaces in one synchronous step, so a plain read is always one committed state
  // (and costs a field read; `TxRef.get` opens a transaction, ~10 µs on every call's `ensure`).
  const committed: Effect.Effect<State> = Effect.sync(() => stateRef.value)

  const events = yield* TxPubSub.unbounded<DeclarationChange>()
  const publisher = yield* Ref.make<Publisher>(() => Effect.void)

  // Each registered factory's resources live in their own scope, keyed by slot: concurrent first
  // callers share one acquisition. A kept tool's entry is held by its pin (released at once when the
  // pin closes); an idle tool's entry is held by the calls using it, and released after its idle time.
  const resources = yield* RcMap.make({
    lookup: (id: number) =>
      Effect.gen(function*() {
        const slot = HashMap.get((yield* committed).slots, id)
        if (slot._tag === "None") {
          return yield* new ToolNotRegistered({ message: "The tool was removed while it loaded; list the tools again and call one that is registered." })
        }
        const { factory, name } = slot.value
        const tool = yield* factory.load.pipe(
          Effect.catchCause((cause) =>
            Effect.fail(new ExecutionFailed({ message: `Tool "${name}" could not be loaded: ${Cause.pretty(cause)}` }))
          )
        )
        return tool.name === name ? tool : tool.withName(name)
      }),
    // Called synchronously when an entry is created; a slot's option never changes, so the
    // committed value is the one to read.
    idleTimeToLive: (id: number) => {
      const slot = HashMap.get(stateRef.value.slots, id)
      return slot._tag === "Some" ? slot.value.factory.idleTimeToLive ?? Duration.zero : Duration.zero
    }
  })

  const release = (released: ReadonlyArray<Released> | undefined) =>
    released === undefined || released.length === 0 ? Effect.void : Effect.forEach(released, ({ id, pin }) =>
      Effect.andThen(
        RcMap.invalidate(resources, id),
        pin === undefined ? Effect.void : Scope.close(pin, Exit.void)
      ), { discard: true })

  /** Commits one step with its version and event, then releases what it removed. */
  const commit = <A>(step: (state: State) => Step<A>): Effect.Effect<A> =>
    Effect.uninterruptible(
      Effect.tx(Effect.gen(function*() {
        const state = yield* TxRef.get(stateRef)
        const outcome = step(state)
        if (outcome.next !== undefined) {
          if (outcome.change === undefined) {
            yield* TxRef.set(stateRef, outcome.next)
          } else {
            const version = state.version + 1
            yield* TxRef.set(stateRef, { ...outcome.next, version })
            yield* TxPubSub.publish(events, { ...outcome.change, version })
          }
        }
        return outcome
      })).pipe(Effect.flatMap((outcome) => Effect.as(release(outcome.released), outcome.result)))
    )

  // Readers get one snapshot per committed tool set: sorting happens once per set of tools, and a
  // reveal only re-filters. The memos cache pure functions of committed values.
  let sortedMemo: { readonly tools: State["tools"]; readonly sorted: Sorted } | undefined
  let snapshotMemo: { readonly tools: State["tools"]; readonly revealed: State["revealed"]; readonly snapshot: Snapshot } | undefined
  const snapshotOf = (state: State): Snapshot => {
    if (snapshotMemo !== undefined && snapshotMemo.tools === state.tools && snapshotMemo.revealed === state.revealed && snapshotMemo.snapshot.version === state.version) {
      return snapshotMemo.snapshot
    }
    const sorted = sortedMemo !== undefined && sortedMemo.tools === state.tools ? sortedMemo.sorted : sortAll(HashMap.values(state.tools), visible)
    sortedMemo = { tools: state.tools, sorted }
    const snapshot = withReveals(sorted, state.revealed, state.version)
    snapshotMemo = { tools: state.tools, revealed: state.revealed, snapshot }
    return snapshot
  }
  const snapshot: Effect.Effect<Snapshot> = Effect.map(committed, snapshotOf)
  const declarationsNow = Effect.map(snapshot, (s) => s.declarations)

  const register = Effect.fn("ToolRegistry.register")(function*(tool: AnyTool) {
    const outcome = yield* commit(registerStep(tool, qualify))
    if (outcome._tag === "Replaced") {
      yield* Effect.logWarning(`toolwright: tool "${tool.name}" registered twice; the later one replaces the earlier`)
    }
    return outcome
  })

  /** The stand-in listed for a slot before (declared) or instead of (idle) its loaded tool. */
  const standIn = (slot: Slot): AnyTool | undefined => {
    const info = slot.factory.info
    if (info === undefined) return undefined
    return slot.factory.idleTimeToLive === undefined
      ? declaredTool({ ...info, name: slot.name }, ensure(slot.name))
      : idleTool({ ...info, name: slot.name }, JsonSchemaParams, acquire(slot))
  }

  const registerFactory = Effect.fn("ToolRegistry.registerFactory")(function*(factory: ToolFactory) {
    return yield* commit(registerFactoryStep(factory, standIn))
  })

  // The initial factories commit as one change (one version, one event), not one per factory: a
  // session starts with a registry of every built-in, and sessions start often.
  const initial = factories.map((factory): ToolFactory => ({
    ...factory,
    load: Effect.gen(function*() {
      const scope = yield* Scope.Scope
      return yield* Effect.provideContext(factory.load, Context.add(context, Scope.Scope, scope) as Context.Context<R | Scope.Scope>)
    })
  }))
  if (initial.length > 0) yield* commit(registerInitialFactoriesStep(initial, standIn))

  /** A reference to a slot's tool for the enclosing scope; a failed acquisition is dropped, so a later call retries. */
  function acquire(slot: Slot): Effect.Effect<AnyTool, ToolNotRegistered | ExecutionFailed, Scope.Scope> {
    return RcMap.get(resources, slot.id).pipe(Effect.tapError(() => RcMap.invalidate(resources, slot.id)))
  }

  /** Stores a loaded tool if its slot is still the current one; `undefined` when it was replaced meanwhile. */
  const storeLoaded = (slot: Slot, tool: AnyTool, pin: Scope.Closeable | undefined) => commit(storeLoadedStep(slot, tool, pin))

  /** Loads a kept tool: the registry pins its resources until the tool goes. */
  const loadKept = (slot: Slot) =>
    Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        const pin = yield* Scope.fork(registryScope)
        const exit = yield* Effect.exit(restore(Scope.provide(RcMap.get(resources, slot.id), pin)))
        if (Exit.isFailure(exit)) {
          // The pin was the entry's only holder on this path: closing it drops the failed entry.
          yield* Scope.close(pin, Exit.void)
          return yield* Effect.failCause(exit.cause)
        }
        const stored = yield* storeLoaded(slot, exit.value, pin)
        if (!stored.pinKept) yield* Scope.close(pin, Exit.void)
        return stored.tool
      })
    )

  /** Loads an undeclared idle tool once to learn its declaration, and lists its stand-in. */
  const loadIdle = (slot: Slot) =>
    Effect.gen(function*() {
      const tool = yield* Effect.scoped(acquire(slot))
      return (yield* storeLoaded(slot, idleTool(tool, tool.params, acquire(slot)), undefined)).tool
    })

  function ensure(name: string): Effect.Effect<AnyTool, ToolNotRegistered | ExecutionFailed> {
    return Effect.gen(function*() {
      const state = yield* committed
      const slot = HashMap.get(state.factories, name)
      const listed = HashMap.get(state.tools, name)
      if (slot._tag === "None") {
        if (listed._tag === "Some") return listed.value
        return yield* new ToolNotRegistered({ message: unknownToolMessage(name) })
      }
      const idle = slot.value.factory.idleTimeToLive !== undefined
      if (listed._tag === "Some" && (idle || HashMap.has(state.pins, slot.value.id))) return listed.value
      const loaded = yield* (idle ? loadIdle(slot.value) : loadKept(slot.value))
      // Replaced while it loaded: the new factory is the one to load.
      return loaded ?? (yield* ensure(name))
    })
  }

  /** Loads the pending factories that match `which` (all, or only those without a declaration). */
  const warm = (which: "all" | "undeclared") =>
    Effect.gen(function*() {
      const state = yield* committed
      if (which === "undeclared" && HashSet.size(state.undeclared) === 0) return { loaded: 0, failed: [] as ReadonlyArray<string> }
      const names = which === "undeclared"
        ? Array.from(state.undeclared)
        : Array.from(HashMap.values(state.factories))
          .filter((slot) => HashSet.has(state.undeclared, slot.name) || (slot.factory.idleTimeToLive === undefined && !HashMap.has(state.pins, slot.id)))
          .map((slot) => slot.name)
      if (names.length === 0) return { loaded: 0, failed: [] as ReadonlyArray<string> }
      const results = yield* Effect.forEach(names, (name) => Effect.exit(ensure(name)), { concurrency: "unbounded" })
      const failed = names.filter((_, i) => Exit.isFailure(results[i]!))
      for (const name of failed) yield* Effect.logWarning(`toolwright: tool "${name}" failed to load`)
      return { loaded: names.length - failed.length, failed }
    }).pipe(Effect.withSpan("ToolRegistry.warmAll"))
  const warmAll = warm("all")
  const warmUndeclared = warm("undeclared")

  const names = Effect.map(committed, (state) => {
    const listed = snapshotOf(state).byName.map((t) => t.name)
    return HashSet.size(state.undeclared) === 0 ? listed : [...listed, ...state.undeclared].sort()
  })

  const canonicalName = (requested: string) =>
    Effect.map(committed, (state) => {
      const snap = snapshotOf(state)
      const lower = requested.toLowerCase()
      const loaded = snap.byNameMap.has(requested) ? requested : snap.byLowerName().get(lower)
      if (loaded !== undefined) return loaded
      for (const name of state.undeclared) if (name.toLowerCase() === lower) return name
      return undefined
    })

  const allTools = Effect.map(snapshot, (s) => s.byDisplayName())

  const isDeferredAndHidden = (name: string) => Effect.map(snapshot, (s) => s.isHidden(name))

  /** A view of the snapshot after loading the undeclared factories (one read when there are none, the usual case). */
  const loadedView = <A>(view: (snapshot: Snapshot) => A): Effect.Effect<A> =>
    Effect.flatMap(committed, (state) =>
      HashSet.size(state.undeclared) === 0
        ? Effect.succeed(view(snapshotOf(state)))
        : Effect.andThen(warmUndeclared, Effect.map(snapshot, view)))

  const hiddenTools = loadedView((s) => s.hiddenList)

  const deferredView = loadedView((s): DeferredView => ({ deferred: s.deferred, isHidden: s.isHidden }))

  const deferredSummary = Effect.map(hiddenTools, (hidden) =>
    hidden.map((tool): DeferredSummary => ({
      name: tool.name,
      description: tool.description,
      ...(tool.serverName ? { serverName: tool.serverName } : {})
    })))

  const reveal = Effect.fn("ToolRegistry.reveal")(function*(requested: ReadonlyArray<string>) {
    const newly = yield* commit(revealStep(requested, visible))
    if (newly.length === 0) return newly
    const publish = yield* Ref.get(publisher)
    yield* Effect.flatMap(declarationsNow, publish).pipe(
      Effect.catchCause((cause) => {
        const failure = Cause.findErrorOption(cause)
        return failure._tag === "Some" ? Effect.fail(failure.value) : Effect.fail(new PublishFailed({ message: Cause.pretty(cause) }))
      })
    )
    return newly
  })

  const clearRevealed = commit(clearRevealedStep)

  const disable = Effect.fn("ToolRegistry.disable")(function*(requested: ReadonlyArray<string>) {
    return yield* commit(removeNamesStep(requested, true))
  })

  const removeByServer = Effect.fn("ToolRegistry.removeByServer")(function*(serverName: string) {
    return yield* commit((state) => removeNamesStep(namesOfServer(state, serverName), false)(state))
  })

  const subscribe = Effect.map(
    TxPubSub.subscribe(events),
    (queue) => Stream.fromEffectRepeat(TxQueue.takeAll(queue)).pipe(Stream.flattenArray)
  )

  return ToolRegistry.of({
    register,
    registerFactory,
    disable,
    ensure,
    warmAll,
    names,
    canonicalName,
    tools: allTools,
    declarations: loadedView((s) => s.declarations),
    toolSet: loadedView((s): ToolSet => ({ version: s.version, declarations: s.declarations })),
    isDeferredAndHidden,
    hiddenTools,
    deferredView,
    deferredSummary,
    reveal,
    clearRevealed,
    removeByServer,
    setPublisher: (next) => Ref.set(publisher, next),
    changes: Stream.unwrap(subscribe),
    subscribe
  })
})

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
