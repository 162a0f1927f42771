/**
 * PostgreSQL going away under the built CLI (`npm run build` first), on a private cluster that the
 * tests stop, start again and freeze: tools that need no SQL keep working, the task board answers
 * `task_store_unavailable` saying nothing was changed, a session closed while the database is down
 * is kept under `<state-dir>/unsaved-sessions/` (said on stderr) and reaches the database when
 * its name starts again, the server survives and reconnects by itself; `call` against a stopped,
 * frozen, password-protected or missing database fails with exit 2 and a message without the
 * password.
 */
import { assert, layer } from "@effect/vitest"
import type { ChildProcess } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { cliWorkspace } from "../support/cli.js"
import { eventually, startHttpDoor } from "../support/httpServe.js"
import { pauseServer, resumeServer, startPostgres, startServer, stopServer, type TestPostgres } from "../support/postgres.js"
import { cliUnderTest } from "../support/serve.js"

class Pg extends Context.Service<Pg, TestPostgres>()("test/OutagePg") {
  static readonly layer = Layer.effect(Pg, startPostgres())
}

const workspace = cliWorkspace("tw-sqlout")

interface Answer {
  readonly isError: boolean
  readonly code: string | undefined
  readonly text: string
}

const answerOf = (result: { readonly content?: unknown; readonly isError?: boolean | undefined; readonly _meta?: unknown }): Answer => {
  const content = Array.isArray(result.content) ? result.content as Array<{ readonly text?: string }> : []
  const meta = (result._meta ?? {}) as Record<string, unknown>
  const code = meta["toolwright/errorType"]
  return {
    isError: result.isError === true,
    code: typeof code === "string" ? code : undefined,
    text: content.map((c) => c.text ?? "").join("\n")
  }
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 }).then(answerOf))

/** `toolwright serve` on stdio with its stderr collected; `end()` closes stdin and waits for the process to exit by itself. */
const serveStdio = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [cliUnderTest, "serve", ...args],
        stderr: "pipe",
        env: { ...(process.env as Record<string, string>), NO_COLOR: "1" }
      })
      let stderr = ""
      transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
      const client = new Client({ name: "toolwright-outage-test", version: "0" })
      await client.connect(transport)
      // the SDK's close() kills the server 2 s after closing stdin; `end` waits for it to exit on its own
      const child = (transport as unknown as { readonly _process?: ChildProcess })._process!
      const end = Effect.promise(() =>
        new Promise<number | null>((resolve) => {
          child.once("exit", (code) => resolve(code))
          child.stdin!.end()
        })
      )
      return { client, stderr: () => stderr, end, child }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** Whether the database holds a session of that name. */
const savedIn = (url: string, name: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql`select 1 from toolwright_sessions where name = ${name}`
    return rows.length > 0
  }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url) })), Effect.orDie)

const unsavedFiles = (state: string) => {
  const dir = path.join(state, "unsaved-sessions")
  return fs.existsSync(dir) ? fs.readdirSync(dir) : []
}

