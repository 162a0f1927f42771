import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ElicitRequestSchema, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { connectHttp, eventually, processesWith, startHttpDoor, textOf } from "../support/httpServe.js"
import { cliUnderTest, repoRoot, tempDir } from "../support/serve.js"

const call = (client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<any> }, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

describe("toolwright serve --http (the built CLI)", () => {
  it.live("serves 50 concurrent sessions, each editing its own file, with no cross-talk", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const n = 50
      for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), `value ${i}\n`)
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state, "--max-sessions", "60"])
      const clients = yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), () => connectHttp(door.url), { concurrency: "unbounded" })
      const sessionIds = new Set(clients.map(({ transport }) => transport.sessionId))
      assert.strictEqual(sessionIds.size, n)

      // each session reads and edits its own file
      yield* Effect.forEach(clients, ({ client }, i) =>
        Effect.gen(function*() {
          const read = yield* call(client, "read_file", { file_path: path.join(root, `f${i}.txt`) })
          assert.include(textOf(read), `value ${i}`)
          const edit = yield* call(client, "edit", { file_path: path.join(root, `f${i}.txt`), old_string: `value ${i}`, new_string: `edited by ${i}` })
          assert.isUndefined(edit.isError, textOf(edit))
        }), { concurrency: "unbounded", discard: true })
      for (let i = 0; i < n; i++) assert.strictEqual(fs.readFileSync(path.join(root, `f${i}.txt`), "utf8"), `edited by ${i}\n`)

      // read caches are per session: a neighbour's file was never read here, so editing it is refused
      yield* Effect.forEach(clients, ({ client }, i) =>
        Effect.gen(function*() {
          const j = (i + 1) % n
          const edit = yield* call(client, "edit", { file_path: path.join(root, `f${j}.txt`), old_string: `edited by ${j}`, new_string: "stolen" })
          assert.isTrue(edit.isError)
          assert.strictEqual(edit._meta?.["toolwright/errorType"], "edit_requires_prior_read")
        }), { concurrency: "unbounded", discard: true })
      for (let i = 0; i < n; i++) assert.strictEqual(fs.readFileSync(path.join(root, `f${i}.txt`), "utf8"), `edited by ${i}\n`)
    }), 180_000)

  it.live("refuses a missing or wrong token with 401, a foreign Origin with 403, and serves the right token", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const door = yield* startHttpDoor(
        ["--root", root, "--state-dir", state, "--allow-origin", "https://app.example.com"],
        { TOOLWRIGHT_TOKEN: "s3cret-token" }
      )
      const post = (headers: Record<string, string>) =>
        Effect.promise(() =>
          fetch(door.url, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } })
          }).then(async (r) => ({ status: r.status, text: await r.text(), auth: r.headers.get("www-authenticate") }))
        )
      const missing = yield* post({})
      assert.strictEqual(missing.status, 401)
      assert.strictEqual(missing.auth, "Bearer")
      assert.include(missing.text, "Missing bearer token")
      const wrong = yield* post({ authorization: "Bearer s3cret-tokeX" })
      assert.strictEqual(wrong.status, 401)
      assert.include(wrong.text, "Wrong bearer token")
      const foreign = yield* post({ authorization: "Bearer s3cret-token", origin: "https://evil.example" })
      assert.strictEqual(foreign.status, 403)
      assert.include(foreign.text, "--allow-origin https://evil.example")
      const allowed = yield* post({ authorization: "Bearer s3cret-token", origin: "https://app.example.com" })
      assert.strictEqual(allowed.status, 200)
      // DNS rebinding: a page's request reaches 127.0.0.1 under a foreign Host name
      const rebound = yield* Effect.promise(() =>
        new Promise<{ status: number; text: string }>((resolve, reject) => {
          const req = http.request(door.url, { method: "POST", headers: { host: "attacker.example:80", authorization: "Bearer s3cret-token" } }, (res) => {
            let text = ""
            res.on("data", (chunk) => (text += chunk))
            res.on("end", () => resolve({ status: res.statusCode ?? 0, text }))
          })
          req.on("error", reject)
          req.end("{}")
        })
      )
      assert.strictEqual(rebound.status, 403)
      assert.include(rebound.text, "is not this server's address")

      const { client } = yield* connectHttp(door.url, { token: "s3cret-token" })
      const listed = yield* Effect.promise(() => client.listTools())
      assert.include(listed.tools.map((t) => t.name), "read_file")
    }), 60_000)

  it.live("refuses to start on a non-loopback address without a token", () =>
    Effect.sync(() => {
      const env = { ...process.env }
      delete env["TOOLWRIGHT_TOKEN"]
      const result = spawnSync(process.execPath, [cliUnderTest, "serve", "--http", "0.0.0.0:0"], { encoding: "utf8", env, timeout: 60_000 })
      assert.strictEqual(result.status, 1)
      assert.strictEqual(result.stderr.split("without a bearer token").length - 1, 1, result.stderr)
      const empty = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "tw-token-")), "token")
      fs.writeFileSync(empty, "\n")
      const noToken = spawnSync(process.execPath, [cliUnderTest, "serve", "--http", "0.0.0.0:0", "--token-file", empty], { encoding: "utf8", env, timeout: 60_000 })
      assert.notStrictEqual(noToken.status, 0)
      assert.include(noToken.stderr, "is empty")
      fs.rmSync(path.dirname(empty), { recursive: true })
    }), 60_000)

  it.live("says so when its port is taken", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state])
      const taken = spawnSync(process.execPath, [cliUnderTest, "serve", "--http", new URL(door.url).host, "--root", root, "--state-dir", state], {
        encoding: "utf8",
        timeout: 60_000
      })
      assert.strictEqual(taken.status, 1)
      // said once, without a stack trace (the runtime does not report it again)
      assert.strictEqual(taken.stderr.split("Cannot listen on 127.0.0.1:").length - 1, 1, taken.stderr)
      assert.match(taken.stderr, /^toolwright serve: Cannot listen on 127\.0\.0\.1:\d+: listen EADDRINUSE/)
      assert.notInclude(taken.stderr, "    at ")
    }), 60_000)

  it.live("narrows a session's roots to the client's roots, never widening them", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const other = yield* tempDir()
      const outside = yield* tempDir()
      const state = yield* tempDir()
      fs.mkdirSync(path.join(root, "sub"))
      fs.writeFileSync(path.join(root, "sub", "in.txt"), "inside\n")
      fs.writeFileSync(path.join(root, "top.txt"), "top\n")
      fs.writeFileSync(path.join(other, "o.txt"), "other\n")
      fs.writeFileSync(path.join(outside, "x.txt"), "outside\n")
      const door = yield* startHttpDoor(["--root", root, "--root", other, "--state-dir", state])

      // the client offers root/sub and a directory the server does not serve: the session gets root/sub only
      const { client } = yield* connectHttp(door.url, { roots: [path.join(root, "sub"), outside] })
      const relative = yield* call(client, "read_file", { file_path: "in.txt" })
      assert.include(textOf(relative), "inside", "relative paths resolve against the client's first root")
      for (const denied of [path.join(root, "top.txt"), path.join(other, "o.txt"), path.join(outside, "x.txt")]) {
        const result = yield* call(client, "read_file", { file_path: denied })
        assert.strictEqual(result._meta?.["toolwright/errorType"], "path_not_in_workspace", denied)
      }

      // a client without roots gets all the server's roots
      const plain = (yield* connectHttp(door.url)).client
      assert.include(textOf(yield* call(plain, "read_file", { file_path: path.join(other, "o.txt") })), "other")

      // a client whose roots all lie outside gets no session
      const stranger = (yield* connectHttp(door.url, { roots: [outside] })).client
      const refused = yield* Effect.promise(() => stranger.listTools().then(() => "served", (error: Error) => error.message))
      assert.include(refused, "None of the client's roots")
    }), 60_000)

  it.live("asks each session's own client for approval (elicitation)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const toolsModule = path.join(repoRoot, "test", "fixtures", "serve", "tools.mjs")
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state, "--tools-module", toolsModule, "--approval", "default"])
      const asked: Array<string> = []
      const connect = (decision: "proceed_once" | "decline") =>
        Effect.tap(connectHttp(door.url, { capabilities: { elicitation: {} } }), ({ client }) =>
          Effect.sync(() =>
            client.setRequestHandler(ElicitRequestSchema, (request) => {
              asked.push(`${decision}: ${request.params.message}`)
              return decision === "decline" ? { action: "decline" } : { action: "accept", content: { decision } }
            })
          ))
      const yes = (yield* connect("proceed_once")).client
      const no = (yield* connect("decline")).client
      const [allowed, declined] = yield* Effect.all([
        call(yes, "size_of", { file_path: "abcd" }),
        call(no, "size_of", { file_path: "xy" })
      ], { concurrency: 2 })
      // a path param reaches the tool resolved against the workspace
      assert.deepStrictEqual(allowed.content, [{ type: "text", text: `length ${path.join(root, "abcd").length}` }])
      assert.isTrue(declined.isError)
      assert.strictEqual(declined._meta?.["toolwright/cancelled"], true)
      assert.strictEqual(asked.length, 2)
      assert.isTrue(asked.some((line) => line.startsWith("proceed_once:") && line.includes(`size of ${path.join(root, "abcd")}`)), asked.join("\n"))
      assert.isTrue(asked.some((line) => line.startsWith("decline:") && line.includes(`size of ${path.join(root, "xy")}`)), asked.join("\n"))
    }), 60_000)

  it.live("a session ended while its toolwright session is still starting leaves the door serving", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state])
      // the client holds its answer to roots/list: the session cannot be built until it answers
      let answer: (roots: { roots: Array<{ uri: string }> }) => void = () => {}
      const client = new Client({ name: "slow-roots", version: "0" }, { capabilities: { roots: {} } })
      let rootsAsked = false
      client.setRequestHandler(ListRootsRequestSchema, () => {
        rootsAsked = true
        return new Promise((resolve) => (answer = resolve))
      })
      const transport = new StreamableHTTPClientTransport(new URL(door.url))
      yield* Effect.promise(() => client.connect(transport))
      const id = transport.sessionId!
      // roots are asked on the response stream of the client's first request, which waits for the session
      const pending = client.listTools().then(() => "answered", (error: Error) => error.message)
      assert.isTrue(yield* eventually(() => rootsAsked), "the server asked for roots")
      yield* Effect.promise(() => transport.terminateSession())
      assert.isTrue(yield* eventually(() => door.stderr().includes(`session ${id} closed (closed by the client)`)), door.stderr())
      answer({ roots: [{ uri: `file://${root}` }] })
      yield* Effect.promise(() => client.close())
      assert.notStrictEqual(yield* Effect.promise(() => pending), "answered", "the held request was never served")

      const fresh = (yield* connectHttp(door.url)).client
      const listed = yield* Effect.promise(() => fresh.listTools())
      assert.include(listed.tools.map((t) => t.name), "read_file")
      assert.notInclude(door.stderr(), "could not start")
    }), 60_000)

  it.live("closes an idle session, after which its id is unknown (404)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state, "--idle-timeout", "1"])
      const { client, transport } = yield* connectHttp(door.url)
      yield* Effect.promise(() => client.listTools())
      const id = transport.sessionId!
      assert.isTrue(yield* eventually(() => door.stderr().includes(`session ${id} closed (idle`)), door.stderr())
      const after = yield* Effect.promise(() =>
        fetch(door.url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": id },
          body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list", params: {} })
        })
      )
      assert.strictEqual(after.status, 404)
    }), 60_000)

  it.live("on SIGTERM closes every session, killing their processes, and exits", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const marker = `tw-http-term-${process.pid}-${Date.now()}`
      const door = yield* startHttpDoor(["--root", root, "--state-dir", state])
      const sessions = yield* Effect.forEach([1, 2], () => connectHttp(door.url))
      for (const { client } of sessions) {
        const started = yield* call(client, "run_shell_command", {
          command: `exec -a ${marker} sleep 300`,
          is_background: true,
          description: "sleep"
        })
        assert.isUndefined(started.isError, textOf(started))
      }
      assert.isTrue(yield* eventually(() => processesWith(marker).length >= 2), "both background processes run")
      const exited = new Promise<number | null>((resolve) => door.child.on("exit", (code) => resolve(code)))
      door.child.kill("SIGTERM")
      const code = yield* Effect.promise(() => exited)
      assert.oneOf(code, [0, 130])
      assert.include(door.stderr(), "closed (the server is stopping)")
      assert.isTrue(yield* eventually(() => processesWith(marker).length === 0), `survivors: ${processesWith(marker).join(", ")}`)
    }), 60_000)
})
