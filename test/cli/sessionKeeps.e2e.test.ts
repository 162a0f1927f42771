/**
 * What a named session keeps besides read evidence, across real processes of the BUILT binary
 * (`npm run build` first), file store: the todo list written by one `call` is shown to the next
 * process; an output saved in one process is read as an MCP resource (and with read_file) from the
 * next; the edit backups of every process of the session land in one history directory; an HTTP
 * client reconnecting as the same session (`X-Toolwright-Session`) gets its outputs and todos back.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { makeFileHistory } from "../../src/text/history.js"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { cliWorkspace } from "../support/cli.js"
import { eventually, startHttpDoor } from "../support/httpServe.js"
import { connectServe } from "../support/serve.js"

const workspace = cliWorkspace("tw-keeps")

/** An SDK client of the HTTP door naming a toolwright session; closed (DELETE) with the scope. */
const connectNamed = (url: string, headers: Record<string, string>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "toolwright-keeps-test", version: "0" })
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client, transport }) => Effect.promise(() => transport.terminateSession().then(() => client.close()).catch(() => undefined))
  ).pipe(Effect.map(({ client }) => client))

const todos = [
  { content: "Fix the login form", status: "completed", id: "1" },
  { content: "Run the test suite", status: "in_progress", id: "2" }
]

/** The text parts of one `--json` result line. */
const contentText = (stdout: string): string => {
  const line = JSON.parse(stdout.trim().split("\n").at(-1)!) as { content?: ReadonlyArray<{ type: string; text?: string }> }
  return (line.content ?? []).map((p) => p.text ?? "").join("\n")
}

/** A command whose output is saved (over TOOLWRIGHT_TRUNCATE_CHARS=2000). */
const seq = { command: "seq 1 3000" }
const cutEnv = { TOOLWRIGHT_TRUNCATE_CHARS: "2000" }