layer(Pg.layer, { timeout: 240_000, excludeTestServices: true })("PostgreSQL outages (CLI doors)", (it) => {
  it.effect("serve (stdio): the database stopped mid-session, back, and stopped again as the session closes", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const sqlFlags = ["--session", "out-1", "--session-store", "sql", "--sql", pg.url]
      const serve = yield* serveStdio(["--root", w.root, "--state-dir", w.state, ...sqlFlags])
      assert.isFalse((yield* call(serve.client, "read_file", { file_path: "a.txt" })).isError)
      assert.isFalse((yield* call(serve.client, "task_create", { subject: "First", description: "one" })).isError)

      yield* stopServer(pg)
      // tools that need no SQL keep working
      const listing = yield* call(serve.client, "list_directory", { path: "." })
      assert.isFalse(listing.isError, listing.text)
      assert.include(listing.text, "a.txt")
      const listed = yield* call(serve.client, "task_list", {})
      assert.strictEqual(listed.code, "task_store_unavailable", listed.text)
      assert.match(listed.text, /^Could not read the task board ".*": its SQL database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/toolwright cannot be reached/)
      assert.include(listed.text, "Nothing was changed.")
      assert.include(listed.text, "try the call again in a minute")
      const created = yield* call(serve.client, "task_create", { subject: "Second", description: "two" })
      assert.strictEqual(created.code, "task_store_unavailable", created.text)
      assert.include(created.text, "Nothing was changed.")

      // the database is back: the same server connects again by itself
      yield* startServer(pg)
      const again = yield* call(serve.client, "task_create", { subject: "Third", description: "three" })
      assert.isFalse(again.isError, again.text)
      assert.include(again.text, "Task #2 created")
      const board = yield* call(serve.client, "task_list", {})
      assert.include(board.text, "First")
      assert.notInclude(board.text, "Second")

      // closing while the database is down: the record is kept on disk and the loss is said on stderr
      yield* stopServer(pg)
      const code = yield* serve.end
      assert.strictEqual(code, 0, serve.stderr())
      assert.match(serve.stderr(), /session "out-1" was not saved: Could not connect to the SQL session store/)
      assert.match(serve.stderr(), /Its record is kept in \S+unsaved-sessions\/out-1@/)
      assert.lengthOf(unsavedFiles(w.state), 1)

      // the next start of the name hands the kept record to the database: its read still counts
      yield* startServer(pg)
      assert.isFalse(yield* savedIn(pg.url, "out-1"))
      const edit = yield* w.call("edit", { file_path: "a.txt", old_string: "hello", new_string: "bye" }, sqlFlags)
      assert.strictEqual(edit.code, 0, edit.stderr)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      assert.lengthOf(unsavedFiles(w.state), 0)
      assert.isTrue(yield* savedIn(pg.url, "out-1"))
    }).pipe(Effect.scoped))

  it.effect("serve --http: a session closed while the database is down does not stop the server; new sessions work when it is back", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const door = yield* startHttpDoor(["--root", w.root, "--state-dir", w.state, "--session-store", "sql", "--sql", pg.url])
      const connect = (headers: Record<string, string>) =>
        Effect.acquireRelease(
          Effect.promise(async () => {
            const client = new Client({ name: "toolwright-outage-http", version: "0" })
            const transport = new StreamableHTTPClientTransport(new URL(door.url), { requestInit: { headers } })
            await client.connect(transport)
            return { client, transport }
          }),
          ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
        )
      yield* Effect.scoped(Effect.gen(function*() {
        const { client, transport } = yield* connect({ "X-Toolwright-Session": "http-out" })
        assert.isFalse((yield* call(client, "read_file", { file_path: "a.txt" })).isError)
        yield* stopServer(pg)
        const listed = yield* call(client, "task_list", {})
        assert.strictEqual(listed.code, "task_store_unavailable", listed.text)
        yield* Effect.promise(() => transport.terminateSession())
      }))
      assert.isTrue(yield* eventually(() => door.stderr().includes(`session "http-out" was not saved`)), door.stderr())
      assert.include(door.stderr(), "unsaved-sessions/http-out@")
      assert.strictEqual(door.child.exitCode, null, "the server is still running")

      yield* startServer(pg)
      const edited = yield* Effect.scoped(Effect.gen(function*() {
        const { client } = yield* connect({ "X-Toolwright-Session": "http-out", "X-Toolwright-Resume": "true" })
        const edit = yield* call(client, "edit", { file_path: "a.txt", old_string: "hello", new_string: "bye" })
        const task = yield* call(client, "task_create", { subject: "After", description: "the outage" })
        return { edit, task }
      }))
      assert.isFalse(edited.edit.isError, edited.edit.text)
      assert.isFalse(edited.task.isError, edited.task.text)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      assert.lengthOf(unsavedFiles(w.state), 0)
    }).pipe(Effect.scoped))

  it.effect("a frozen database: task tools end in task_store_unavailable at the deadline, other tools go on, and it recovers", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      const sqlFlags = ["--session", "frozen", "--session-store", "sql", "--sql", pg.url]
      const serve = yield* serveStdio(["--root", w.root, "--state-dir", w.state, ...sqlFlags])
      assert.isFalse((yield* call(serve.client, "task_list", {})).isError)
      yield* Effect.gen(function*() {
        yield* pauseServer(pg)
        const stuck = yield* call(serve.client, "task_list", {})
        assert.strictEqual(stuck.code, "task_store_unavailable", stuck.text)
        assert.include(stuck.text, "did not answer within 10 s")
        assert.isFalse((yield* call(serve.client, "read_file", { file_path: "a.txt" })).isError)
        const change = yield* call(serve.client, "task_create", { subject: "Frozen", description: "maybe" })
        assert.strictEqual(change.code, "task_store_unavailable", change.text)
      }).pipe(Effect.ensuring(resumeServer(pg)))
      const after = yield* call(serve.client, "task_list", {})
      assert.isFalse(after.isError, after.text)
      yield* serve.end
      assert.isTrue(yield* savedIn(pg.url, "frozen"))
      assert.lengthOf(unsavedFiles(w.state), 0)
    }).pipe(Effect.scoped))

  it.effect("call: a stopped database fails with exit 2 and says so; the session starts when it is back", () =>
    Effect.gen(function*() {
      const pg = yield* Pg
      const w = yield* workspace
      yield* stopServer(pg)
      const down = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "down", "--sql", pg.url])
      yield* startServer(pg)
      assert.strictEqual(down.code, 2)
      assert.match(down.stderr, /^error: session_store_failed: Could not connect to the SQL session store: the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/toolwright cannot be reached \(PgConnection: Failed to connect: connect ECONNREFUSED/)
      const up = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "down", "--sql", pg.url])
      assert.strictEqual(up.code, 0, up.stderr)
    }).pipe(Effect.scoped))
})

