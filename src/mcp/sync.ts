/**
 * Keeps a session's registry in step with one server's catalog: new tools are registered
 * (deferred), removed ones leave with their reveal marks, changed ones are replaced and stay
 * revealed if they were.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { ToolRegistry } from "../registry/index.js"
import type { McpServerConfig } from "./config.js"
import { type Catalog, type DiscoveredTool, toolSignature } from "./discovery.js"
import { isToolEnabled } from "./filter.js"
import { makeMcpTool, type SchemaValidatorProvider } from "./tool.js"
import type { Upstream } from "./upstream.js"

/** What one server has registered: upstream tool name → registered name and declaration signature. @category models */
export type RegisteredTools = Map<string, { readonly name: string; readonly signature: string; readonly tool: DiscoveredTool }>

/** The outcome of a sync, in registered names. @category models */
export interface SyncOutcome {
  readonly added: ReadonlyArray<string>
  readonly removed: ReadonlyArray<string>
  readonly changed: ReadonlyArray<string>
}

/** What a sync needs. @category models */
export interface SyncContext {
  readonly registry: ToolRegistry["Service"]
  readonly server: McpServerConfig
  readonly upstream: Upstream
  readonly validator: Effect.Effect<SchemaValidatorProvider>
  /** Mutated to what is registered after the sync. */
  readonly registered: RegisteredTools
}

/**
 * Diffs the catalog's enabled tools against what is registered and applies the difference.
 *
 * @category sync
 */
export const syncTools = Effect.fnUntraced(function*(context: SyncContext, catalog: Catalog) {
  const { registry, server, registered } = context
  const desired = new Map<string, { readonly tool: DiscoveredTool; readonly signature: string }>()
  for (const tool of catalog.tools) {
    if (isToolEnabled(tool.name, server.includeTools, server.excludeTools)) desired.set(tool.name, { tool, signature: toolSignature(tool) })
  }
  const removedSources = [...registered.keys()].filter((name) => !desired.has(name))
  const changedSources = [...registered.entries()]
    .filter(([name, entry]) => desired.has(name) && desired.get(name)!.signature !== entry.signature)
    .map(([name]) => name)
  const addedSources = [...desired.keys()].filter((name) => !registered.has(name))

  const register = Effect.fnUntraced(function*(source: string) {
    const { tool, signature } = desired.get(source)!
    const outcome = yield* registry.register(makeMcpTool({ upstream: context.upstream, server, tool, validator: context.validator }))
    if (outcome._tag !== "Disabled") registered.set(source, { name: outcome.name, signature, tool })
    return outcome._tag === "Disabled" ? undefined : outcome.name
  })

  const removed = removedSources.map((source) => registered.get(source)!.name)
  const changed = changedSources.map((source) => registered.get(source)!.name)
  const added: Array<string> = []

  if (removedSources.length === 0 && changedSources.length === 0) {
    for (const source of addedSources) {
      const name = yield* register(source)
      if (name !== undefined) added.push(name)
    }
    return { added, removed, changed } satisfies SyncOutcome
  }

  // The registry removes a server's tools as a whole (with their reveal marks, so a tool that comes
  // back is hidden again); tools that stay are registered again and keep their reveal.
  const keptRevealed: Array<string> = []
  const byName = new Map((yield* registry.tools).map((t) => [t.name, t]))
  for (const [source, entry] of registered) {
    if (!desired.has(source)) continue
    const tool = byName.get(entry.name)
    if (tool && tool.shouldDefer && !tool.alwaysLoad && !(yield* registry.isDeferredAndHidden(entry.name))) keptRevealed.push(source)
  }
  yield* registry.removeByServer(server.name)
  registered.clear()
  for (const source of desired.keys()) {
    const name = yield* register(source)
    if (name !== undefined && addedSources.includes(source)) added.push(name)
  }
  const reveal = keptRevealed.flatMap((source) => {
    const entry = registered.get(source)
    return entry ? [entry.name] : []
  })
  if (reveal.length > 0) {
    yield* registry.reveal(reveal).pipe(
      Effect.catch((e) => Effect.logWarning(`toolwright: MCP server "${server.name}": re-revealing ${reveal.join(", ")} failed: ${e.message}`))
    )
  }
  return { added, removed, changed } satisfies SyncOutcome
})