describe("a named session across processes (call --session, serve --session, serve --http): what else it keeps", () => {
  it.live("todos written in one process are shown to the next (once the list has unfinished items)", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const write = yield* w.call("todo_write", { todos }, ["--session", "plan"])
      assert.strictEqual(write.code, 0, write.stderr)
      const next = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "plan", "--json"])
      assert.strictEqual(next.code, 0, next.stderr)
      const text = contentText(next.stdout)
      assert.include(text, "This session was resumed and its todo list")
      assert.include(text, JSON.stringify(todos))
      // another session knows nothing of it
      const other = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "other", "--json"])
      assert.notInclude(contentText(other.stdout), "todo list")
      // a finished list is not announced
      const done = todos.map((t) => ({ ...t, status: "completed" }))
      assert.strictEqual((yield* w.call("todo_write", { todos: done }, ["--session", "plan"])).code, 0)
      const after = yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "plan", "--json"])
      assert.notInclude(contentText(after.stdout), "todo list")
    }), 90_000)

  it.live("an output saved in one process is read in the next: as a resource over serve, and with read_file", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const grep = yield* w.call("run_shell_command", seq, ["--session", "out", "--json"], cutEnv)
      assert.strictEqual(grep.code, 0, grep.stderr)
      const dir = path.join(w.state, "outputs", "out")
      const saved = fs.readdirSync(dir).filter((f) => f.endsWith(".output"))
      assert.strictEqual(saved.length, 1, contentText(grep.stdout))
      const id = saved[0]!.replace(/\.output$/, "")
      const record = JSON.parse(fs.readFileSync(path.join(w.state, "sessions", "out.json"), "utf8"))
      assert.deepStrictEqual(record.outputs.map((o: { id: string; path: string }) => [o.id, o.path]), [[id, `outputs/out/${id}.output`]])

      const [listed, page, read] = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connectServe(["--root", w.root, "--state-dir", w.state, "--session", "out"])
        const listed = yield* Effect.promise(() => client.listResources())
        const page = yield* Effect.promise(() => client.readResource({ uri: `toolwright://output/${id}?offset=0&limit=3` }))
        const read = yield* Effect.promise(() =>
          client.callTool({ name: "read_file", arguments: { file_path: path.join(dir, `${id}.output`) } })
        )
        return [listed, page, read] as const
      }))
      assert.deepStrictEqual(listed.resources.map((r) => r.name), [id])
      assert.match(String((page.contents[0] as { readonly text?: string }).text), /^Command: seq 1 3000\n/)
      assert.notStrictEqual(read.isError, true, JSON.stringify(read.content))
      // the second process did not remove it as scratch when it closed
      assert.isTrue(fs.existsSync(path.join(dir, `${id}.output`)))

      // a file gone between processes is dropped from the record on the next resume
      fs.rmSync(path.join(dir, `${id}.output`))
      assert.strictEqual((yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "out"])).code, 0)
      const after = JSON.parse(fs.readFileSync(path.join(w.state, "sessions", "out.json"), "utf8"))
      assert.isUndefined(after.outputs)
    }), 90_000)

  it.live("the before-images of every process of the session are in one history directory", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const edit = (from: string, to: string) => w.call("edit", { file_path: "a.txt", old_string: from, new_string: to }, ["--session", "hist"])
      assert.strictEqual((yield* w.call("read_file", { file_path: "a.txt" }, ["--session", "hist"])).code, 0)
      assert.strictEqual((yield* edit("hello", "bye")).code, 0)
      assert.strictEqual((yield* edit("bye", "ciao")).code, 0)
      assert.deepStrictEqual(fs.readdirSync(path.join(w.state, "history")), ["hist"])
      const history = makeFileHistory({ dir: path.join(w.state, "history", "hist") })
      const entries = yield* history.entries
      assert.deepStrictEqual(entries.map((e) => [e.tool, path.basename(e.path)]), [["edit", "a.txt"], ["edit", "a.txt"]])
      const images = yield* Effect.forEach(entries, (e) => history.read(e.id))
      assert.deepStrictEqual(images.map((b) => Buffer.from(b!).toString("utf8")), ["hello world\nsecond line\n", "bye world\nsecond line\n"])
    }), 90_000)

  it.live("serve --http: a client reconnecting as the same session gets its saved outputs and todo list back", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const door = yield* startHttpDoor(["--root", w.root, "--state-dir", w.state], cutEnv)
      const record = path.join(w.state, "sessions", "web.json")
      yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connectNamed(door.url, { "X-Toolwright-Session": "web" })
        const wrote = yield* Effect.promise(() => client.callTool({ name: "todo_write", arguments: { todos } }))
        assert.notStrictEqual(wrote.isError, true, JSON.stringify(wrote.content))
        const ran = yield* Effect.promise(() => client.callTool({ name: "run_shell_command", arguments: seq }))
        assert.notStrictEqual(ran.isError, true, JSON.stringify(ran.content))
      }))
      // saved when the door closes the MCP session after the DELETE
      assert.isTrue(yield* eventually(() => fs.existsSync(record) && JSON.parse(fs.readFileSync(record, "utf8")).outputs?.length === 1))
      const id = JSON.parse(fs.readFileSync(record, "utf8")).outputs[0].id as string
      const [listed, page, read] = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connectNamed(door.url, { "X-Toolwright-Session": "web", "X-Toolwright-Resume": "true" })
        const listed = yield* Effect.promise(() => client.listResources())
        const page = yield* Effect.promise(() => client.readResource({ uri: `toolwright://output/${id}?offset=0&limit=2` }))
        const read = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "a.txt" } }))
        return [listed, page, read] as const
      }))
      assert.deepStrictEqual(listed.resources.map((r) => r.name), [id])
      assert.match(String((page.contents[0] as { readonly text?: string }).text), /^Command: seq 1 3000\n/)
      const text = (read.content as ReadonlyArray<{ readonly text?: string }>).map((c) => c.text ?? "").join("\n")
      assert.include(text, "This session was resumed and its todo list")
      assert.include(text, JSON.stringify(todos))
    }).pipe(Effect.scoped), 90_000)
})
