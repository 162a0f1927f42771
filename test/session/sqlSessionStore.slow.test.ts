/**
 * Named sessions kept in PostgreSQL (a private cluster, `test/support/postgres.ts`): evidence
 * carried across session lifetimes at the library door (`sqlUrl`), overlapping saves merged, the
 * typed errors of an unknown, expired or damaged session, and a dead database URL failing fast
 * with `SessionStoreFailed` and a message that names the database without its password.
 */
import { assert, layer } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Context, Effect, Exit, Layer, Option, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { Approver } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { makeSqlSessionStore, SESSIONS_TABLE, sqlSessionStore } from "../../src/session/sqlSessionStore.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { startPostgres, type TestPostgres } from "../support/postgres.js"
import { makeTempDir } from "../support/session.js"

class Pg extends Context.Service<Pg, TestPostgres>()("test/Pg") {
  static readonly layer = Layer.effect(Pg, startPostgres())
}

const codeOf = (r: CallResult) => (r._tag === "Failure" ? r.code : r._tag)
const tagOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
  Exit.isFailure(exit) ? Option.getOrThrow(Exit.findErrorOption(exit))._tag : "Success"
const messageOf = (exit: Exit.Exit<unknown, { readonly message: string }>) =>
  Exit.isFailure(exit) ? Option.getOrThrow(Exit.findErrorOption(exit)).message : ""

const setup = (url: string) => {
  const root = makeTempDir("tw-sql-root-")
  const stateDir = makeTempDir("tw-sql-state-")
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\n")
  fs.writeFileSync(path.join(root, "b.txt"), "beta\n")
  const layer = (sessionId: string, extra: Partial<SessionLayer.SessionOptions> = {}) =>
    SessionLayer.layer({ roots: [root], stateDir, sessionId, sqlUrl: url, ...extra }).pipe(
      Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
    )
  const call = (name: string, args: unknown) => Scheduler.use((s) => s.runOne({ callId: name, name, args }))
  const build = (id: string, extra: Partial<SessionLayer.SessionOptions> = {}) =>
    Effect.exit(Effect.scoped(Layer.build(layer(id, extra))))
  return { root, stateDir, layer, call, build, read: (f: string) => fs.readFileSync(path.join(root, f), "utf8") }
}

const editOf = (file: string, from: string, to: string) => ({ file_path: file, old_string: from, new_string: to })

const withSql = <A, E, R>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    return yield* f(yield* SqlClient.SqlClient)
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })))

