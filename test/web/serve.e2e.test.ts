/**
 * web_fetch through the serve door (the built CLI, the MCP SDK's client): revealed by tool_search,
 * allowed to reach the test's own server with --web-fetch-allow, refused without it.
 */
import { assert, describe, it } from "@effect/vitest"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { cliUnderTest, connectServe, connectServeWith, tempDir } from "../support/serve.js"
import { startServer } from "./server.js"

const text = (result: object) =>
  ((result as { readonly content?: ReadonlyArray<{ readonly text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n")

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

describe("toolwright serve: web_fetch (the built CLI)", () => {
  it.live("deferred until tool_search reveals it; with --web-fetch-allow it fetches the local page as Markdown", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--web-fetch-allow", "127.0.0.1,localhost"])
      const before = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
      assert.notInclude(before, "web_fetch")
      const found = yield* call(client, "tool_search", { query: "select:web_fetch" })
      assert.include(text(found), "web_fetch")
      const listed = (yield* Effect.promise(() => client.listTools())).tools.find((t) => t.name === "web_fetch")
      assert.isDefined(listed)
      assert.strictEqual(listed!.annotations?.readOnlyHint, true)

      const page = yield* call(client, "web_fetch", { url: `http://localhost:${server.port}/page.html`, prompt: "install" })
      assert.isUndefined(page.isError, text(page))
      assert.include(text(page), "# Install guide")
      assert.include(text(page), "Run `npm install toolwright`")

      const image = yield* call(client, "web_fetch", { url: `${server.base}/image.png` })
      assert.isTrue(image.isError)
      assert.strictEqual(image._meta?.["toolwright/errorType"], "fetch_unsupported_content")
    }), 60_000)

  it.live("without the allow-list, loopback is refused (fetch_blocked_address) and the server sees nothing; the env variable allows it", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      yield* call(client, "tool_search", { query: "select:web_fetch" })
      const refused = yield* call(client, "web_fetch", { url: `http://localhost:${server.port}/page.html` })
      assert.isTrue(refused.isError)
      assert.strictEqual(refused._meta?.["toolwright/errorType"], "fetch_blocked_address")
      assert.include(text(refused), "it is a loopback address")
      assert.strictEqual(server.hits(), 0)

      const viaEnv = yield* connectServeWith({
        args: ["--root", root, "--state-dir", state],
        extraEnv: { TOOLWRIGHT_WEB_FETCH_ALLOW: "127.0.0.1" }
      })
      yield* call(viaEnv.client, "tool_search", { query: "select:web_fetch" })
      const json = yield* call(viaEnv.client, "web_fetch", { url: `${server.base}/data.json` })
      assert.isUndefined(json.isError, text(json))
      assert.include(text(json), `"tools":17`)
    }), 60_000)

  it.live("toolwright call web_fetch with --web-fetch-allow prints the page; without it, the refusal and exit 1", () =>
    Effect.gen(function*() {
      const server = yield* startServer()
      const root = yield* tempDir()
      const state = yield* tempDir()
      const runCli = (extra: ReadonlyArray<string>) =>
        Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
          execFile(
            process.execPath,
            [cliUnderTest, "call", "web_fetch", JSON.stringify({ url: `${server.base}/page.html` }), "--root", root, "--state-dir", state, "--yes", ...extra],
            { env: { ...process.env, NO_COLOR: "1" } },
            (error, stdout, stderr) => resume(Effect.succeed({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
          )
        })
      const ok = yield* runCli(["--web-fetch-allow", "127.0.0.1"])
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.include(ok.stdout, "# Install guide")
      const refused = yield* runCli([])
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "web_fetch failed [fetch_blocked_address]")
    }), 60_000)
})
