/**
 * The catalog of built-in tools: each is its listing (from the build's declaration file, else from
 * its declaration module, a small module beside the tool), its declaration (imported on demand) and a constructor that imports the tool's module on first use and builds it with the
 * session's services. Listing a built-in imports no tool module. `tool_search` is not here: it needs
 * the registry itself, so the session registers it right after the registry is built.
 *
 * @since 0.1.0
 */
import { existsSync, readFileSync } from "node:fs"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
// floors: start-up — the catalog imports each declaration module alone, on demand (types only here); a room's index.ts would load its tools
import type { editDeclaration } from "../files/edit.decl.js" // floors: start-up
import type { notebookEditDeclaration } from "../files/notebookEdit.decl.js" // floors: start-up
import type { readFileDeclaration } from "../files/readFile.decl.js" // floors: start-up
import type { writeFileDeclaration } from "../files/writeFile.decl.js" // floors: start-up
import type { ResolveServer } from "../mcp/index.js"
import type { OutputStore } from "../output/index.js"
import type { askUserQuestionDeclaration } from "../plan/askUserQuestion.decl.js" // floors: start-up
import type { taskCreateDeclaration } from "../plan/taskCreate.decl.js" // floors: start-up
import type { taskListDeclaration } from "../plan/taskList.decl.js" // floors: start-up
import type { taskUpdateDeclaration } from "../plan/taskUpdate.decl.js" // floors: start-up
import type { todoWriteDeclaration } from "../plan/todoWrite.decl.js" // floors: start-up
import type { ToolFactory } from "../registry/index.js"
import type { globDeclaration } from "../search/tools/glob.decl.js" // floors: start-up
import type { grepSearchDeclaration } from "../search/tools/grepSearch.decl.js" // floors: start-up
import type { listDirectoryDeclaration } from "../search/tools/listDirectory.decl.js" // floors: start-up
import type { FileReadCache, Session, Workspace } from "../session/index.js"
import type { sendMessageDeclaration } from "../shell/background/sendMessage.decl.js" // floors: start-up
import type { taskStopDeclaration } from "../shell/background/taskStop.decl.js" // floors: start-up
import type { runShellCommandDeclaration } from "../shell/command/runShellCommand.decl.js" // floors: start-up
import type { ShellServices } from "../shell/index.js"
import { type AnyTool, infoOf, type ToolDeclaration, type ToolInfo, type ToolParams } from "../tool/index.js"
import type { HtmlConverter } from "../web/converter.js" // floors: start-up
import type { webFetchDeclaration } from "../web/webFetch.decl.js" // floors: start-up

/** The services a built-in tool's constructor may use. @category models */
export type SessionServices =
  | Session
  | Workspace
  | FileReadCache
  | OutputStore
  | FileSystem.FileSystem
  | Path.Path
  | ShellServices
  | HtmlConverter

/** A built-in tool: how it is listed, its declaration, and how a session builds it on its first call. @category models */
export interface BuiltinTool<Name extends string = string, P extends ToolParams = ToolParams> {
  readonly name: Name
  /** The tool as the registry lists it (from the build's declaration file, else its declaration module). */
  readonly info: ToolInfo
  /** The typed declaration: its module is imported on first use. */
  readonly declaration: Effect.Effect<ToolDeclaration<Name, P>>
  readonly make: Effect.Effect<AnyTool, unknown, SessionServices>
}

/**
 * Every built-in's `ToolInfo`, written by the build (scripts/copy-tool-descriptions.mjs) beside the
 * compiled catalog and into dist/bundle/. Listing from it imports no declaration module (start-up
 * pays neither their imports nor the params' JSON Schema derivation). Absent when running from
 * src/ (tests): then the declaration modules are imported below. The build empties dist/ first, so
 * the file is never older than the modules. `Infinity` (a tool that sizes its own output) is
 * written as the string "Infinity": JSON has no such number.
 */
const declarationsFile = new URL("./builtinDeclarations.json", import.meta.url)

