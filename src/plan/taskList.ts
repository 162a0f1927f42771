/**
 * `task_list`: the workspace's task board, one line per task, optionally filtered by status, owner
 * or blocking task.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Workspace } from "../session/workspace.js"
import { Kind } from "../tool/kind.js"
import { textResult } from "../tool/result.js"
import { defineTool } from "../tool/tool.js"
import { listTasks, type Task, TASK_STATUSES, taskLine } from "./board.js"
import { makeTaskBoardStore } from "./boardStore.js"
import { firstInvalidId, TaskIdParam } from "./taskParams.js"

const DESCRIPTION = `Lists the tasks on the workspace's shared task board (see task_create), one per line:
#<id> [<status>] @<owner> — <subject> (blocked by #<ids>)
The owner part appears when the task has one; "blocked by" lists blocking tasks that are not completed yet. Filter by status, owner or a blocking task; with no filter, every task is listed.`

/** The text when no task matches. @category texts */
export const NO_TASKS = "No tasks found."

/** The params of `task_list`. @category schemas */
export const TaskListParams = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(TASK_STATUSES).annotate({ description: "Only tasks with this status." })),
  owner: Schema.optionalKey(Schema.String.annotate({ description: "Only tasks owned by exactly this owner." })),
  blockedBy: Schema.optionalKey(TaskIdParam("Only tasks blocked by the task with this id."))
})

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
  const store = makeTaskBoardStore(yield* Workspace)
  return defineTool({
    name: "task_list",
    displayName: "TaskList",
    description: DESCRIPTION,
    kind: Kind.Read,
    params: TaskListParams,
    validate: (params) => firstInvalidId([params.blockedBy]),
    invoke: (params) =>
      Effect.succeed({
        description: "List tasks" + Object.entries(params).map(([k, v]) => ` ${k}: ${String(v)}`).join(","),
        execute: () =>
          Effect.gen(function*() {
            const board = yield* store.read
            const tasks = listTasks(board, params)
            const text = tasks.length === 0 ? NO_TASKS : tasks.map((task) => taskLine(board, task)).join("\n")
            return textResult<TaskListData>(text, { data: { tasks } })
          })
      })
  })
})
