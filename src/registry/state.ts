/**
 * The registry's state and the pure steps that change it. Each step maps one committed state to
 * the next (with the change it publishes and the resources it releases); the registry commits it
 * in one transaction with the new version and the change event, and may run it again on a
 * conflict, so a step does no I/O.
 *
 * @since 0.1.0
 */
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import type * as Scope from "effect/Scope"
import type { AnyTool } from "../tool/index.js"
import type { DeclarationChange, RegisterOutcome, ToolFactory } from "./registry.js"
import { isVisible } from "./snapshot.js"

/** A registered factory; `id` tells registrations apart (a factory registered again is a new one). @category models */
export interface Slot {
  readonly id: number
  readonly name: string
  readonly factory: ToolFactory
}

/**
 * Everything the registry holds, in one transactional reference: readers and subscribers only
 * ever see committed states, each exactly once.
 *
 * @category models
 */
export interface State {
  /** +1 with every change to the declaration list (each published as one event). */
  readonly version: number
  readonly tools: HashMap.HashMap<string, AnyTool>
  /** The current factory of each lazily loaded name (kept after loading: an idle tool is acquired again). */
  readonly factories: HashMap.HashMap<string, Slot>
  readonly slots: HashMap.HashMap<number, Slot>
  /** Undeclared factories not loaded yet (listing loads them first). */
  readonly undeclared: HashSet.HashSet<string>
  /** The registry's hold on each loaded tool's resources, by slot id (closed when the tool goes). */
  readonly pins: HashMap.HashMap<number, Scope.Closeable>
  readonly revealed: HashSet.HashSet<string>
  readonly disabled: HashSet.HashSet<string>
  readonly nextId: number
}

/** A slot removed by a step: its resources are released once the step has committed. @category models */
export interface Released {
  readonly id: number
  readonly pin: Scope.Closeable | undefined
}

/** What one step returns: its result, the next state (none: unchanged), the change it publishes, what it releases. @category models */
export interface Step<A> {
  readonly result: A
  readonly next?: State | undefined
  readonly change?: Omit<DeclarationChange, "version"> | undefined
  readonly released?: ReadonlyArray<Released> | undefined
}

/** An empty registry. @category constructors */
export const initialState = (disabled: Iterable<string>): State => ({
  version: 0,
  tools: HashMap.empty(),
  factories: HashMap.empty(),
  slots: HashMap.empty(),
  undeclared: HashSet.empty(),
  pins: HashMap.empty(),
  revealed: HashSet.empty(),
  disabled: HashSet.fromIterable(disabled),
  nextId: 0
})

/** Removes the factory registered under `name`, if any. */
const dropSlot = (state: State, name: string, released: Array<Released>): State => {
  const slot = HashMap.get(state.factories, name)
  if (slot._tag === "None") return state
  const id = slot.value.id
  const pin = HashMap.get(state.pins, id)
  released.push({ id, pin: pin._tag === "Some" ? pin.value : undefined })
  return {
    ...state,
    factories: HashMap.remove(state.factories, name),
    slots: HashMap.remove(state.slots, id),
    pins: HashMap.remove(state.pins, id),
    undeclared: HashSet.remove(state.undeclared, name)
  }
}

/** Registers a loaded tool; an MCP tool whose name is taken gets its qualified name. @category steps */
export const registerStep = (tool: AnyTool, qualify: (serverName: string, toolName: string) => string) =>
(state: State): Step<RegisterOutcome> => {
  if (HashSet.has(state.disabled, tool.name)) return { result: { _tag: "Disabled", name: tool.name } }
  let outcome: RegisterOutcome = { _tag: "Registered", name: tool.name }
  let final = tool
  if (HashMap.has(state.tools, tool.name) || HashMap.has(state.factories, tool.name)) {
    if (tool.serverName !== undefined) {
      const qualified = qualify(tool.serverName, tool.name)
      // The disabled set is checked again: a user may disable the qualified name.
      if (HashSet.has(state.disabled, qualified)) return { result: { _tag: "Disabled", name: qualified } }
      final = tool.withName(qualified)
      outcome = { _tag: "Renamed", from: tool.name, name: qualified }
    } else {
      outcome = { _tag: "Replaced", name: tool.name }
    }
  }
  // A factory under this name is replaced: its resources go.
  const released: Array<Released> = []
  const next = dropSlot(state, final.name, released)
  return {
    result: outcome,
    next: { ...next, tools: HashMap.set(next.tools, final.name, final) },
    change: { reason: "registered", names: [final.name] },
    released
  }
}

/**
 * Registers a factory as a new slot, listed through its stand-in when it has a declaration; a
 * factory or tool under the name is replaced (and its resources released).
 *
 * @category steps
 */
export const registerFactoryStep = (factory: ToolFactory, standIn: (slot: Slot) => AnyTool | undefined) =>
(state: State): Step<RegisterOutcome> => {
  const name = factory.name
  if (HashSet.has(state.disabled, name)) return { result: { _tag: "Disabled", name } }
  const wasListed = HashMap.has(state.tools, name)
  const replaced = wasListed || HashMap.has(state.factories, name)
  const released: Array<Released> = []
  const dropped = dropSlot(state, name, released)
  const slot: Slot = { id: state.nextId, name, factory }
  const listed = standIn(slot)
  return {
    result: replaced ? { _tag: "Replaced", name } : { _tag: "Registered", name },
    next: {
      ...dropped,
      nextId: state.nextId + 1,
      factories: HashMap.set(dropped.factories, name, slot),
      slots: HashMap.set(dropped.slots, slot.id, slot),
      tools: listed === undefined ? HashMap.remove(dropped.tools, name) : HashMap.set(dropped.tools, name, listed),
      undeclared: listed === undefined ? HashSet.add(dropped.undeclared, name) : dropped.undeclared
    },
    change: listed !== undefined
      ? { reason: "registered", names: [name] }
      : wasListed
      ? { reason: "removed", names: [name] }
      : undefined,
    released
  }
}

