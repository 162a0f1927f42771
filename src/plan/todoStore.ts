/**
 * Where a session's todo list is kept. By default the file `<stateDir>/todos/<sessionId>.json`
 * (written atomically), so every process of a named session on one machine shares it; a named
 * session kept in SQL sets {@link TodoSource} to a row of `toolwright_todos` (sqlTodoStore.ts),
 * so the list follows the session to another process or machine.
 *
 * @since 0.2.0
 */
import * as nodePath from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { describeDiskError, ifExists, readText, stat, writeFileAtomic } from "../disk/index.js"
import type { WorkspaceService } from "../session/index.js"
import {
  type ExecutionFailed,
  type FileWriteFailure,
  type NoSpaceLeft,
  type PermissionDenied,
  restateWriteFailure,
  writeFailureWith
} from "../tool/index.js"
import { PLAN_FILE_MODE } from "./lock.js"
import { TodoFile, type TodoItem, todoFailedText } from "./todos.js"

/** Why the list could not be written. @category errors */
export type TodoStoreError = PermissionDenied | NoSpaceLeft | FileWriteFailure | ExecutionFailed

/** One session's todo list. @category models */
export interface TodoListStore {
  /** Where the list lives, for messages (a path, or `sql:<table>/<session>`). */
  readonly where: string
  /** Whether a list was ever written (the call's description: "Create todos" or "Update todos"). */
  readonly exists: Effect.Effect<boolean>
  /** The list as last written; empty when there is none, or (logged) when it cannot be read. */
  readonly read: Effect.Effect<ReadonlyArray<TodoItem>>
  /** Replaces the list. */
  readonly write: (todos: ReadonlyArray<TodoItem>) => Effect.Effect<void, TodoStoreError>
}

/** The JSON of the list as stored (the reference's `{todos, sessionId}`). @category codecs */
export const decodeTodoFile = Schema.decodeUnknownEffect(Schema.fromJsonString(TodoFile))

/** The file `<stateDir>/todos/<sessionId>.json`; its directory is created on the first write. @category constructors */
export const makeFileTodoStore = (workspace: WorkspaceService, sessionId: string): TodoListStore => {
  const file = nodePath.join(workspace.stateDir, "todos", `${sessionId}.json`)
  const read = Effect.gen(function*() {
    const text = yield* ifExists(readText(file)).pipe(
      Effect.catch((error) => Effect.as(Effect.logWarning(`todo_write: cannot read ${file}: ${describeDiskError(error)}`), undefined))
    )
    if (text === undefined) return []
    const decoded = yield* Effect.result(decodeTodoFile(text))
    if (decoded._tag === "Failure") {
      yield* Effect.logWarning(`todo_write: ${file} is not a valid todo list; treating the previous list as empty`)
      return []
    }
    return decoded.success.todos
  })
  const write = (todos: ReadonlyArray<TodoItem>) =>
    Effect.gen(function*() {
      const dir = yield* workspace.ensureStateSubdir("todos").pipe(
        Effect.mapError((error) =>
          restateWriteFailure(error, { message: todoFailedText(error.message), display: `Error writing todos: ${error.message}` })
        )
      )
      yield* writeFileAtomic(nodePath.join(dir, `${sessionId}.json`), JSON.stringify({ todos, sessionId }, null, 2), PLAN_FILE_MODE).pipe(
        Effect.mapError((error) => {
          const why = describeDiskError(error)
          return writeFailureWith(error, { message: todoFailedText(why), display: `Error writing todos: ${why}` })
        })
      )
    })
  const exists = ifExists(stat(file)).pipe(
    Effect.map((s) => s !== undefined),
    Effect.catch(() => Effect.succeed(false))
  )
  return { where: file, exists, read, write }
}

/**
 * Where a session's `todo_write` keeps its list: unset, the file under the state directory; set,
 * this function's store (a named session kept in SQL sets it to its row).
 * @category services
 */
export const TodoSource = Context.Reference<((workspace: WorkspaceService, sessionId: string) => TodoListStore) | undefined>(
  "toolwright/plan/TodoSource",
  { defaultValue: () => undefined }
)

/** The todo list of the session, from {@link TodoSource}. @category constructors */
export const todoStoreFor = (workspace: WorkspaceService, sessionId: string): Effect.Effect<TodoListStore> =>
  Effect.gen(function*() {
    const source = yield* TodoSource
    return source === undefined ? makeFileTodoStore(workspace, sessionId) : source(workspace, sessionId)
  })
