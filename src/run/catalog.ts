/**
 * The catalog of built-in tools, as lazy factories: each is a dynamic `import()` plus a constructor
 * effect that receives the session's services. `tool_search` is not here: it needs the registry
 * itself, so the session registers it right after the registry is built.
 *
 * @since 0.1.0
 */
import type { FileSystem, Path } from "effect"
import type { ToolFactory } from "../registry/registry.js"
import type { OutputStore } from "../output/store.js"
import type { FileReadCache } from "../session/readCache.js"
import type { Session } from "../session/session.js"
import type { Workspace } from "../session/workspace.js"

/** The services a built-in tool's constructor may use. @category models */
export type SessionServices = Session | Workspace | FileReadCache | OutputStore | FileSystem.FileSystem | Path.Path

/** Every built-in tool factory. @category constants */
export const builtinFactories: ReadonlyArray<ToolFactory<SessionServices>> = []