layer(Layer.effect(Pg, startPostgres("toolwright", { password: "pw-s3cret" })), { timeout: 120_000, excludeTestServices: true })(
  "PostgreSQL refusing the login (CLI doors)",
  (it) => {
    it.effect("a wrong password, no such database, a frozen server: exit 2, a message naming the problem, no password", () =>
      Effect.gen(function*() {
        const pg = yield* Pg
        const w = yield* workspace
        const at = `127.0.0.1:${pg.port}`
        const wrong = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "pw", "--sql", `postgres://postgres:hunter2@${at}/toolwright`])
        assert.strictEqual(wrong.code, 2)
        assert.match(wrong.stderr, /the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/toolwright refused the login \(.*password authentication failed for user "postgres"\); check the user name and password in the URL/)
        assert.notInclude(wrong.stderr, "hunter2")
        const none = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "pw", "--sql", `postgres://postgres:pw-s3cret@${at}/nope`])
        assert.strictEqual(none.code, 2)
        assert.match(none.stderr, /the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/nope has no database of that name \(.*database "nope" does not exist\)/)
        assert.notInclude(none.stderr, "pw-s3cret")
        const right = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "pw", "--sql", pg.url])
        assert.strictEqual(right.code, 0, right.stderr)
        yield* pauseServer(pg)
        const frozen = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "pw", "--sql", pg.url]).pipe(
          Effect.ensuring(resumeServer(pg))
        )
        assert.strictEqual(frozen.code, 2)
        assert.match(frozen.stderr, /session_store_failed: Could not connect to the SQL session store: the database at postgres:\/\/postgres@127\.0\.0\.1:\d+\/toolwright cannot be reached \(PgConnection: Connection timed out/)
        assert.notInclude(frozen.stderr, "pw-s3cret")
      }).pipe(Effect.scoped))
  }
)
