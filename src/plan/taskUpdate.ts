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
import { Session, Workspace } from "../session/index.js"
import { defineTool, ExecutionFailed, textResult } from "../tool/index.js"
import { type Task, updatedText, updateTask } from "./board.js"
import { taskBoardStoreFor } from "./boardStore.js"
import {
  firstInvalidId,
  sessionOwner,
  TaskIdParam
} from "./taskParams.js"
import { TaskUpdateParams, taskUpdateDeclaration } from "./taskUpdate.decl.js"

export { TaskUpdateParams } from "./taskUpdate.decl.js"

/** What a `task_update` call did. @category models */
export type TaskUpdateData = { readonly _tag: "Deleted"; readonly id: string } | { readonly _tag: "Updated"; readonly task: Task }

/** One line for the call: `Task #3 → completed owner: alice`. @category texts */
export const updateDescription = (params: typeof TaskUpdateParams.Type): string =>
  `Task #${params.task_id}${params.status !== undefined ? ` → ${params.status}` : ""}` +
  (params.owner !== undefined ? ` owner: ${params.owner === "" ? "(none)" : params.owner}` : "")

/** What the person approving sees: every change the call makes. @category texts */
export const updatePrompt = (params: typeof TaskUpdateParams.Type): string => {
  const lines: Array<string> = []
  if (params.status !== undefined) lines.push(params.status === "deleted" ? "delete the task" : `status → ${params.status}`)
  if (params.owner !== undefined) lines.push(params.owner === "" ? "unassign the owner" : `owner → ${params.owner}`)
  if (params.subject !== undefined) lines.push(`subject → ${params.subject}`)
  if (params.active_form !== undefined) lines.push(`active_form → ${params.active_form}`)
  if (params.description !== undefined) lines.push(`description →\n${params.description}`)
  if (params.metadata !== undefined) lines.push(`metadata ← ${JSON.stringify(params.metadata)}`)
  if (params.add_blocks?.length) lines.push(`blocks ${params.add_blocks.map((b) => `#${b}`).join(", ")}`)
  if (params.add_blocked_by?.length) lines.push(`blocked by ${params.add_blocked_by.map((b) => `#${b}`).join(", ")}`)
  return `Update task #${params.task_id}:\n${lines.length > 0 ? lines.map((l) => `- ${l}`).join("\n") : "- (no changes)"}`
}

/**
 * Makes `task_update` for the session's workspace.
 *
 * @category constructors
 */
export const makeTaskUpdate = Effect.gen(function*() {
  const store = yield* taskBoardStoreFor(yield* Workspace)
  const caller = sessionOwner((yield* Session).id)
  return defineTool({
    ...taskUpdateDeclaration,
    validate: (params) => firstInvalidId([params.task_id, ...(params.add_blocks ?? []), ...(params.add_blocked_by ?? [])]),
    toAutoClassifierInput: (params) => JSON.stringify(params),
    invoke: (params) =>
      Effect.succeed({
        description: updateDescription(params),
        defaultPermission: Effect.succeed("ask" as const),
        confirmation: Effect.succeed({ type: "info" as const, title: "Confirm TaskUpdate", prompt: updatePrompt(params) }),
        execute: () =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const { active_form, add_blocked_by, add_blocks, task_id: taskId, ...rest } = params
            const patch = { ...rest, activeForm: active_form, addBlocks: add_blocks, addBlockedBy: add_blocked_by }
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
