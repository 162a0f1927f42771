/**
 * The HTTP door as a cluster front (`toolwright serve --http … --cluster --sql URL`): two runner
 * processes and the front process of the built CLI on a private PostgreSQL, MCP SDK clients over
 * Streamable HTTP. Sessions spread over both runners; a saved output is read through the front; a
 * named session continues from a second connection; a client's cancel stops the command on the runner; a stopped runner's sessions go on
 * on the other; a start without a reachable database, or without one at all, is a clear error.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { runCli } from "../support/cli.js"
import { startRunner } from "../support/cluster.js"
import { connectHttp, eventually, type HttpDoor, processesWith, startHttpDoor, textOf } from "../support/httpServe.js"
import { freePort, startPostgres } from "../support/postgres.js"
import { tempDir } from "../support/serve.js"

interface ToolResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly _meta?: Record<string, unknown>
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }) as Promise<ToolResult>)
const errorType = (r: ToolResult) => r._meta?.["toolwright/errorType"]
const allText = (r: ToolResult) => r.content.map((c) => c.text ?? "").join("\n")

/** The runner the front routed an entity to when a session of it opened (the front says so on stderr). */
const runnersOf = (door: HttpDoor, entityId: string): Array<string> =>
  [...door.stderr().matchAll(/session \S+ → entity (.+) on runner (\S+)/g)].filter((m) => m[1] === entityId).map((m) => m[2]!)

/** A session through the front: its client and the entity's runner (the MCP session id is the entity id). */
const session = (door: HttpDoor, headers?: Record<string, string>) =>
  Effect.gen(function*() {
    const { client, transport } = yield* connectHttp(door.url, headers ? { headers } : {})
    yield* Effect.addFinalizer(() => Effect.promise(() => transport.terminateSession().catch(() => undefined)))
    const entity = headers?.["x-toolwright-session"] ?? transport.sessionId!
    return { client, transport, runner: runnersOf(door, entity).at(-1)! }
  })

/** Waits until new sessions land on every one of `names` (a runner that joins takes shards within seconds). */
const awaitSpread = (door: HttpDoor, names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (let round = 0; round < 60; round++) {
      const seen = new Set<string>()
      for (let i = 0; i < 4; i++) seen.add((yield* Effect.scoped(session(door))).runner)
      if (names.every((n) => seen.has(n))) return
      yield* Effect.sleep("1 second")
    }
    assert.fail(`the front never routed to all of ${names.join(", ")}`)
  })

