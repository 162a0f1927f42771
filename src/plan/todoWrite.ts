/**
 * `todo_write`: the session's todo list. Each call replaces the whole list; the list is kept in
 * `<stateDir>/todos/<sessionId>.json`, written atomically, or where `TodoSource` says (a named
 * session kept in SQL: its row of `toolwright_todos`; see todoStore.ts). The scheduler's event hooks see the
 * todos a call creates and completes: in the validation phase a hook may block the call (the list
 * on disk is left as it was and the model is told why), in the post-write phase hooks only observe.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { Session, Workspace } from "../session/index.js"
import { defineTool, textResult, type ToolEvent, type ToolEventHooks } from "../tool/index.js"
import { todoStoreFor } from "./todoStore.js"
import { detectTodoChanges, type TodoChanges, type TodoItem, todoBlockedText, todosWrittenText } from "./todos.js"
import { TodoWriteParams, todoWriteDeclaration } from "./todoWrite.decl.js"

export { TodoWriteParams } from "./todoWrite.decl.js"

/** What a `todo_write` call did. @category models */
export interface TodoWriteData {
  readonly todos: ReadonlyArray<TodoItem>
  /** Ids of the todos this call created and completed. */
  readonly created: ReadonlyArray<string>
  readonly completed: ReadonlyArray<string>
  /** Set when a hook blocked the call (nothing was written). */
  readonly blocked?: { readonly event: "TodoCreated" | "TodoCompleted"; readonly reason: string } | undefined
}

const eventsOf = (changes: TodoChanges, todos: ReadonlyArray<TodoItem>) => ({
  created: changes.created.map((todo): ToolEvent => ({ _tag: "TodoCreated", todo, todos })),
  completed: changes.completed.map(({ previousStatus, todo }): ToolEvent => ({ _tag: "TodoCompleted", todo, previousStatus, todos }))
})

/** The first blocking verdict among `events`, run in order. */
const firstBlock = Effect.fnUntraced(function*(hooks: ToolEventHooks, events: ReadonlyArray<ToolEvent>) {
  for (const event of events) {
    const verdict = yield* hooks.validate(event)
    if (verdict._tag === "Block") return verdict.reason
  }
  return undefined
})

/**
 * Makes `todo_write` for the session.
 *
 * @category constructors
 */
export const makeTodoWrite = Effect.gen(function*() {
  const workspace = yield* Workspace
  const session = yield* Session
  const store = yield* todoStoreFor(workspace, session.id)
  // One write at a time per session: read, compare, write must not interleave.
  const lock = yield* Semaphore.make(1)

  const write = Effect.fnUntraced(function*(todos: ReadonlyArray<TodoItem>, hooks: ToolEventHooks | undefined) {
    const changes = detectTodoChanges(yield* store.read, todos)
    const events = eventsOf(changes, todos)
    const data = {
      todos,
      created: changes.created.map((t) => t.id),
      completed: changes.completed.map((c) => c.todo.id)
    }
    if (hooks !== undefined) {
      const createBlock = yield* firstBlock(hooks, events.created)
      const completeBlock = createBlock === undefined ? yield* firstBlock(hooks, events.completed) : undefined
      const reason = createBlock ?? completeBlock
      if (reason !== undefined) {
        const kind = createBlock !== undefined ? "creation" : "completion"
        const text = todoBlockedText(kind, reason)
        return textResult<TodoWriteData>(text, {
          display: text.slice(0, text.indexOf("\n")),
          data: { ...data, blocked: { event: kind === "creation" ? "TodoCreated" : "TodoCompleted", reason } }
        })
      }
    }
    yield* store.write(todos)
    if (hooks !== undefined) {
      yield* Effect.forEach([...events.created, ...events.completed], hooks.committed, { discard: true })
    }
    return textResult<TodoWriteData>(todosWrittenText(todos), { display: { _tag: "TodoList", todos }, data })
  })

  return defineTool({
    ...todoWriteDeclaration,
    invoke: (params) =>
      Effect.gen(function*() {
        const exists = yield* store.exists
        return {
          description: exists ? "Update todos" : "Create todos",
          defaultPermission: Effect.succeed("allow" as const),
          execute: ({ hooks }) => lock.withPermits(1)(write(params.todos, hooks))
        }
      })
  })
})
