/**
 * Todo lists in a SQL database (PostgreSQL), for named sessions kept there (`--session-store sql`):
 * one row per session holding its list as JSON, written on every `todo_write` (not when the session
 * closes), so a runner killed outright loses no todo and another process of the session reads the
 * list as last written. `todo_write` finds it through `TodoSource` (todoStore.ts).
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { ExecutionFailed } from "../tool/index.js"
import { decodeTodoFile, type TodoListStore } from "./todoStore.js"
import { type TodoItem, todoFailedText } from "./todos.js"

/** The table that holds todo lists. @category constants */
export const TODOS_TABLE = "toolwright_todos"

/** The advisory lock key taken while the table is created. */
const SCHEMA_LOCK = 7_265_117_100_919

/** Creates the todos table when missing; safe from many processes at once. @category constructors */
export const migrateTodos: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`select pg_advisory_xact_lock(${SCHEMA_LOCK})`
    yield* sql`create table if not exists ${sql(TODOS_TABLE)} (
      session text primary key,
      todos text not null,
      updated_at timestamptz not null default now()
    )`
  }))
})

/** The todo list of session `sessionId` on `sql`. The table must exist ({@link migrateTodos}). @category constructors */
export const makeSqlTodoStore = (sql: SqlClient.SqlClient, sessionId: string): TodoListStore => {
  const where = `sql:${TODOS_TABLE}/${sessionId}`
  const row = sql<{ readonly todos: string }>`select todos from ${sql(TODOS_TABLE)} where session = ${sessionId}`.pipe(
    Effect.map((rows) => rows[0]?.todos)
  )
  const read = Effect.gen(function*() {
    const text = yield* row.pipe(
      Effect.catchTag("SqlError", (e) => Effect.as(Effect.logWarning(`todo_write: cannot read ${where}: ${e.message}`), undefined))
    )
    if (text === undefined) return []
    const decoded = yield* Effect.result(decodeTodoFile(text))
    if (decoded._tag === "Failure") {
      yield* Effect.logWarning(`todo_write: ${where} is not a valid todo list; treating the previous list as empty`)
      return []
    }
    return decoded.success.todos
  })
  const write = (todos: ReadonlyArray<TodoItem>) => {
    const text = JSON.stringify({ todos, sessionId })
    return sql`insert into ${sql(TODOS_TABLE)} (session, todos) values (${sessionId}, ${text})
      on conflict (session) do update set todos = excluded.todos, updated_at = now()`.pipe(
      Effect.asVoid,
      Effect.catchTag("SqlError", (e) => {
        const why = `the SQL database did not take it (${e.reason._tag}: ${e.message || "no detail"})`
        return Effect.fail(new ExecutionFailed({ message: todoFailedText(why), display: "Error writing todos: database unavailable" }))
      })
    )
  }
  const exists = Effect.map(row, (text) => text !== undefined).pipe(Effect.catchTag("SqlError", () => Effect.succeed(false)))
  return { where, exists, read, write }
}
