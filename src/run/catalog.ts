/**
 * The catalog of built-in tools: each is its declaration (a small module beside the tool, imported
 * now) and a constructor that imports the tool's module on first use and builds it with the
 * session's services. Listing a built-in imports no tool module. `tool_search` is not here: it needs
 * the registry itself, so the session registers it right after the registry is built.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
// floors: start-up — the catalog imports each declaration module alone; a room's index.ts would load its tools
import { editDeclaration } from "../files/edit.decl.js" // floors: start-up
import { notebookEditDeclaration } from "../files/notebookEdit.decl.js" // floors: start-up
import { readFileDeclaration } from "../files/readFile.decl.js" // floors: start-up
import { writeFileDeclaration } from "../files/writeFile.decl.js" // floors: start-up
import type { ResolveServer } from "../mcp/index.js"
import type { OutputStore } from "../output/index.js"
import { askUserQuestionDeclaration } from "../plan/askUserQuestion.decl.js" // floors: start-up
import { taskCreateDeclaration } from "../plan/taskCreate.decl.js" // floors: start-up
import { taskListDeclaration } from "../plan/taskList.decl.js" // floors: start-up
import { taskUpdateDeclaration } from "../plan/taskUpdate.decl.js" // floors: start-up
import { todoWriteDeclaration } from "../plan/todoWrite.decl.js" // floors: start-up
import type { ToolFactory } from "../registry/index.js"
import { globDeclaration } from "../search/tools/glob.decl.js" // floors: start-up
import { grepSearchDeclaration } from "../search/tools/grepSearch.decl.js" // floors: start-up
import { listDirectoryDeclaration } from "../search/tools/listDirectory.decl.js" // floors: start-up
import type { FileReadCache, Session, Workspace } from "../session/index.js"
import { sendMessageDeclaration } from "../shell/background/sendMessage.decl.js" // floors: start-up
import { taskStopDeclaration } from "../shell/background/taskStop.decl.js" // floors: start-up
import { runShellCommandDeclaration } from "../shell/command/runShellCommand.decl.js" // floors: start-up
import type { ShellServices } from "../shell/index.js"
import type { AnyTool, ToolDeclaration, ToolParams } from "../tool/index.js"

/** The services a built-in tool's constructor may use. @category models */
export type SessionServices =
  | Session
  | Workspace
  | FileReadCache
  | OutputStore
  | FileSystem.FileSystem
  | Path.Path
  | ShellServices

/** A built-in tool: how it is declared, and how a session builds it on its first call. @category models */
export interface BuiltinTool<Name extends string = string, P extends ToolParams = ToolParams> {
  readonly declaration: ToolDeclaration<Name, P>
  readonly make: Effect.Effect<AnyTool, unknown, SessionServices>
}

const builtin = <const Name extends string, P extends ToolParams, M>(
  declaration: ToolDeclaration<Name, P>,
  importModule: () => Promise<M>,
  construct: (module: M) => Effect.Effect<AnyTool, unknown, SessionServices>
): BuiltinTool<Name, P> => ({ declaration, make: Effect.flatMap(Effect.promise(importModule), construct) })

/** Every built-in tool, in catalog order. @category constants */
export const builtinCatalog = [
  // files: read, edit, write, notebook cells
  builtin(readFileDeclaration, () => import("../files/readFile.js"), (m) => m.makeReadFile),
  builtin(editDeclaration, () => import("../files/edit.js"), (m) => m.makeEdit),
  builtin(writeFileDeclaration, () => import("../files/writeFile.js"), (m) => m.makeWriteFile),
  builtin(notebookEditDeclaration, () => import("../files/notebookEdit.js"), (m) => m.makeNotebookEdit),
  // search: file contents (four grep backends), file names, one directory
  builtin(grepSearchDeclaration, () => import("../search/tools/grepSearchTool.js"), (m) => m.makeGrepSearch),
  builtin(globDeclaration, () => import("../search/tools/globTool.js"), (m) => m.makeGlob),
  builtin(listDirectoryDeclaration, () => import("../search/tools/listDirectoryTool.js"), (m) => m.makeListDirectory),
  // plan: todo list, task board, questions to the user
  builtin(todoWriteDeclaration, () => import("../plan/todoWrite.js"), (m) => m.makeTodoWrite),
  builtin(taskCreateDeclaration, () => import("../plan/taskCreate.js"), (m) => m.makeTaskCreate),
  builtin(taskUpdateDeclaration, () => import("../plan/taskUpdate.js"), (m) => m.makeTaskUpdate),
  builtin(taskListDeclaration, () => import("../plan/taskList.js"), (m) => m.makeTaskList),
  builtin(askUserQuestionDeclaration, () => import("../plan/askUserQuestion.js"), (m) => m.makeAskUserQuestion),
  // shell: commands (PTY, background shells, simulated sed -i), stopping and talking to background shells
  builtin(runShellCommandDeclaration, () => import("../shell/command/runShellCommand.js"), (m) => m.makeRunShellCommand),
  builtin(taskStopDeclaration, () => import("../shell/background/taskStop.js"), (m) => m.makeTaskStop),
  builtin(sendMessageDeclaration, () => import("../shell/background/sendMessage.js"), (m) => m.makeSendMessage)
] as const

/** The name of a built-in tool. @category models */
export type BuiltinToolName = typeof builtinCatalog[number]["declaration"]["name"]

/** Each built-in's declaration type, by name (its params typed). @category models */
export type BuiltinDeclarations = {
  readonly [T in typeof builtinCatalog[number] as T["declaration"]["name"]]: T["declaration"]
}

/**
 * A built-in as a registry factory: declared (listed and searched without loading), its module
 * imported on the first call. The declaration's JSON Schema is derived when the registry first reads it.
 *
 * @category constructors
 */
export const builtinFactory = (tool: BuiltinTool): ToolFactory<SessionServices> => ({
  name: tool.declaration.name,
  load: tool.make,
  get info() {
    return tool.declaration.info
  }
})

/** Every built-in tool factory (the catalog, without replacements). @category constants */
export const builtinFactories: ReadonlyArray<ToolFactory<SessionServices>> = builtinCatalog.map(builtinFactory)

/** `read_mcp_resource` over a session's MCP servers (registered only when servers are configured). @category constructors */
export const readMcpResourceFactory = (resolve: ResolveServer): ToolFactory => ({
  name: "read_mcp_resource",
  load: Effect.map(Effect.promise(() => import("../mcp/readMcpResource.js")), (m) => m.makeReadMcpResource(resolve))
})
