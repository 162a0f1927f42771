/**
 * The declaration of `task_update`: what a model is shown (the description is taskUpdate.md). The
 * behaviour is in taskUpdate.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"
import { MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS, TASK_STATUSES } from "./board.js"
import { ActiveFormParam, DescriptionParam, MetadataParam, SubjectParam, TaskIdParam } from "./taskParams.js"

/** The camelCase names `task_update` took before 0.2, accepted until 0.3. @category schemas */
export const TASK_UPDATE_ALIASES = {
  taskId: "task_id",
  activeForm: "active_form",
  addBlocks: "add_blocks",
  addBlockedBy: "add_blocked_by"
} as const

/** The params of `task_update`. @category schemas */
export const TaskUpdateParams = Schema.Struct({
  task_id: TaskIdParam(`The id of the task to update (a positive integer as a string, e.g. "3").`),
  status: Schema.optionalKey(
    Schema.Literals([...TASK_STATUSES, "deleted"]).annotate({ description: "The new status; \"deleted\" removes the task." })
  ),
  owner: Schema.optionalKey(Schema.String.annotate({ description: "Who works on it (free text); empty string unassigns." })),
  subject: Schema.optionalKey(SubjectParam(`A new title, at most ${MAX_SUBJECT_CHARS} characters.`)),
  description: Schema.optionalKey(DescriptionParam(`A new description, at most ${MAX_DESCRIPTION_CHARS} characters.`)),
  active_form: Schema.optionalKey(ActiveFormParam),
  metadata: Schema.optionalKey(MetadataParam("Keys to merge into the task's metadata; a key set to null is removed.")),
  add_blocks: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "Ids of tasks that cannot start until this task is completed." })
  ),
  add_blocked_by: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "Ids of tasks that must be completed before this task can start." })
  )
})

/** The declaration of `task_update`. @category declarations */
export const taskUpdateDeclaration = declareTool({
  name: "task_update",
  displayName: "TaskUpdate",
  kind: Kind.Other,
  description: descriptionFile(import.meta.url, "taskUpdate.md"),
  params: TaskUpdateParams,
  paramAliases: TASK_UPDATE_ALIASES
})