/** Reads the build's declaration file into infos by name (undefined when there is none). @category constructors */
export const readBuiltinDeclarations = (file: URL = declarationsFile): ReadonlyMap<string, ToolInfo> | undefined => {
  if (!existsSync(file)) return undefined
  const infos: ReadonlyArray<ToolInfo> = JSON.parse(
    readFileSync(file, "utf8"),
    (key, value) => key === "maxOutputChars" && value === "Infinity" ? Infinity : value
  )
  // infoOf puts back the fields JSON leaves out when undefined.
  return new Map(infos.map((info) => [info.name, infoOf(info)]))
}

/** The declaration file's text for these infos (the inverse of {@link readBuiltinDeclarations}). @category constructors */
export const writeBuiltinDeclarations = (infos: ReadonlyArray<ToolInfo>): string =>
  JSON.stringify(infos, (key, value) => key === "maxOutputChars" && value === Infinity ? "Infinity" : value, 2) + "\n"

interface CatalogEntry<Name extends string, P extends ToolParams> {
  readonly name: Name
  readonly importDeclaration: () => Promise<ToolDeclaration<Name, P>>
  readonly make: Effect.Effect<AnyTool, unknown, SessionServices>
}

const entry = <const Name extends string, P extends ToolParams, M>(
  name: Name,
  importDeclaration: () => Promise<ToolDeclaration<Name, P>>,
  importModule: () => Promise<M>,
  construct: (module: M) => Effect.Effect<AnyTool, unknown, SessionServices>
): CatalogEntry<Name, P> => ({ name, importDeclaration, make: Effect.flatMap(Effect.promise(importModule), construct) })

const entries = [
  // files: read, edit, write, notebook cells
  entry(
    "read_file",
    (): Promise<typeof readFileDeclaration> => import("../files/readFile.decl.js").then((m) => m.readFileDeclaration),
    () => import("../files/readFile.js"),
    (m) => m.makeReadFile
  ),
  entry(
    "edit",
    (): Promise<typeof editDeclaration> => import("../files/edit.decl.js").then((m) => m.editDeclaration),
    () => import("../files/edit.js"),
    (m) => m.makeEdit
  ),
  entry(
    "write_file",
    (): Promise<typeof writeFileDeclaration> => import("../files/writeFile.decl.js").then((m) => m.writeFileDeclaration),
    () => import("../files/writeFile.js"),
    (m) => m.makeWriteFile
  ),
  entry(
    "notebook_edit",
    (): Promise<typeof notebookEditDeclaration> =>
      import("../files/notebookEdit.decl.js").then((m) => m.notebookEditDeclaration),
    () => import("../files/notebookEdit.js"),
    (m) => m.makeNotebookEdit
  ),
  // search: file contents (four grep backends), file names, one directory
  entry(
    "grep_search",
    (): Promise<typeof grepSearchDeclaration> =>
      import("../search/tools/grepSearch.decl.js").then((m) => m.grepSearchDeclaration),
    () => import("../search/tools/grepSearchTool.js"),
    (m) => m.makeGrepSearch
  ),
  entry(
    "glob",
    (): Promise<typeof globDeclaration> => import("../search/tools/glob.decl.js").then((m) => m.globDeclaration),
    () => import("../search/tools/globTool.js"),
    (m) => m.makeGlob
  ),
  entry(
    "list_directory",
    (): Promise<typeof listDirectoryDeclaration> =>
      import("../search/tools/listDirectory.decl.js").then((m) => m.listDirectoryDeclaration),
    () => import("../search/tools/listDirectoryTool.js"),
    (m) => m.makeListDirectory
  ),
  // plan: todo list, task board, questions to the user
  entry(
    "todo_write",
    (): Promise<typeof todoWriteDeclaration> => import("../plan/todoWrite.decl.js").then((m) => m.todoWriteDeclaration),
    () => import("../plan/todoWrite.js"),
    (m) => m.makeTodoWrite
  ),
  entry(
    "task_create",
    (): Promise<typeof taskCreateDeclaration> => import("../plan/taskCreate.decl.js").then((m) => m.taskCreateDeclaration),
    () => import("../plan/taskCreate.js"),
    (m) => m.makeTaskCreate
  ),
  entry(
    "task_update",
    (): Promise<typeof taskUpdateDeclaration> => import("../plan/taskUpdate.decl.js").then((m) => m.taskUpdateDeclaration),
    () => import("../plan/taskUpdate.js"),
    (m) => m.makeTaskUpdate
  ),
  entry(
    "task_list",
    (): Promise<typeof taskListDeclaration> => import("../plan/taskList.decl.js").then((m) => m.taskListDeclaration),
    () => import("../plan/taskList.js"),
    (m) => m.makeTaskList
  ),
  entry(
    "ask_user_question",
    (): Promise<typeof askUserQuestionDeclaration> =>
      import("../plan/askUserQuestion.decl.js").then((m) => m.askUserQuestionDeclaration),
    () => import("../plan/askUserQuestion.js"),
    (m) => m.makeAskUserQuestion
  ),
  // shell: commands (PTY, background shells, simulated sed -i), stopping and talking to background shells
  entry(
    "run_shell_command",
    (): Promise<typeof runShellCommandDeclaration> =>
      import("../shell/command/runShellCommand.decl.js").then((m) => m.runShellCommandDeclaration),
    () => import("../shell/command/runShellCommand.js"),
    (m) => m.makeRunShellCommand
  ),
  entry(
    "task_stop",
    (): Promise<typeof taskStopDeclaration> => import("../shell/background/taskStop.decl.js").then((m) => m.taskStopDeclaration),
    () => import("../shell/background/taskStop.js"),
    (m) => m.makeTaskStop
  ),
  entry(
    "send_message",
    (): Promise<typeof sendMessageDeclaration> =>
      import("../shell/background/sendMessage.decl.js").then((m) => m.sendMessageDeclaration),
    () => import("../shell/background/sendMessage.js"),
    (m) => m.makeSendMessage
  ),
  // web: one public page as text (deferred)
  entry(
    "web_fetch",
    (): Promise<typeof webFetchDeclaration> => import("../web/webFetch.decl.js").then((m) => m.webFetchDeclaration),
    () => import("../web/webFetch.js"),
    (m) => m.makeWebFetch
  )
] as const

