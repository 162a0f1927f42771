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
import type { ResolveServer } from "../mcp/resource.js"
import type { OutputStore } from "../output/store.js"
import type { FileReadCache } from "../session/readCache.js"
import type { Session } from "../session/session.js"
import type { Workspace } from "../session/workspace.js"
import type { ShellServices } from "../shell/layer.js"

/** The services a built-in tool's constructor may use. @category models */
export type SessionServices =
  | Session
  | Workspace
  | FileReadCache
  | OutputStore
  | FileSystem.FileSystem
  | Path.Path
  | ShellServices

/** Every built-in tool factory. @category constants */
export const builtinFactories: ReadonlyArray<ToolFactory<SessionServices>> = [
  // files: read, edit, write, notebook cells
  { name: "read_file", load: Effect.flatMap(Effect.promise(() => import("../files/readFile.js")), (m) => m.makeReadFile) },
  { name: "edit", load: Effect.flatMap(Effect.promise(() => import("../files/edit.js")), (m) => m.makeEdit) },
  { name: "write_file", load: Effect.flatMap(Effect.promise(() => import("../files/writeFile.js")), (m) => m.makeWriteFile) },
  {
    name: "notebook_edit",
    load: Effect.flatMap(Effect.promise(() => import("../files/notebookEdit.js")), (m) => m.makeNotebookEdit)
  },
  // search: file contents (four grep backends), file names, one directory
  {
    name: "grep_search",
    load: Effect.flatMap(Effect.promise(() => import("../search/tools/grepTool.js")), (m) => m.makeGrepSearch)
  },
  { name: "glob", load: Effect.flatMap(Effect.promise(() => import("../search/tools/globTool.js")), (m) => m.makeGlob) },
  {
    name: "list_directory",
    load: Effect.flatMap(Effect.promise(() => import("../search/tools/listDirectoryTool.js")), (m) => m.makeListDirectory)
  },
  // plan: todo list, task board, questions to the user
  { name: "todo_write", load: Effect.flatMap(Effect.promise(() => import("../plan/todoWrite.js")), (m) => m.makeTodoWrite) },
  { name: "task_create", load: Effect.flatMap(Effect.promise(() => import("../plan/taskCreate.js")), (m) => m.makeTaskCreate) },
  { name: "task_update", load: Effect.flatMap(Effect.promise(() => import("../plan/taskUpdate.js")), (m) => m.makeTaskUpdate) },
  { name: "task_list", load: Effect.flatMap(Effect.promise(() => import("../plan/taskList.js")), (m) => m.makeTaskList) },
  {
    name: "ask_user_question",
    load: Effect.flatMap(Effect.promise(() => import("../plan/askUserQuestion.js")), (m) => m.makeAskUserQuestion)
  },
  // shell: commands (PTY, background shells, simulated sed -i), stopping and talking to background shells
  {
    name: "run_shell_command",
    load: Effect.flatMap(Effect.promise(() => import("../shell/runShellCommand.js")), (m) => m.makeRunShellCommand)
  },
  { name: "task_stop", load: Effect.flatMap(Effect.promise(() => import("../shell/taskStop.js")), (m) => m.makeTaskStop) },
  { name: "send_message", load: Effect.flatMap(Effect.promise(() => import("../shell/sendMessage.js")), (m) => m.makeSendMessage) }
]

/** `read_mcp_resource` over a session's MCP servers (registered only when servers are configured). @category constructors */
export const readMcpResourceFactory = (resolve: ResolveServer): ToolFactory => ({
  name: "read_mcp_resource",
  load: Effect.map(Effect.promise(() => import("../mcp/resource.js")), (m) => m.makeReadMcpResource(resolve))
})
