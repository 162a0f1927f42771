/**
 * The todo list of `todo_write`: its Schema (which is the validation, with the reference's
 * messages), change detection for hooks, and the model-facing texts.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/** The statuses a todo may have. @category constants */
export const TODO_STATUSES = ["pending", "in_progress", "completed"] as const

/** A todo's status. @category models */
export type TodoStatus = (typeof TODO_STATUSES)[number]

/** The reference's validation messages, one per rule. @category constants */
export const TodoMessages = {
  notArray: `Parameter "todos" must be an array.`,
  notObject: "Each todo must be an object.",
  id: `Each todo must have a non-empty "id" string.`,
  content: `Each todo must have a non-empty "content" string.`,
  status: `Each todo must have a valid "status" (pending, in_progress, completed).`,
  unique: "Todo IDs must be unique within the array."
} as const

const nonBlank = (message: string, description: string) =>
  Schema.String.annotate({ message }).check(Schema.isPattern(/\S/u, { message })).annotate({ description })
    .annotateKey({ messageMissingKey: message })

/** One todo. @category schemas */
export const TodoItem = Schema.Struct({
  content: nonBlank(TodoMessages.content, "What to do, as an imperative sentence (e.g. \"Run the test suite\")."),
  status: Schema.Literals(TODO_STATUSES).annotate({
    message: TodoMessages.status,
    description: "pending, in_progress (at most one at a time) or completed."
  }).annotateKey({ messageMissingKey: TodoMessages.status }),
  id: nonBlank(TodoMessages.id, "A stable id, unique in the list; keep it when the item changes.")
}).annotate({ message: TodoMessages.notObject })

/** One todo. @category models */
export type TodoItem = typeof TodoItem.Type

/** The whole list: ids unique. @category schemas */
export const TodoList = Schema.Array(TodoItem).annotate({ message: TodoMessages.notArray }).check(
  Schema.makeFilter((todos) => new Set(todos.map((t) => t.id)).size === todos.length || TodoMessages.unique)
).annotate({ description: "The updated todo list. It replaces the previous list entirely." })

/** What the list file holds. @category schemas */
export const TodoFile = Schema.Struct({ todos: Schema.Array(TodoItem), sessionId: Schema.String })

/** The todos a call creates (ids not in the old list) and completes (status became completed). @category models */
export interface TodoChanges {
  readonly created: ReadonlyArray<TodoItem>
  readonly completed: ReadonlyArray<{ readonly todo: TodoItem; readonly previousStatus: TodoStatus | undefined }>
}

/**
 * Compares the old list with the new one. A todo that appears already completed counts as both
 * created and completed.
 *
 * @category change detection
 */
export const detectTodoChanges = (before: ReadonlyArray<TodoItem>, after: ReadonlyArray<TodoItem>): TodoChanges => {
  const old = new Map(before.map((t) => [t.id, t]))
  return {
    created: after.filter((t) => !old.has(t.id)),
    completed: after.flatMap((todo) => {
      const previousStatus = old.get(todo.id)?.status
      return todo.status === "completed" && previousStatus !== "completed" ? [{ todo, previousStatus }] : []
    })
  }
}

/** The result text of a successful write (the list is in the reminder). @category texts */
export const todosWrittenText = (todos: ReadonlyArray<TodoItem>): string =>
  todos.length === 0
    ? "Todo list has been cleared.\n<system-reminder>\nYour todo list is now empty. DO NOT mention this explicitly to the user. " +
      "You have no pending tasks in your todo list.\n</system-reminder>"
    : "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. " +
      "Please proceed with the current tasks if applicable\n<system-reminder>\nYour todo list has changed. DO NOT mention " +
      "this explicitly to the user. Here are the latest contents of your todo list:\n" +
      `${JSON.stringify(todos)}. Continue on with the tasks at hand if applicable.\n</system-reminder>`

/** How {@link todosResumedText} begins (a resumed session re-derives it rather than carrying an old copy). @category texts */
export const TODOS_RESUMED = "This session was resumed and its todo list, kept from before, still has unfinished items"

/**
 * The reminder a resumed session with unfinished todos queues once: the list as last written (by
 * an earlier process of the session), so the model continues from it instead of starting afresh.
 * @category texts
 */
export const todosResumedText = (todos: ReadonlyArray<TodoItem>): string =>
  `${TODOS_RESUMED}. DO NOT mention this ` +
  `explicitly to the user. Here are its contents:\n${JSON.stringify(todos)}. Continue with the tasks at hand if ` +
  "applicable, and keep the list up to date with todo_write."

/** Whether a list has an item not completed yet. @category getters */
export const hasUnfinished = (todos: ReadonlyArray<TodoItem>): boolean => todos.some((t) => t.status !== "completed")

/** The result text when a hook blocked the write. @category texts */
export const todoBlockedText = (kind: "creation" | "completion", reason: string): string => {
  const hook = kind === "creation" ? "TodoCreated" : "TodoCompleted"
  return `Todo ${kind} blocked: ${reason}\n<system-reminder>\nTodo list was not modified because a ${hook} hook ` +
    `blocked the operation: ${reason}\n</system-reminder>`
}

/** The message of a failed write. @category texts */
export const todoFailedText = (error: string): string =>
  "Failed to modify todos. An error occurred during the operation.\n<system-reminder>\nTodo list modification failed " +
  `with error: ${error}. You may need to retry or handle this error appropriately.\n</system-reminder>`
