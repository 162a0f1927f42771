/**
 * `task_create`: adds a task to the workspace's durable task board. It asks first by default: the
 * description may become an instruction another session acts on, so the confirmation shows it.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { Workspace } from "../session/workspace.js"
import { Kind } from "../tool/kind.js"
import { textResult } from "../tool/result.js"
import { defineTool } from "../tool/tool.js"
import { createTask, MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS, type Task } from "./board.js"
import { makeTaskBoardStore } from "./boardStore.js"
import { ActiveFormParam, DescriptionParam, MetadataParam, SubjectParam } from "./taskParams.js"

/** How much of the description the confirmation shows. @category constants */
export const CONFIRMATION_DESCRIPTION_CHARS = 2_000

const DESCRIPTION = `Adds a task to the workspace's shared task board and returns its id (a positive integer).

The board is durable: it survives restarts and is shared by every session working in this workspace, so write the description so that someone else could pick the task up. Use task_update to claim, progress, complete or delete tasks and to record which tasks block which, and task_list to see the board. For a private checklist of your own steps in this session, use todo_write instead.`

/** The params of `task_create`. @category schemas */
export const TaskCreateParams = Schema.Struct({
  subject: SubjectParam(`A short title, imperative (e.g. "Add retry to the upload client"), at most ${MAX_SUBJECT_CHARS} characters.`),
  description: DescriptionParam(
    `What needs to be done and how to tell it is done, at most ${MAX_DESCRIPTION_CHARS} characters.`
  ),
  activeForm: Schema.optionalKey(ActiveFormParam),
  metadata: Schema.optionalKey(MetadataParam("Free-form data to keep with the task (JSON object)."))
})

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
  const store = makeTaskBoardStore(yield* Workspace)
  return defineTool({
    name: "task_create",
    displayName: "TaskCreate",
    description: DESCRIPTION,
    kind: Kind.Other,
    params: TaskCreateParams,
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
              const created = createTask(board, params, now)
              return Result.succeed({ value: created.task, board: created.board })
            })
            return textResult<Task>(`Task #${task.id} created: "${task.subject}"`, { data: task })
          })
      })
  })
})
