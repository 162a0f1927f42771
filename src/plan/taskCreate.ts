/**
 * `task_create`: adds a task to the workspace's durable task board. It asks first by default: the
 * description may become an instruction another session acts on, so the confirmation shows it.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { Workspace } from "../session/index.js"
import { defineTool, textResult } from "../tool/index.js"
import { createTask, type Task } from "./board.js"
import { taskBoardStoreFor } from "./boardStore.js"
import { TaskCreateParams, taskCreateDeclaration } from "./taskCreate.decl.js"

export { TaskCreateParams } from "./taskCreate.decl.js"

/** How much of the description the confirmation shows. @category constants */
export const CONFIRMATION_DESCRIPTION_CHARS = 2_000

/** The confirmation prompt: the subject and the description (cut at 2 000 characters). @category texts */
export const createPrompt = (subject: string, description: string): string => {
  const cut = description.length > CONFIRMATION_DESCRIPTION_CHARS
    ? `${description.slice(0, CONFIRMATION_DESCRIPTION_CHARS)}\n… (${description.length - CONFIRMATION_DESCRIPTION_CHARS} more characters)`
    : description
  return `Create task: ${subject}\n\n${cut}`
}

/**
 * Makes `task_create` for the session's workspace.
 *
 * @category constructors
 */
export const makeTaskCreate = Effect.gen(function*() {
  const store = yield* taskBoardStoreFor(yield* Workspace)
  return defineTool({
    ...taskCreateDeclaration,
    toAutoClassifierInput: (params) => JSON.stringify({ subject: params.subject, description: params.description }),
    invoke: (params) =>
      Effect.succeed({
        description: `Create task: ${params.subject}`,
        defaultPermission: Effect.succeed("ask" as const),
        confirmation: Effect.succeed({
          type: "info" as const,
          title: "Confirm TaskCreate",
          prompt: createPrompt(params.subject, params.description)
        }),
        execute: () =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const task = yield* store.modify((board) => {
              const { active_form: activeForm, ...rest } = params
              const created = createTask(board, { ...rest, activeForm }, now)
              return Result.succeed({ value: created.task, board: created.board })
            })
            return textResult<Task>(`Task #${task.id} created: "${task.subject}"`, { data: task })
          })
      })
  })
})
