/**
 * The declaration of `task_list`: what a model is shown (the description is taskList.md). The
 * behaviour is in taskList.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"
import { TASK_STATUSES } from "./board.js"
import { TaskIdParam } from "./taskParams.js"

/** The params of `task_list`. @category schemas */
export const TaskListParams = Schema.Struct({
  status: Schema.optionalKey(Schema.Literals(TASK_STATUSES).annotate({ description: "Only tasks with this status." })),
  owner: Schema.optionalKey(Schema.String.annotate({ description: "Only tasks owned by exactly this owner." })),
  blocked_by: Schema.optionalKey(TaskIdParam("Only tasks blocked by the task with this id."))
})

/** The declaration of `task_list`. @category declarations */
export const taskListDeclaration = declareTool({
  name: "task_list",
  displayName: "TaskList",
  kind: Kind.Read,
  description: descriptionFile(import.meta.url, "taskList.md"),
  params: TaskListParams,
  paramAliases: { blockedBy: "blocked_by" }
})
