/**
 * `task_update`: changes one task on the workspace's task board: status (`deleted` removes it),
 * owner, texts, metadata (merged; `null` removes a key) and blocking edges (kept reciprocal; self
 * edges, unknown tasks and cycles are refused with the cycle's path).
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { Session } from "../session/session.js"
import { Workspace } from "../session/workspace.js"
import { ExecutionFailed } from "../tool/errors.js"
import { Kind } from "../tool/kind.js"
import { textResult } from "../tool/result.js"
import { defineTool } from "../tool/tool.js"
import { MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS, type Task, TASK_STATUSES, updatedText, updateTask } from "./board.js"
import { makeTaskBoardStore } from "./boardStore.js"
import {
  ActiveFormParam,
  DescriptionParam,
  firstInvalidId,
  MetadataParam,
  sessionOwner,
  SubjectParam,
  TaskIdParam
} from "./taskParams.js"

const DESCRIPTION = `Updates a task on the workspace's task board (see task_create, task_list).

- status: pending → in_progress → completed; "deleted" removes the task (and its blocking links) for good.
- Moving a task to in_progress without an owner assigns it to this session; owner "" unassigns.
- metadata is merged into the task's metadata; a key set to null is removed.
- addBlocks: tasks that cannot start until this one is done. addBlockedBy: tasks this one waits for. Links are recorded on both tasks; a task cannot block itself, and a link that would close a cycle is refused with the cycle's path.`

/** The params of `task_update`. @category schemas */
export const TaskUpdateParams = Schema.Struct({
  taskId: TaskIdParam(`The id of the task to update (a positive integer as a string, e.g. "3").`),
  status: Schema.optionalKey(
    Schema.Literals([...TASK_STATUSES, "deleted"]).annotate({ description: "The new status; \"deleted\" removes the task." })
  ),
  owner: Schema.optionalKey(Schema.String.annotate({ description: "Who works on it (free text); empty string unassigns." })),
  subject: Schema.optionalKey(SubjectParam(`A new title, at most ${MAX_SUBJECT_CHARS} characters.`)),
  description: Schema.optionalKey(DescriptionParam(`A new description, at most ${MAX_DESCRIPTION_CHARS} characters.`)),
  activeForm: Schema.optionalKey(ActiveFormParam),
  metadata: Schema.optionalKey(MetadataParam("Keys to merge into the task's metadata; a key set to null is removed.")),
  addBlocks: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "Ids of tasks that cannot start until this task is completed." })
  ),
  addBlockedBy: Schema.optionalKey(
    Schema.Array(Schema.String).annotate({ description: "Ids of tasks that must be completed before this task can start." })
  )
})

/** What a `task_update` call did. @category models */
export type TaskUpdateData = { readonly _tag: "Deleted"; readonly id: string } | { readonly _tag: "Updated"; readonly task: Task }

/** One line for the call: `Task #3 → completed owner: alice`. @category texts */
export const updateDescription = (params: typeof TaskUpdateParams.Type): string =>
  `Task #${params.taskId}${params.status !== undefined ? ` → ${params.status}` : ""}` +
  (params.owner !== undefined ? ` owner: ${params.owner === "" ? "(none)" : params.owner}` : "")

/** What the person approving sees: every change the call makes. @category texts */
export const updatePrompt = (params: typeof TaskUpdateParams.Type): string => {
  const lines: Array<string> = []
  if (params.status !== undefined) lines.push(params.status === "deleted" ? "delete the task" : `status → ${params.status}`)
  if (params.owner !== undefined) lines.push(params.owner === "" ? "unassign the owner" : `owner → ${params.owner}`)
  if (params.subject !== undefined) lines.push(`subject → ${params.subject}`)
  if (params.activeForm !== undefined) lines.push(`activeForm → ${params.activeForm}`)
  if (params.description !== undefined) lines.push(`description →\n${params.description}`)
  if (params.metadata !== undefined) lines.push(`metadata ← ${JSON.stringify(params.metadata)}`)
  if (params.addBlocks?.length) lines.push(`blocks ${params.addBlocks.map((b) => `#${b}`).join(", ")}`)
  if (params.addBlockedBy?.length) lines.push(`blocked by ${params.addBlockedBy.map((b) => `#${b}`).join(", ")}`)
  return `Update task #${params.taskId}:\n${lines.length > 0 ? lines.map((l) => `- ${l}`).join("\n") : "- (no changes)"}`
}

/**
 * Makes `task_update` for the session's workspace.
 *
 * @category constructors
 */
export const makeTaskUpdate = Effect.gen(function*() {
  const store = makeTaskBoardStore(yield* Workspace)
  const caller = sessionOwner((yield* Session).id)
  return defineTool({
    name: "task_update",
    displayName: "TaskUpdate",
    description: DESCRIPTION,
    kind: Kind.Other,
    params: TaskUpdateParams,
    validate: (params) => firstInvalidId([params.taskId, ...(params.addBlocks ?? []), ...(params.addBlockedBy ?? [])]),
    toAutoClassifierInput: (params) => JSON.stringify(params),
    invoke: (params) =>
      Effect.succeed({
        description: updateDescription(params),
        defaultPermission: Effect.succeed("ask" as const),
        confirmation: Effect.succeed({ type: "info" as const, title: "Confirm TaskUpdate", prompt: updatePrompt(params) }),
        execute: () =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const { taskId, ...patch } = params
            const outcome = yield* store.modify((board) =>
              updateTask(board, taskId, patch, caller, now).pipe(
                Result.map((outcome) => ({ value: outcome, board: outcome.board })),
                Result.mapError((refusal) => new ExecutionFailed({ message: refusal.message }))
              )
            )
            if (outcome._tag === "Deleted") {
              return textResult<TaskUpdateData>(`Task #${outcome.id} deleted.`, { data: { _tag: "Deleted", id: outcome.id } })
            }
            return textResult<TaskUpdateData>(updatedText(outcome), { data: { _tag: "Updated", task: outcome.task } })
          })
      })
  })
})
