/**
 * `task_list`: the workspace's task board, one line per task, optionally filtered by status, owner
 * or blocking task.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { Workspace } from "../session/index.js"
import { defineTool, textResult } from "../tool/index.js"
import { listTasks, type Task, taskLine } from "./board.js"
import { taskBoardStoreFor } from "./boardStore.js"
import { firstInvalidId } from "./taskParams.js"
import { TaskListParams, taskListDeclaration } from "./taskList.decl.js"

export { TaskListParams } from "./taskList.decl.js"

/** The text when no task matches. @category texts */
export const NO_TASKS = "No tasks found."

/** A listed task, for programs. @category models */
export interface TaskListData {
  readonly tasks: ReadonlyArray<Task>
}

/**
 * Makes `task_list` for the session's workspace.
 *
 * @category constructors
 */
export const makeTaskList = Effect.gen(function*() {
  const store = yield* taskBoardStoreFor(yield* Workspace)
  return defineTool({
    ...taskListDeclaration,
    validate: (params) => firstInvalidId([params.blocked_by]),
    invoke: (params) =>
      Effect.succeed({
        description: "List tasks" + Object.entries(params).map(([k, v]) => ` ${k}: ${String(v)}`).join(","),
        execute: () =>
          Effect.gen(function*() {
            const board = yield* store.read
            const tasks = listTasks(board, { status: params.status, owner: params.owner, blockedBy: params.blocked_by })
            const text = tasks.length === 0 ? NO_TASKS : tasks.map((task) => taskLine(board, task)).join("\n")
            return textResult<TaskListData>(text, { data: { tasks } })
          })
      })
  })
})
