/**
 * Named sessions kept in PostgreSQL (`effect/sql` + `@effect/sql-pg`), for sessions that move
 * between processes and machines sharing one database. Same interface and errors as the file
 * store: one row per session holding its {@link SessionRecord} as JSON; a save merges with what
 * another process saved meanwhile, inside a transaction holding a per-name advisory lock, so two
 * processes closing one session at once never lose each other's evidence.
 *
 * The table is created on first use (`create table if not exists`, under an advisory lock so two
 * processes starting at once do not race). A database that cannot be reached, refuses the login or
 * has no database of that name fails with {@link SessionStoreFailed} saying which; every load and
 * save has a deadline (`SQL_OPERATION_TIMEOUT_MS`), so nothing waits forever.
 *
 * This module loads the PostgreSQL driver: a session imports it only when a SQL store is used.
 *
 * @since 0.2.0
 */
import { PgClient } from "@effect/sql-pg"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { decodeStoredRecord, mergeRecords, type SessionRecord, SessionStoreFailed, type SessionStoreService, SQL_URL_ENV } from "./sessionStore.js"
import { describeSqlFailure, failedToConnect, SQL_OPERATION_TIMEOUT_MS, withDeadline } from "./sqlFailure.js"

/** The table that holds session records. @category constants */
export const SESSIONS_TABLE = "toolwright_sessions"

/** How long connecting to the database may take before the store fails (ms). @category constants */
export const SQL_CONNECT_TIMEOUT_MS = 5_000

/** The advisory lock key (a fixed 64-bit number) taken while the schema is created. */
const SCHEMA_LOCK = 7_265_117_100_917


/** The URL without its password, to show in messages. @category texts */
export const describeSqlUrl = (url: string): string => {
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  if (parsed === undefined) return "(not a URL)"
  return `${parsed.protocol}//${parsed.username !== "" ? `${parsed.username}@` : ""}${parsed.host}${parsed.pathname}`
}

const sqlFailure = (what: string, where: string) => (e: SqlError) =>
  new SessionStoreFailed({
    // a refused login or a missing database fails while connecting too
    message: `Could not ${e.reason._tag === "ConnectionError" || failedToConnect(e) ? "connect to" : what} the SQL session store: ` +
      `the database at ${where} ` +
      `${describeSqlFailure(e)}. ` +
      `The URL comes from --sql or ${SQL_URL_ENV}; without --session-store sql the session is kept in files.`
  })

/** Bounds a store operation by {@link SQL_OPERATION_TIMEOUT_MS}. */
const bounded = <A, R>(what: string, where: string, effect: Effect.Effect<A, SessionStoreFailed, R>) =>
  withDeadline(effect, SQL_OPERATION_TIMEOUT_MS, () =>
    new SessionStoreFailed({
      message: `Could not ${what} the SQL session store: the database at ${where} did not answer within ` +
        `${SQL_OPERATION_TIMEOUT_MS / 1000} s. Check that it is running and not overloaded, or run without --session-store sql.`
    }))

/** Creates the store's table when missing; safe to run from many processes at once. @category constructors */
export const migrateSessionStore: Effect.Effect<void, SqlError, SqlClient.SqlClient> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`select pg_advisory_xact_lock(${SCHEMA_LOCK})`
    yield* sql`create table if not exists ${sql(SESSIONS_TABLE)} (
      name text primary key,
      record text not null,
      last_used_at bigint not null,
      saved_at timestamptz not null default now()
    )`
  }))
})

/**
 * A store on the SQL client in context (PostgreSQL): creates its table, then loads and saves
 * records. `where` names the database in messages (no password).
 * @category constructors
 */
export const makeSqlSessionStore = (
  where = "the database"
): Effect.Effect<SessionStoreService, SessionStoreFailed, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* bounded("prepare", where, migrateSessionStore.pipe(Effect.mapError(sqlFailure("prepare", where))))
    const loadRow = (name: string) =>
      sql<{ readonly record: string }>`select record from ${sql(SESSIONS_TABLE)} where name = ${name}`.pipe(
        Effect.map((rows) => rows[0]?.record)
      )
    const decode = (name: string, text: string | undefined) =>
      decodeStoredRecord(
        name,
        text,
        `The session "${name}" in ${where} is not a toolwright session record (damaged or from a newer ` +
          `version). Pick another --session name; the row was left as it is.`
      )
    const load = Effect.fn("SqlSessionStore.load")(function*(name: string) {
      const text = yield* bounded("read", where, loadRow(name).pipe(Effect.mapError(sqlFailure("read", where))))
      return yield* decode(name, text)
    })
    const save = Effect.fn("SqlSessionStore.save")(function*(record: SessionRecord, dropped: ReadonlySet<string>) {
      const transaction = sql.withTransaction(Effect.gen(function*() {
        yield* sql`select pg_advisory_xact_lock(hashtext(${SESSIONS_TABLE}), hashtext(${record.name}))`
        const existing = yield* decode(record.name, yield* loadRow(record.name))
        const merged = mergeRecords(Option.getOrUndefined(existing), record, dropped)
        const text = JSON.stringify(merged)
        yield* sql`insert into ${sql(SESSIONS_TABLE)} (name, record, last_used_at) values (${record.name}, ${text}, ${merged.lastUsedAt})
          on conflict (name) do update set record = excluded.record, last_used_at = excluded.last_used_at, saved_at = now()`
      })).pipe(Effect.catchTag("SqlError", (e) => Effect.fail(sqlFailure("write", where)(e))))
      yield* bounded("write", where, transaction)
    })
    return { load, save }
  })

/**
 * A PostgreSQL client for `url` (a small pool; connecting fails within
 * {@link SQL_CONNECT_TIMEOUT_MS}), for the scope. Fails with {@link SessionStoreFailed}.
 * @category constructors
 */
export const connectSql = (
  url: string
): Effect.Effect<SqlClient.SqlClient, SessionStoreFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const where = describeSqlUrl(url)
    if (!URL.canParse(url) || !/^postgres(ql)?:$/.test(new URL(url).protocol)) {
      return yield* new SessionStoreFailed({
        message: `"${where}" is not a PostgreSQL URL: give --sql (or ${SQL_URL_ENV}) as postgres://user@host:5432/database.`
      })
    }
    const context = yield* Layer.build(PgClient.layer({
      url: Redacted.make(url),
      connectTimeout: `${SQL_CONNECT_TIMEOUT_MS} millis`,
      maxConnections: 4,
      idleTimeout: "60 seconds",
      applicationName: "toolwright"
    })).pipe(
      Effect.mapError(sqlFailure("connect to", where)),
      // the driver's own timeout covers connecting; this bounds a server that accepts but never answers
      Effect.timeoutOrElse({
        duration: `${SQL_CONNECT_TIMEOUT_MS * 2} millis`,
        orElse: () =>
          Effect.fail(
            new SessionStoreFailed({
              message: `The SQL session store at ${where} did not answer within ${SQL_CONNECT_TIMEOUT_MS * 2} ms. Check that ` +
                `the database is running and reachable, or run without --session-store sql.`
            })
          )
      })
    )
    return Context.get(context, SqlClient.SqlClient)
  })

/**
 * The SQL session store of `url` for the scope: connects, creates the table when missing.
 * @category constructors
 */
export const sqlSessionStore = (url: string): Effect.Effect<SessionStoreService, SessionStoreFailed, Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* connectSql(url)
    return yield* makeSqlSessionStore(describeSqlUrl(url)).pipe(Effect.provideService(SqlClient.SqlClient, sql))
  })
