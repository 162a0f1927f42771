/**
 * What a session keeps in SQL (`SessionOptions.sqlUrl`): one connection pool for the session's
 * scope, its named-session store, the task board of its workspace and its todo list. A session imports this
 * module (and with it the PostgreSQL driver) only when it is kept in SQL.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import { SqlClient } from "effect/sql"
// floors: start-up — the plan room's index loads its tools
import { TaskBoardSource } from "../plan/boardStore.js"
// floors: start-up — the SQL board is loaded only here, not with the plan room's tools
import { makeSqlTaskBoardStore, migrateTaskBoards } from "../plan/sqlBoardStore.js"
// floors: start-up — likewise the SQL todo lists
import { makeSqlTodoStore, migrateTodos } from "../plan/sqlTodoStore.js"
// floors: start-up — the plan room's index loads its tools
import { TodoSource } from "../plan/todoStore.js"
import {
  describeSqlFailure,
  SQL_OPERATION_TIMEOUT_MS,
  SessionStoreFailed,
  type SessionStoreService,
  withDeadline,
  type WorkspaceService
} from "../session/index.js"
// floors: start-up — the session room's index does not load the PostgreSQL driver
import { connectSql, describeSqlUrl, makeSqlSessionStore } from "../session/sqlSessionStore.js"

/** A session's SQL state. @category models */
export interface SqlState {
  readonly sessionStore: SessionStoreService
  /** Provides the task tools' board: the SQL board keyed by the workspace's first root. */
  readonly taskBoard: Layer.Layer<never>
  /** Provides `todo_write`'s list: the SQL row of the session (used for named sessions only). */
  readonly todos: Layer.Layer<never>
}

/**
 * Connects to `url` for the scope, creates the tables when missing, and gives the session store
 * and the task board source. Fails with `SessionStoreFailed` (unreachable, not PostgreSQL).
 * @category constructors
 */
export const sqlState = (url: string): Effect.Effect<SqlState, SessionStoreFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* connectSql(url)
    const where = describeSqlUrl(url)
    const sessionStore = yield* makeSqlSessionStore(where).pipe(Effect.provideService(SqlClient.SqlClient, sql))
    yield* withDeadline(
      migrateTaskBoards.pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.mapError((e) => new SessionStoreFailed({ message: `Could not prepare the task board table: the database at ${where} ${describeSqlFailure(e)}.` }))
      ),
      SQL_OPERATION_TIMEOUT_MS,
      () => new SessionStoreFailed({ message: `Could not prepare the task board table: the database at ${where} did not answer within ${SQL_OPERATION_TIMEOUT_MS / 1000} s.` })
    )
    yield* withDeadline(
      migrateTodos.pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        Effect.mapError((e) => new SessionStoreFailed({ message: `Could not prepare the todos table: the database at ${where} ${describeSqlFailure(e)}.` }))
      ),
      SQL_OPERATION_TIMEOUT_MS,
      () => new SessionStoreFailed({ message: `Could not prepare the todos table: the database at ${where} did not answer within ${SQL_OPERATION_TIMEOUT_MS / 1000} s.` })
    )
    const taskBoard = Layer.succeed(
      TaskBoardSource,
      (workspace: WorkspaceService) => makeSqlTaskBoardStore(sql, workspace.roots[0] ?? "", where)
    )
    const todos = Layer.succeed(TodoSource, (_: WorkspaceService, sessionId: string) => makeSqlTodoStore(sql, sessionId))
    return { sessionStore, taskBoard, todos }
  })
