/**
 * Named sessions kept in PostgreSQL at the CLI doors, through the BUILT binary (`npm run build`
 * first) and a private cluster: `call --session --session-store sql` reads in one process and edits
 * in the next; `serve --http` maps `X-Toolwright-Session` to a named session, so a client that
 * reconnects gets its read evidence back and an unknown name with `X-Toolwright-Resume` is a typed
 * error; a missing or dead database is a usage error (exit 2) that names the problem.
 */
import { assert, layer } from "@effect/vitest"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { Context, Effect, Layer, Redacted } from "effect"
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"
import { cliWorkspace, runCli } from "../support/cli.js"
import { tempDir } from "../support/serve.js"
import { startHttpDoor, textOf } from "../support/httpServe.js"
import { startPostgres, type TestPostgres } from "../support/postgres.js"

class Pg extends Context.Service<Pg, TestPostgres>()("test/Pg") {
  static readonly layer = Layer.effect(Pg, startPostgres())
}

const workspace = cliWorkspace("tw-sqlcli")

const readA = { file_path: "a.txt" }
const editA = { file_path: "a.txt", old_string: "hello", new_string: "bye" }

/** Whether the database holds a session of that name (a session is saved as it closes). */
const savedIn = (url: string, name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`select 1 from toolwright_sessions where name = ${name}`
    return rows.length > 0
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie)

/** The saved record of a session (its JSON text). */
const rowOf = (url: string, name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ readonly record: string }>`select record from toolwright_sessions where name = ${name}`
    return rows[0]?.record ?? "{}"
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie)
const recordOf = (text: string) => JSON.parse(text) as { readonly outputs?: ReadonlyArray<unknown> }

type ToolAnswer = { readonly content?: unknown; readonly isError?: boolean }
const callTool = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<ToolAnswer>)

/** An SDK client over HTTP sending the toolwright session headers; closed (DELETE) with the scope. */
const connectNamed = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "toolwright-sql-test", version: "0" })
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client, transport }) => Effect.promise(() => transport.terminateSession().then(() => client.close()).catch(() => undefined))
  )

