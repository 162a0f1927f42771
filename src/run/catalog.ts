/**
 * The catalog of built-in tools, as lazy factories: each is a dynamic `import()` plus a constructor
 * effect that receives the session's services. `tool_search` is not here: it needs the registry
 * itself, so the session registers it right after the registry is built.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import type * as Path from "effect/Path"
import type { ToolFactory } from "../registry/registry.js"
import type { ResolveServer } from "../mcp/readMcpResource.js"
import type { OutputStore } from "../output/store.js"
import type { FileReadCache } from "../session/readCache.js"
import type { Session } from "../session/session.js"
import type { Workspace } from "../session/workspace.js"
import type { ShellServices } from "../shell/layer.js"
import type { ToolInfo } from "../tool/tool.js"
import { builtinDeclarations } from "./builtinDeclarations.js"

/** The services a built-in tool's constructor may use. @category models */
export type SessionServices =
  | Session
  | Workspace
  | FileReadCache
  | OutputStore
  | FileSystem.FileSystem
  | Path.Path
  | ShellServices

const declarations: ReadonlyMap<string, ToolInfo> = new Map(builtinDeclarations.map((info) => [info.name, info]))

/** A built-in factory, declared from the generated declarations so that listing it imports nothing. */
const builtin = <M>(
  name: string,
  importModule: () => Promise<M>,
  construct: (module: M) => ToolFactory<SessionServices>["load"]
): ToolFactory<SessionServices> => ({
  name,
  load: Effect.flatMap(Effect.promise(importModule), construct),
  info: declarations.get(name)
})

/** Every built-in tool factory. @category constants */
export const builtinFactories: ReadonlyArray<ToolFactory<SessionServices>> = [
  // files: read, edit, write, notebook cells
  builtin("read_file", () => import("../files/readFile.js"), (m) => m.makeReadFile),
  builtin("edit", () => import("../files/edit.js"), (m) => m.makeEdit),
  builtin("write_file", () => import("../files/writeFile.js"), (m) => m.makeWriteFile),
  builtin("notebook_edit", () => import("../files/notebookEdit.js"), (m) => m.makeNotebookEdit),
  // search: file contents (four grep backends), file names, one directory
  builtin("grep_search", () => import("../search/tools/grepSearchTool.js"), (m) => m.makeGrepSearch),
  builtin("glob", () => import("../search/tools/globTool.js"), (m) => m.makeGlob),
  builtin("list_directory", () => import("../search/tools/listDirectoryTool.js"), (m) => m.makeListDirectory),
  // plan: todo list, task board, questions to the user
  builtin("todo_write", () => import("../plan/todoWrite.js"), (m) => m.makeTodoWrite),
  builtin("task_create", () => import("../plan/taskCreate.js"), (m) => m.makeTaskCreate),
  builtin("task_update", () => import("../plan/taskUpdate.js"), (m) => m.makeTaskUpdate),
  builtin("task_list", () => import("../plan/taskList.js"), (m) => m.makeTaskList),
  builtin("ask_user_question", () => import("../plan/askUserQuestion.js"), (m) => m.makeAskUserQuestion),
  // shell: commands (PTY, background shells, simulated sed -i), stopping and talking to background shells
  builtin("run_shell_command", () => import("../shell/runShellCommand.js"), (m) => m.makeRunShellCommand),
  builtin("task_stop", () => import("../shell/taskStop.js"), (m) => m.makeTaskStop),
  builtin("send_message", () => import("../shell/sendMessage.js"), (m) => m.makeSendMessage)
]

/** `read_mcp_resource` over a session's MCP servers (registered only when servers are configured). @category constructors */
export const readMcpResourceFactory = (resolve: ResolveServer): ToolFactory => ({
  name: "read_mcp_resource",
  load: Effect.map(Effect.promise(() => import("../mcp/readMcpResource.js")), (m) => m.makeReadMcpResource(resolve))
})