/**
 * Each built-in's info: from the build's file, else (running from src/) from its declaration
 * module, all imported here (top-level await), so a listing stays synchronous either way.
 */
const builtinInfos: ReadonlyMap<string, ToolInfo> = readBuiltinDeclarations() ??
  new Map(await Promise.all(entries.map(async (e) => [e.name, (await e.importDeclaration()).info] as const)))

const builtin = (e: CatalogEntry<string, ToolParams>): BuiltinTool => {
  const info = builtinInfos.get(e.name)
  if (info === undefined) throw new Error(`catalog: the build's builtinDeclarations.json has no "${e.name}"; rebuild`)
  return { name: e.name, info, declaration: Effect.promise(e.importDeclaration), make: e.make }
}

type Built<T extends ReadonlyArray<CatalogEntry<string, ToolParams>>> = {
  readonly [K in keyof T]: T[K] extends CatalogEntry<infer Name, infer P> ? BuiltinTool<Name, P> : never
}

/** Every built-in tool, in catalog order. @category constants */
export const builtinCatalog = entries.map(builtin) as unknown as Built<typeof entries>

/** The name of a built-in tool. @category models */
export type BuiltinToolName = typeof builtinCatalog[number]["name"]

/** Each built-in's declaration type, by name (its params typed). @category models */
export type BuiltinDeclarations = {
  readonly [T in typeof builtinCatalog[number] as T["name"]]: Effect.Success<T["declaration"]>
}

/**
 * A built-in as a registry factory: declared (listed and searched without loading), its module
 * imported on the first call.
 *
 * @category constructors
 */
export const builtinFactory = (tool: BuiltinTool): ToolFactory<SessionServices> => ({
  name: tool.name,
  load: tool.make,
  info: tool.info
})

/** Every built-in tool factory (the catalog, without replacements). @category constants */
export const builtinFactories: ReadonlyArray<ToolFactory<SessionServices>> = builtinCatalog.map(builtinFactory)

/** `read_mcp_resource` over a session's MCP servers (registered only when servers are configured). @category constructors */
export const readMcpResourceFactory = (resolve: ResolveServer): ToolFactory => ({
  name: "read_mcp_resource",
  load: Effect.map(Effect.promise(() => import("../mcp/readMcpResource.js")), (m) => m.makeReadMcpResource(resolve))
})
