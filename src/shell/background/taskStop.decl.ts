/**
 * The declaration of `task_stop`: what a model is shown (the description is taskStop.md). The
 * behaviour is in taskStop.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../../tool/index.js"

/** The params of `task_stop`. @category schemas */
export const TaskStopParams = Schema.Struct({
  task_id: Schema.String.annotate({ description: "The id of the background task to stop (e.g. bg_1a2b3c4d)." })
})

/** The declaration of `task_stop`. @category declarations */
export const taskStopDeclaration = declareTool({
  name: "task_stop",
  displayName: "TaskStop",
  kind: Kind.Other,
  shouldDefer: true,
  searchHint: "task stop cancel kill background",
  description: descriptionFile(import.meta.url, "taskStop.md"),
  params: TaskStopParams
})