describe("serve --http --cluster: the HTTP door as a cluster front", () => {
  it.live("routes MCP sessions to their entities on two runners; named sessions continue; a stopped runner's sessions go on", () =>
    Effect.gen(function*() {
      const pg = yield* startPostgres()
      const root = yield* tempDir("tw-front-root-")
      const stateDir = yield* tempDir("tw-front-state-")
      const a = yield* startRunner({ sqlUrl: pg.url, root, stateDir })
      const b = yield* startRunner({ sqlUrl: pg.url, root, stateDir })
      const door = yield* startHttpDoor(["--cluster", "--sql", pg.url])
      yield* awaitSpread(door, [a.name, b.name])

      // tools/list and the instructions come from the session on its runner.
      const first = yield* session(door)
      const listed = yield* Effect.promise(() => first.client.listTools())
      const names = listed.tools.map((t) => t.name)
      for (const tool of ["read_file", "edit", "run_shell_command", "tool_search"]) assert.include(names, tool)
      assert.include(first.client.getInstructions() ?? "", "toolwright gives you tools")

      // A cut result links to its saved output on the runner, which the front reads through the entity.
      const long = yield* call(first.client, "run_shell_command", { command: "seq 1 50000" })
      const link = long.content.find((c) => c.type === "resource_link") as { readonly uri?: string } | undefined
      assert.isDefined(link?.uri, `a resource_link in ${JSON.stringify(long.content.map((c) => c.type))}`)
      const page = yield* Effect.promise(() => first.client.readResource({ uri: link!.uri! }))
      assert.include((page.contents[0] as { text: string }).text, "Output: 1\n2\n3\n4\n")
      const missing = yield* Effect.promise(() =>
        first.client.readResource({ uri: "toolwright://output/no-such-output" }).then(() => "read", (e: unknown) => String(e))
      )
      assert.include(missing, "no saved output 'no-such-output'")

      // 8 sessions, each reads then edits its own file: both runners host some.
      const sessions = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => `f${i}`), (file) =>
        Effect.gen(function*() {
          fs.writeFileSync(path.join(root, `${file}.txt`), `hello from ${file}\n`)
          const s = yield* session(door)
          const read = yield* call(s.client, "read_file", { file_path: `${file}.txt` })
          assert.include(allText(read), `hello from ${file}`)
          const edit = yield* call(s.client, "edit", { file_path: `${file}.txt`, old_string: "hello", new_string: "bye" })
          assert.notStrictEqual(edit.isError, true, allText(edit))
          assert.strictEqual(fs.readFileSync(path.join(root, `${file}.txt`), "utf8"), `bye from ${file}\n`)
          return { ...s, file }
        }))
      const onA = sessions.filter((s) => s.runner === a.name)
      const onB = sessions.filter((s) => s.runner === b.name)
      yield* Effect.log(`placement through the front: ${onA.length} sessions on runner A, ${onB.length} on runner B`)
      assert.strictEqual(onA.length + onB.length, 8)
      assert.isAbove(onA.length, 0, "runner A hosts some sessions")
      assert.isAbove(onB.length, 0, "runner B hosts some sessions")

      // A named session: read in client A, edit in client B after A disconnected.
      fs.writeFileSync(path.join(root, "named.txt"), "one\n")
      const named = { "x-toolwright-session": "front-named" }
      yield* Effect.scoped(Effect.gen(function*() {
        const s = yield* session(door, named)
        assert.include(allText(yield* call(s.client, "read_file", { file_path: "named.txt" })), "one")
      }))
      const second = yield* session(door, named)
      const edited = yield* call(second.client, "edit", { file_path: "named.txt", old_string: "one", new_string: "two" })
      assert.notStrictEqual(edited.isError, true, allText(edited))
      assert.strictEqual(fs.readFileSync(path.join(root, "named.txt"), "utf8"), "two\n")
      assert.strictEqual(runnersOf(door, "front-named").length, 2, "two connections of one entity")

      // A session that cannot start on its runner refuses the initialize with the reason.
      const refused = yield* Effect.promise(() => {
        const client = new Client({ name: "toolwright-front-test", version: "0" })
        const transport = new StreamableHTTPClientTransport(new URL(door.url), {
          requestInit: { headers: { "x-toolwright-session": "no spaces allowed" } }
        })
        return client.connect(transport).then(() => "connected", (e: unknown) => String(e))
      })
      assert.include(refused, "session_unavailable: ")
      assert.include(refused, "is not a session name")

      // A client's cancel interrupts the call on the runner: its command ends.
      const marker = `front-cancel-${process.pid}`
      const abort = new AbortController()
      const cancelled = first.client.callTool(
        { name: "run_shell_command", arguments: { command: `echo start; exec -a ${marker} sleep 300` } },
        undefined,
        { signal: abort.signal, timeout: 600_000 }
      ).then((r) => `answered: ${JSON.stringify(r)}`, (e: unknown) => String(e))
      let settled = ""
      void cancelled.then((r) => (settled = r))
      assert.isTrue(yield* eventually(() => processesWith(marker).length > 0 || settled !== "", 30_000), "the command started on a runner")
      assert.strictEqual(settled, "", "the call is still running")
      abort.abort("the user pressed stop")
      assert.include(yield* Effect.promise(() => cancelled), "stop")
      assert.isTrue(yield* eventually(() => processesWith(marker).length === 0, 30_000), "the cancelled command ended")

      // Runner A stops: its sessions continue on B through the same MCP sessions. A file changed
      // since the read must be read again; an unchanged one can be edited at once.
      const changed = onA[0]!
      fs.writeFileSync(path.join(root, `${changed.file}.txt`), `changed behind ${changed.file}\n`)
      yield* a.stop("SIGTERM")
      for (const s of onA) {
        const edit = yield* call(s.client, "edit", { file_path: `${s.file}.txt`, old_string: "bye", new_string: "ciao" })
        if (s === changed) {
          assert.strictEqual(errorType(edit), "edit_requires_prior_read", allText(edit))
        } else {
          assert.notStrictEqual(edit.isError, true, `${s.file}: ${allText(edit)}`)
          assert.strictEqual(fs.readFileSync(path.join(root, `${s.file}.txt`), "utf8"), `ciao from ${s.file}\n`)
        }
      }
      for (const s of onB) {
        const edit = yield* call(s.client, "edit", { file_path: `${s.file}.txt`, old_string: "bye", new_string: "ciao" })
        assert.notStrictEqual(edit.isError, true, `${s.file}: ${allText(edit)}`)
      }
      assert.include(textOf(yield* call(changed.client, "read_file", { file_path: `${changed.file}.txt` })), "changed behind")
    }).pipe(Effect.scoped), 300_000)

  it.live("approvals travel back through the front to the client whose call asked (elicitation)", () =>
    Effect.gen(function*() {
      const pg = yield* startPostgres()
      const root = yield* tempDir("tw-front-approve-root-")
      const stateDir = yield* tempDir("tw-front-approve-state-")
      yield* startRunner({ sqlUrl: pg.url, root, stateDir, extraArgs: ["--approval", "default"] })
      const door = yield* startHttpDoor(["--cluster", "--sql", pg.url])
      const asked: Array<string> = []
      // Each client answers its own way: allow, allow with its own text (an amendment), deny.
      const connect = (answer: "allow" | "amend" | "deny") =>
        Effect.tap(connectHttp(door.url, { capabilities: { elicitation: {} } }), ({ client }) =>
          Effect.sync(() =>
            client.setRequestHandler(ElicitRequestSchema, (request) => {
              asked.push(`${answer}: ${request.params.message}`)
              if (answer === "deny") return { action: "decline" }
              return { action: "accept", content: answer === "amend" ? { decision: "proceed_once", new_string: "amended by a person" } : { decision: "proceed_once" } }
            })
          ))
      for (const name of ["allow", "amend", "deny", "mute"]) fs.writeFileSync(path.join(root, `${name}.txt`), `proposal for ${name}\n`)
      const allow = (yield* connect("allow")).client
      const amend = (yield* connect("amend")).client
      const deny = (yield* connect("deny")).client
      // A client without elicitation: nobody can be asked, as with `serve` itself.
      const mute = (yield* connectHttp(door.url)).client
      const editOf = (client: Client, name: string) =>
        Effect.gen(function*() {
          assert.include(allText(yield* call(client, "read_file", { file_path: `${name}.txt` })), `proposal for ${name}`)
          return yield* call(client, "edit", { file_path: `${name}.txt`, old_string: `proposal for ${name}`, new_string: `edited by ${name}` })
        })
      const [allowed, amended, denied, unasked] = yield* Effect.all(
        [editOf(allow, "allow"), editOf(amend, "amend"), editOf(deny, "deny"), editOf(mute, "mute")],
        { concurrency: 4 }
      )
      const onDisk = (name: string) => fs.readFileSync(path.join(root, `${name}.txt`), "utf8")
      assert.notStrictEqual(allowed.isError, true, allText(allowed))
      assert.strictEqual(onDisk("allow"), "edited by allow\n")
      assert.notStrictEqual(amended.isError, true, allText(amended))
      assert.strictEqual(onDisk("amend"), "amended by a person\n")
      assert.include(allText(amended), "The user modified")
      assert.isTrue(denied.isError)
      assert.strictEqual(denied._meta?.["toolwright/cancelled"], true, allText(denied))
      assert.strictEqual(onDisk("deny"), "proposal for deny\n")
      assert.isTrue(unasked.isError)
      assert.include(allText(unasked), "cannot ask for approval")
      assert.strictEqual(onDisk("mute"), "proposal for mute\n")
      // Each question went to the client whose call asked it, and only to it.
      assert.strictEqual(asked.length, 3, asked.join("\n"))
      for (const name of ["allow", "amend", "deny"]) {
        const mine = asked.filter((line) => line.startsWith(`${name}:`))
        assert.strictEqual(mine.length, 1, asked.join("\n"))
        assert.include(mine[0]!, `${name}.txt`)
      }
    }).pipe(Effect.scoped), 300_000)

  it.live("start errors: --cluster without a database is a usage error; an unreachable one fails the start", () =>
    Effect.gen(function*() {
      const cwd = yield* tempDir("tw-front-cli-")
      const env = { TOOLWRIGHT_SQL_URL: "" }
      const usage = yield* runCli(["serve", "--http", "127.0.0.1:0", "--cluster"], { cwd, env })
      assert.strictEqual(usage.code, 2, usage.stderr)
      assert.include(usage.stderr, "--sql postgres://")

      const noHttp = yield* runCli(["serve", "--cluster", "--sql", "postgres://x@127.0.0.1:1/x"], { cwd, env })
      assert.strictEqual(noHttp.code, 2, noHttp.stderr)
      assert.include(noHttp.stderr, "--http [HOST:]PORT")

      const port = yield* Effect.promise(freePort)
      const unreachable = yield* runCli(["serve", "--http", "127.0.0.1:0", "--cluster", "--sql", `postgres://nobody@127.0.0.1:${port}/x`], { cwd, env })
      assert.notStrictEqual(unreachable.code, 0)
      assert.include(unreachable.stderr, "Cannot join the cluster: its PostgreSQL (--sql) did not answer")
      assert.notInclude(unreachable.stderr, "listening on")
    }).pipe(Effect.scoped), 120_000)
})