layer(Pg.layer, { timeout: 120_000, excludeTestServices: true })("named sessions in PostgreSQL (CLI doors)", (it) => {
  it.effect("call: a read in one process lets the next process edit; nothing is written under the state dir's sessions/", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const sql = ["--session", "fix-sql", "--session-store", "sql", "--sql", pg.url]
      const read = yield* w.call("read_file", readA, sql)
      assert.strictEqual(read.code, 0, read.stderr)
      const edit = yield* w.call("edit", editA, sql)
      assert.strictEqual(edit.code, 0, edit.stderr)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      assert.isFalse(fs.existsSync(path.join(w.state, "sessions")))
      // the env variable names the database too; the file store of the same name knows nothing
      const viaEnv = yield* w.call("edit", { ...editA, old_string: "bye", new_string: "ciao" }, ["--session", "fix-sql", "--session-store", "sql"], {
        TOOLWRIGHT_SQL_URL: pg.url
      })
      assert.strictEqual(viaEnv.code, 0, viaEnv.stderr)
      const fileStore = yield* w.call("edit", { ...editA, old_string: "ciao", new_string: "x" }, ["--session", "fix-sql"])
      assert.strictEqual(fileStore.code, 1)
      assert.match(fileStore.stderr, /\[edit_requires_prior_read\]/)
    }).pipe(Effect.scoped))

  it.effect("serve --http: X-Toolwright-Session brings a reconnecting client its reads back; unknown with resume is session_not_found", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const door = yield* startHttpDoor(["--root", w.root, "--state-dir", w.state, "--session-store", "sql", "--sql", pg.url])
      yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* connectNamed(door.url, { "X-Toolwright-Session": "http-1" })
        const read = yield* callTool(client, "read_file", readA)
        assert.notStrictEqual(read.isError, true, textOf(read))
      }))
      // the session is saved when the server closes it after the DELETE
      for (let i = 0; i < 300 && !(yield* savedIn(pg.url, "http-1")); i++) yield* Effect.sleep("50 millis")
      assert.isTrue(yield* savedIn(pg.url, "http-1"))
      const edited = yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* connectNamed(door.url, { "X-Toolwright-Session": "http-1", "X-Toolwright-Resume": "true" })
        return yield* callTool(client, "edit", editA)
      }))
      assert.notStrictEqual(edited.isError, true, textOf(edited))
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      const anonymous = yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* connectNamed(door.url, {})
        return yield* callTool(client, "edit", { ...editA, old_string: "bye" })
      }))
      assert.strictEqual(anonymous.isError, true)
      assert.match(textOf(anonymous), /edit_requires_prior_read|read/i)
      const ghost = yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* connectNamed(door.url, { "X-Toolwright-Session": "ghost", "X-Toolwright-Resume": "true" })
        return yield* Effect.promise(() =>
          client.callTool({ name: "read_file", arguments: readA }).then(() => "answered", (e: unknown) => String(e))
        )
      }))
      assert.match(ghost, /session_not_found: There is no saved session "ghost"/)
      assert.isFalse(yield* savedIn(pg.url, "ghost"))
    }).pipe(Effect.scoped))

  it.effect("call: the todo list follows the session to another state dir (another machine); an output left on the first is dropped", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const sql = ["--session", "moves", "--session-store", "sql", "--sql", pg.url]
      const todos = [{ content: "Port the parser", status: "in_progress", id: "1" }]
      assert.strictEqual((yield* w.call("todo_write", { todos }, sql)).code, 0)
      const grep = yield* w.call("run_shell_command", { command: "seq 1 3000" }, sql, { TOOLWRIGHT_TRUNCATE_CHARS: "2000" })
      assert.strictEqual(grep.code, 0, grep.stderr)
      assert.strictEqual(recordOf(yield* rowOf(pg.url, "moves")).outputs?.length, 1)
      assert.isFalse(fs.existsSync(path.join(w.state, "todos")))
      // a second machine: same checkout path, its own state dir
      const elsewhere = yield* tempDir("tw-sqlcli-other-state-")
      const next = yield* runCli(["call", "read_file", JSON.stringify(readA), "--json", "--state-dir", elsewhere, ...sql], { cwd: w.root })
      assert.strictEqual(next.code, 0, next.stderr)
      assert.include(next.stdout, "This session was resumed and its todo list")
      assert.include(next.stdout, JSON.stringify(JSON.stringify(todos)).slice(1, -1))
      assert.isUndefined(recordOf(yield* rowOf(pg.url, "moves")).outputs)
    }).pipe(Effect.scoped))

  it.effect("usage errors: no database named; a dead database fails fast with session_store_failed and no password", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const missing = yield* w.call("read_file", readA, ["--session", "s", "--session-store", "sql"], { TOOLWRIGHT_SQL_URL: "" })
      assert.strictEqual(missing.code, 2)
      assert.match(missing.stderr, /--session-store sql needs the database/)
      const port = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const server = net.createServer().listen(0, "127.0.0.1", () => {
            const address = server.address()
            server.close(() => resolve(typeof address === "object" && address !== null ? address.port : 1))
          })
        })
      )
      const dead = yield* w.call("read_file", readA, ["--session", "s", "--sql", `postgres://me:hunter2@127.0.0.1:${port}/db`])
      assert.strictEqual(dead.code, 2)
      assert.match(dead.stderr, /^error: session_store_failed: Could not connect to the SQL session store: the database at postgres:\/\/me@127\.0\.0\.1:\d+\/db cannot be reached/)
      assert.notInclude(dead.stderr, "hunter2")
      // the HTTP door connects once at start: a dead database stops it there, with the same error
      const door = yield* runCli(["serve", "--http", "127.0.0.1:0", "--root", w.root, "--sql", `postgres://me:hunter2@127.0.0.1:${port}/db`], { cwd: w.root })
      assert.strictEqual(door.code, 2)
      assert.match(door.stderr, /session_store_failed: Could not connect to the SQL session store/)
      assert.notInclude(door.stderr, "hunter2")
    }).pipe(Effect.scoped))
})
