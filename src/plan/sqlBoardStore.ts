/**
 * The task board in a SQL database (PostgreSQL), for sessions whose state is kept there
 * (`--session-store sql`): one row per board holding the board as JSON. Every change is one
 * transaction that locks the row (`select … for update`), applies the change and writes it back,
 * so ids are handed out once each however many processes and machines create tasks at once; no
 * lock file is involved. A row that does not decode is never overwritten. The task tools find it
 * through `TaskBoardSource` (boardStore.ts), which a session kept in SQL sets.
 *
 * A database that is down, refuses the login or does not answer within
 * `SQL_OPERATION_TIMEOUT_MS` fails the call with `task_store_unavailable`, saying whether the board
 * was changed; the session and its other tools go on, and the next call connects again.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { describeSqlFailure, failedToConnect, SQL_OPERATION_TIMEOUT_MS, withDeadline } from "../session/index.js"
import { ReadContentFailure, TaskStoreUnavailable } from "../tool/index.js"
import { Board, emptyBoard } from "./board.js"
import type { BoardChange, BoardError, TaskBoardStore } from "./boardStore.js"

/** The table that holds task boards. @category constants */
export const BOARDS_TABLE = "toolwright_task_boards"

/** The advisory lock key taken while the table is created. */
const SCHEMA_LOCK = 7_265_117_100_918

const decodeBoard = Schema.decodeUnknownEffect(Schema.fromJsonString(Board))

const NEXT_STEP = "The database may be restarting: try the call again in a minute. If it keeps failing, tell the user " +
  "the task board's database is unavailable; the other tools still work."

/** Whether a failed change may have been applied: only when it failed after reaching the database. */
const outcomeOf = (what: "read" | "change", reached: boolean) =>
  what === "read" || !reached
    ? "Nothing was changed."
    : "The change may or may not have been applied: call task_list to see before you repeat it."

const failure = (what: "read" | "change", key: string, where: string) => (e: SqlError) =>
  new TaskStoreUnavailable({
    message: `Could not ${what} the task board "${key}": its SQL database at ${where} ${describeSqlFailure(e)}. ` +
      `${outcomeOf(what, !failedToConnect(e))} ${NEXT_STEP}`,
    display: "Task board database unavailable"
  })

const tooSlow = (what: "read" | "change", key: string, where: string) => () =>
  new TaskStoreUnavailable({
    message: `Could not ${what} the task board "${key}": its SQL database at ${where} did not answer within ` +
      `${SQL_OPERATION_TIMEOUT_MS / 1000} s. ${outcomeOf(what, true)} ${NEXT_STEP}`,
    display: "Task board database not answering"
  })

const notABoard = (key: string, error: Schema.SchemaError) =>
  new ReadContentFailure({
    message: `The task board "${key}" in the SQL database is not a valid task board (${error.message.split("\n")[0]}). It ` +
      `was not changed. Tell the user: they can fix or delete its row in ${BOARDS_TABLE}.`,
    display: `Invalid task board ${key}`
  })

/** Creates the boards table when missing; safe from many processes at once. @category constructors */
export const migrateTaskBoards: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`select pg_advisory_xact_lock(${SCHEMA_LOCK})`
    yield* sql`create table if not exists ${sql(BOARDS_TABLE)} (
      key text primary key,
      board text not null,
      updated_at timestamptz not null default now()
    )`
  }))
})

/**
 * The board `key` (e.g. the workspace's first root) on `sql`. The table must exist
 * ({@link migrateTaskBoards}). `file` names the board in messages: `sql:<table>/<key>`; `where`
 * names the database in failures (no password).
 * @category constructors
 */
export const makeSqlTaskBoardStore = (sql: SqlClient.SqlClient, key: string, where = "the database"): TaskBoardStore => {
  const load = (lock: boolean) =>
    Effect.gen(function*() {
      const rows = lock
        ? yield* sql<{ readonly board: string }>`select board from ${sql(BOARDS_TABLE)} where key = ${key} for update`
        : yield* sql<{ readonly board: string }>`select board from ${sql(BOARDS_TABLE)} where key = ${key}`
      const text = rows[0]?.board
      if (text === undefined) return emptyBoard
      return yield* decodeBoard(text).pipe(Effect.mapError((e) => notABoard(key, e)))
    })
  const read: Effect.Effect<Board, BoardError> = withDeadline(
    load(false).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(failure("read", key, where)(e)))),
    SQL_OPERATION_TIMEOUT_MS,
    tooSlow("read", key, where)
  )
  const modify = <A, E>(change: (board: Board) => Result.Result<BoardChange<A>, E>): Effect.Effect<A, E | BoardError> => {
    // a refusal travels as a value out of the transaction (nothing was written), so it is not mistaken for a SQL failure
    const transaction = sql.withTransaction(Effect.gen(function*() {
      // the row exists before it is locked, so two first changes queue on it instead of racing
      yield* sql`insert into ${sql(BOARDS_TABLE)} (key, board) values (${key}, ${JSON.stringify(emptyBoard)}) on conflict (key) do nothing`
      const outcome = change(yield* load(true))
      if (Result.isFailure(outcome)) return Result.fail(outcome.failure)
      const next = outcome.success.board
      if (next !== undefined) {
        yield* sql`update ${sql(BOARDS_TABLE)} set board = ${JSON.stringify(next)}, updated_at = now() where key = ${key}`
      }
      return Result.succeed(outcome.success.value)
    })).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(failure("change", key, where)(e))))
    return withDeadline(transaction, SQL_OPERATION_TIMEOUT_MS, tooSlow("change", key, where)).pipe(
      Effect.flatMap((result) => Result.isFailure(result) ? Effect.fail(result.failure) : Effect.succeed(result.success))
    )
  }
  return { file: `sql:${BOARDS_TABLE}/${key}`, read, modify }
}
