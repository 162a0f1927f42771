/**
 * The declaration of `task_create`: what a model is shown (the description is taskCreate.md). The
 * behaviour is in taskCreate.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"
import { MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS } from "./board.js"
import { ActiveFormParam, DescriptionParam, MetadataParam, SubjectParam } from "./taskParams.js"

/** The params of `task_create`. @category schemas */
export const TaskCreateParams = Schema.Struct({
  subject: SubjectParam(`A short title, imperative (e.g. "Add retry to the upload client"), at most ${MAX_SUBJECT_CHARS} characters.`),
  description: DescriptionParam(
    `What needs to be done and how to tell it is done, at most ${MAX_DESCRIPTION_CHARS} characters.`
  ),
  active_form: Schema.optionalKey(ActiveFormParam),
  metadata: Schema.optionalKey(MetadataParam("Free-form data to keep with the task (JSON object)."))
})

/** The declaration of `task_create`. @category declarations */
export const taskCreateDeclaration = declareTool({
  name: "task_create",
  displayName: "TaskCreate",
  kind: Kind.Other,
  description: descriptionFile(import.meta.url, "taskCreate.md"),
  params: TaskCreateParams,
  paramAliases: { activeForm: "active_form" }
})