/**
 * Registers a new registry's factories as one change: one transaction, one version and one event
 * naming every tool listed, instead of one of each per factory. From an empty state (the registry
 * just made: nobody can have seen a tool yet) the result is that of {@link registerFactoryStep} for
 * each in turn; a name given twice ends as its later factory.
 *
 * @category steps
 */
export const registerInitialFactoriesStep = (factories: ReadonlyArray<ToolFactory>, standIn: (slot: Slot) => AnyTool | undefined) =>
(state: State): Step<ReadonlyArray<RegisterOutcome>> => {
  const results: Array<RegisterOutcome> = []
  const released: Array<Released> = []
  let next = state
  for (const factory of factories) {
    const step = registerFactoryStep(factory, standIn)(next)
    results.push(step.result)
    if (step.next !== undefined) next = step.next
    if (step.released !== undefined) released.push(...step.released)
  }
  const listed = [...new Set(factories.map((factory) => factory.name))].filter((name) => HashMap.has(next.tools, name))
  return {
    result: results,
    next: next === state ? undefined : next,
    change: listed.length > 0 ? { reason: "registered", names: listed } : undefined,
    released
  }
}

/**
 * Stores a loaded tool (with the pin that keeps its resources, for a kept tool) if its slot is still
 * the current one. The result's tool is `undefined` when the slot was replaced meanwhile, and the
 * one already stored when another caller stored it first (then this caller's pin is not kept).
 *
 * @category steps
 */
export const storeLoadedStep = (slot: Slot, tool: AnyTool, pin: Scope.Closeable | undefined) =>
(state: State): Step<{ readonly tool: AnyTool | undefined; readonly pinKept: boolean }> => {
  const current = HashMap.get(state.factories, slot.name)
  if (current._tag === "None" || current.value.id !== slot.id) return { result: { tool: undefined, pinKept: false } }
  const existing = HashMap.get(state.tools, slot.name)
  const loaded = pin === undefined ? !HashSet.has(state.undeclared, slot.name) : HashMap.has(state.pins, slot.id)
  if (loaded && existing._tag === "Some") return { result: { tool: existing.value, pinKept: false } }
  return {
    result: { tool, pinKept: pin !== undefined },
    next: {
      ...state,
      tools: HashMap.set(state.tools, slot.name, tool),
      pins: pin === undefined ? state.pins : HashMap.set(state.pins, slot.id, pin),
      undeclared: HashSet.remove(state.undeclared, slot.name)
    },
    change: existing._tag === "None" ? { reason: "registered", names: [slot.name] } : undefined
  }
}

/** Reveals the deferred, hidden tools among `requested`; the result is the names newly revealed. @category steps */
export const revealStep = (requested: ReadonlyArray<string>, visible: ReadonlySet<string>) =>
(state: State): Step<ReadonlyArray<string>> => {
  let revealed = state.revealed
  const added: Array<string> = []
  for (const name of requested) {
    const tool = HashMap.get(state.tools, name)
    if (tool._tag === "None" || HashSet.has(revealed, name) || isVisible(tool.value, false, visible)) continue
    revealed = HashSet.add(revealed, name)
    added.push(name)
  }
  if (added.length === 0) return { result: added }
  return { result: added, next: { ...state, revealed }, change: { reason: "revealed", names: added } }
}

/** Forgets every reveal. @category steps */
export const clearRevealedStep = (state: State): Step<void> =>
  HashSet.size(state.revealed) === 0
    ? { result: undefined }
    : { result: undefined, next: { ...state, revealed: HashSet.empty() }, change: { reason: "unrevealed", names: Array.from(state.revealed) } }

/** Removes tools with their factories and reveal marks (disabling the names first when asked); the result is the names removed. @category steps */
export const removeNamesStep = (names: Iterable<string>, disable: boolean) => (state: State): Step<ReadonlyArray<string>> => {
  const released: Array<Released> = []
  const removed: Array<string> = []
  let next = state
  for (const name of names) {
    if (disable) next = { ...next, disabled: HashSet.add(next.disabled, name) }
    if (!HashMap.has(next.tools, name) && !HashMap.has(next.factories, name)) continue
    removed.push(name)
    const dropped = dropSlot(next, name, released)
    next = { ...dropped, tools: HashMap.remove(dropped.tools, name), revealed: HashSet.remove(dropped.revealed, name) }
  }
  return {
    result: removed,
    next: next === state ? undefined : next,
    change: removed.length > 0 ? { reason: "removed", names: removed } : undefined,
    released
  }
}

/** The registered names of one MCP server's tools. @category accessors */
export const namesOfServer = (state: State, serverName: string): Array<string> => {
  const names: Array<string> = []
  for (const [name, tool] of state.tools) if (tool.serverName === serverName) names.push(name)
  return names
}