layer(Pg.layer, { timeout: 60_000, excludeTestServices: true })("SQL session store (PostgreSQL)", (it) => {
  it.effect("a read in one session lifetime lets the next edit; another name knows nothing; the row holds the record", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const s = setup(pg.url)
      assert.strictEqual(codeOf(yield* s.call("read_file", { file_path: "a.txt" }).pipe(Effect.provide(s.layer("one")))), "Success")
      const other = yield* s.call("edit", editOf("a.txt", "alpha", "x")).pipe(Effect.provide(s.layer("two")))
      assert.strictEqual(codeOf(other), "edit_requires_prior_read")
      const edit = yield* s.call("edit", editOf("a.txt", "alpha", "gamma")).pipe(Effect.provide(s.layer("one")))
      assert.strictEqual(codeOf(edit), "Success")
      assert.strictEqual(s.read("a.txt"), "gamma\n")
      // no session file was written: the record is in the database
      assert.isFalse(fs.existsSync(path.join(s.stateDir, "sessions", "one.json")))
      const rows = yield* withSql(pg.url, (sql) => sql<{ readonly name: string }>`select name from ${sql(SESSIONS_TABLE)} order by name`)
      assert.includeMembers(rows.map((r) => r.name), ["one", "two"])
    }))

  it.effect("two overlapping sessions of one name on separate pools: both reads are kept", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const s = setup(pg.url)
      yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* Layer.build(s.layer("shared"))
        const second = yield* Layer.build(s.layer("shared"))
        yield* s.call("read_file", { file_path: "a.txt" }).pipe(Effect.provideContext(first))
        yield* s.call("read_file", { file_path: "b.txt" }).pipe(Effect.provideContext(second))
      }))
      const edits = yield* Effect.all([
        s.call("edit", editOf("a.txt", "alpha", "A")),
        s.call("edit", editOf("b.txt", "beta", "B"))
      ]).pipe(Effect.provide(s.layer("shared")))
      assert.deepStrictEqual(edits.map(codeOf), ["Success", "Success"])
    }))

  it.effect("typed errors over SQL: unknown with resume, expired, damaged row (left as it is)", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const s = setup(pg.url)
      assert.strictEqual(tagOf(yield* s.build("ghost", { resume: true })), "SessionNotFound")
      assert.strictEqual(tagOf(yield* s.build("live")), "Success")
      assert.strictEqual(tagOf(yield* s.build("live", { resume: true })), "Success")
      yield* Effect.sleep("20 millis")
      assert.strictEqual(tagOf(yield* s.build("live", { sessionTtlMs: 5 })), "SessionExpired")
      yield* withSql(pg.url, (sql) => sql`insert into ${sql(SESSIONS_TABLE)} (name, record, last_used_at) values ('bad', '{nope', 0)`)
      const bad = yield* s.build("bad")
      assert.strictEqual(tagOf(bad), "SessionStoreFailed")
      assert.match(messageOf(bad), /session "bad" in .* is not a toolwright session record/)
      const kept = yield* withSql(pg.url, (sql) => sql<{ readonly record: string }>`select record from ${sql(SESSIONS_TABLE)} where name = 'bad'`)
      assert.strictEqual(kept[0]!.record, "{nope")
    }))

  it.effect("the task board in SQL: two sessions on separate pools × 24 concurrent task_create → ids 1–48 once each, no lock file", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const s = setup(pg.url)
      const creates = (who: string) =>
        Effect.all(
          Array.from({ length: 24 }, (_, i) => s.call("task_create", { subject: `${who} ${i}`, description: `task ${i} of ${who}` })),
          { concurrency: "unbounded" }
        )
      const results = yield* Effect.all([
        creates("left").pipe(Effect.provide(s.layer("board-left"))),
        creates("right").pipe(Effect.provide(s.layer("board-right")))
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual(new Set(results.flat().map(codeOf)), new Set(["Success"]))
      const rows = yield* withSql(pg.url, (sql) =>
        sql<{ readonly board: string }>`select board from toolwright_task_boards where key = ${s.root}`)
      const board = JSON.parse(rows[0]!.board) as { readonly nextId: number; readonly tasks: ReadonlyArray<{ readonly id: string }> }
      const ids = board.tasks.map((t) => Number(t.id)).sort((a, b) => a - b)
      assert.deepStrictEqual(ids, Array.from({ length: 48 }, (_, i) => i + 1))
      assert.strictEqual(board.nextId, 49)
      assert.isFalse(fs.existsSync(path.join(s.stateDir, "tasks")))
      const listed = yield* s.call("task_list", {}).pipe(Effect.provide(s.layer("board-left")))
      assert.strictEqual(codeOf(listed), "Success")
    }))

  it.effect("the store on a client in context: ten stores created at once migrate without a race", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const stores = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.scoped(sqlSessionStore(pg.url))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(stores.length, 10)
      const none = yield* withSql(pg.url, () => Effect.flatMap(makeSqlSessionStore(), (store) => store.load("never-saved")))
      assert.isTrue(Option.isNone(none))
    }))
})

/** A loopback port nothing listens on. */
const closedPort = () =>
  Effect.promise(() =>
    new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const address = server.address()
        server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
      })
    })
  )

layer(Layer.empty, { timeout: 60_000, excludeTestServices: true })("SQL session store: a dead database", (it) => {
  it.effect("connection refused and a server that never answers both fail with SessionStoreFailed; no password shown", () =>
    Effect.gen(function*() {
      const port = yield* closedPort()
      const s = setup(`postgres://me:hunter2@127.0.0.1:${port}/db`)
      const refused = yield* s.build("x")
      assert.strictEqual(tagOf(refused), "SessionStoreFailed")
      assert.match(messageOf(refused), new RegExp(`Could not connect to the SQL session store: the database at postgres://me@127\\.0\\.0\\.1:${port}/db cannot be reached`))
      assert.notInclude(messageOf(refused), "hunter2")
      // a listener that accepts and never speaks: bounded by the connect timeout
      const silent = net.createServer(() => {}).listen(0, "127.0.0.1")
      yield* Effect.addFinalizer(() => Effect.sync(() => silent.close()))
      yield* Effect.promise(() => new Promise((r) => silent.once("listening", r)))
      const address = silent.address()
      const silentPort = typeof address === "object" && address !== null ? address.port : 1
      const mute = yield* setup(`postgres://me@127.0.0.1:${silentPort}/db`).build("x")
      assert.strictEqual(tagOf(mute), "SessionStoreFailed")
      const notPg = yield* setup("mysql://h/db").build("x")
      assert.match(messageOf(notPg), /is not a PostgreSQL URL/)
    }).pipe(Effect.scoped))
})
