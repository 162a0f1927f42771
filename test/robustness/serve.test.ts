/**
 * The serve door under hostile input (issue 23): it never goes down, speaks clean JSON-RPC, and
 * keeps stdout for the protocol. Everything runs through the built CLI (`npm run build` first).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_ARGUMENT_DEPTH } from "../../src/serve/argumentDepth.js"
import { connectServe, repoRoot, tempDir } from "../support/serve.js"
import { nonJsonRpcLines, rawServe } from "./rawServe.js"

const fixtures = path.join(repoRoot, "test", "fixtures", "robustness")

const textOf = (result: Record<string, any>): string =>
  (result["content"] as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("")

/** Arguments `{ metadata: … }` nesting objects exactly `depth` levels deep (the arguments object is level 1). */
const nestedArguments = (depth: number): string =>
  `{"metadata":${"{\"a\":".repeat(depth - 2)}{}${"}".repeat(depth - 2)}}`

describe("serve door: messages of any documented size", () => {
  it.live("a 16 MiB write_file is answered within 10 s, a list_directory sent meanwhile within 1 s, and the server answers afterwards", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const content = "0123456789abcdef".repeat(1024 * 1024) // 16 MiB
      const started = Date.now()
      const writing = client.callTool({ name: "write_file", arguments: { file_path: "big.txt", content } }, undefined, { timeout: 60_000 })
        .then((result) => ({ result, ms: Date.now() - started }))
      // A small call sent while the big one is in flight is not held up behind it.
      yield* Effect.sleep("50 millis")
      const listStarted = Date.now()
      const meanwhile = yield* Effect.promise(() => client.callTool({ name: "list_directory", arguments: { path: "." } }))
      const listMs = Date.now() - listStarted
      assert.notStrictEqual(meanwhile.isError, true, textOf(meanwhile))
      assert.isBelow(listMs, 1_000)
      const { result: written, ms: elapsed } = yield* Effect.promise(() => writing)
      assert.isUndefined(written.isError, textOf(written))
      assert.isBelow(elapsed, 10_000)
      assert.strictEqual(fs.statSync(path.join(root, "big.txt")).size, 16 * 1024 * 1024)
      const listed = yield* Effect.promise(() => client.callTool({ name: "list_directory", arguments: { path: "." } }))
      assert.include(textOf(listed), "big.txt")
    }), 60_000)

  it.live("a message over the limit gets a JSON-RPC error with its id, one at the limit is served, and the server keeps serving", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const max = 1024 * 1024
      const serve = yield* rawServe(["--root", root, "--state-dir", state], { TOOLWRIGHT_MAX_SERVE_MESSAGE_BYTES: String(max) })
      /** A write_file request of exactly `bytes` bytes (without its newline), the id last as the SDK writes it. */
      const writeRequest = (id: number | string, bytes: number, idFirst = false) => {
        const build = (pad: number) => {
          const params = { name: "write_file", arguments: { file_path: `f-${id}.txt`, content: "x".repeat(pad) } }
          return idFirst
            ? JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })
            : JSON.stringify({ method: "tools/call", params, jsonrpc: "2.0", id })
        }
        const overhead = Buffer.byteLength(build(0))
        const line = build(bytes - overhead)
        assert.strictEqual(Buffer.byteLength(line), bytes)
        return line
      }

      // At the limit: served.
      const atLimit = serve.answerTo(1)
      yield* Effect.promise(() => serve.write(writeRequest(1, max) + "\n"))
      const served = yield* Effect.promise(() => atLimit)
      assert.isUndefined(served["error"])
      assert.notStrictEqual(served["result"].isError, true, JSON.stringify(served).slice(0, 500))
      assert.isTrue(fs.existsSync(path.join(root, "f-1.txt")))

      // One byte over, id last: refused with -32600 and the request's id.
      const over = serve.answerTo(2)
      yield* Effect.promise(() => serve.write(writeRequest(2, max + 1) + "\n"))
      const refused = yield* Effect.promise(() => over)
      assert.strictEqual(refused["error"].code, -32600)
      assert.include(refused["error"].message, "Message too large")
      assert.include(refused["error"].message, "1 MiB limit")
      assert.isFalse(fs.existsSync(path.join(root, "f-2.txt")))

      // Far over (4x, written in pieces), id first: refused with its id.
      const far = serve.answerTo("far")
      const line = writeRequest("far", 4 * max, true) + "\n"
      for (let i = 0; i < line.length; i += 65_536) yield* Effect.promise(() => serve.write(line.slice(i, i + 65_536)))
      assert.strictEqual((yield* Effect.promise(() => far))["error"].code, -32600)

      // The session lives on.
      const list = yield* Effect.promise(() => serve.request("tools/list"))
      assert.isAbove(list["result"].tools.length, 5)
      assert.isNull(serve.child.exitCode)
      assert.include(serve.stderr(), "refused a message of")
      assert.deepStrictEqual(nonJsonRpcLines(serve.lines), [])
    }), 60_000)
})

describe("serve door: protocol hygiene", () => {
  it.live("malformed JSON gets -32700 and invalid requests -32600, and the server keeps serving", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const serve = yield* rawServe(["--root", root, "--state-dir", state])

      const parseError = serve.answerTo(null)
      yield* Effect.promise(() => serve.write("this is not json\n"))
      const parsed = yield* Effect.promise(() => parseError)
      assert.strictEqual(parsed["error"].code, -32700)
      assert.isNull(parsed["id"])

      const truncated = serve.answerTo(null)
      yield* Effect.promise(() => serve.write("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/li\n"))
      assert.strictEqual((yield* Effect.promise(() => truncated))["error"].code, -32700)

      const noMethod = serve.answerTo(5)
      yield* Effect.promise(() => serve.write(JSON.stringify({ jsonrpc: "2.0", id: 5 }) + "\n"))
      assert.strictEqual((yield* Effect.promise(() => noMethod))["error"].code, -32600)

      const badMethod = serve.answerTo("s")
      yield* Effect.promise(() => serve.write(JSON.stringify({ jsonrpc: "2.0", id: "s", method: 42 }) + "\n"))
      assert.strictEqual((yield* Effect.promise(() => badMethod))["error"].code, -32600)

      const wrongVersion = serve.answerTo(6)
      yield* Effect.promise(() => serve.write(JSON.stringify({ jsonrpc: "1.0", id: 6, method: "tools/list" }) + "\n"))
      assert.strictEqual((yield* Effect.promise(() => wrongVersion))["error"].code, -32600)

      const batch = serve.answerTo(null)
      yield* Effect.promise(() => serve.write(JSON.stringify([{ jsonrpc: "2.0", id: 7, method: "tools/list" }]) + "\n"))
      const batchAnswer = yield* Effect.promise(() => batch)
      assert.strictEqual(batchAnswer["error"].code, -32600)
      assert.include(batchAnswer["error"].message, "batches")

      const scalar = serve.answerTo(null)
      yield* Effect.promise(() => serve.write("42\n"))
      assert.strictEqual((yield* Effect.promise(() => scalar))["error"].code, -32600)

      const list = yield* Effect.promise(() => serve.request("tools/list"))
      assert.isAbove(list["result"].tools.length, 5)
      assert.isNull(serve.child.exitCode)
      assert.deepStrictEqual(nonJsonRpcLines(serve.lines), [])
    }), 60_000)

  it.live("under a defect in a tool, stdout holds only JSON-RPC and the logs go to stderr", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const serve = yield* rawServe(["--root", root, "--state-dir", state, "--tools-module", path.join(fixtures, "defectTools.mjs")])
      const answer = yield* Effect.promise(() => serve.request("tools/call", { name: "defect_tool", arguments: {} }))
      assert.isTrue(answer["result"].isError)
      assert.strictEqual(answer["result"]._meta["toolwright/errorType"], "unhandled_exception")
      const after = yield* Effect.promise(() => serve.request("tools/list"))
      assert.isArray(after["result"].tools)
      assert.deepStrictEqual(nonJsonRpcLines(serve.lines), [])
      assert.include(serve.stderr(), "stray console.log from a tool")
      assert.include(serve.stderr(), "error log from a tool")
    }), 60_000)

  it.live(`arguments nested past ${MAX_ARGUMENT_DEPTH} levels are refused as invalid_tool_params (50,000 deep too), with stdout clean`, () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const serve = yield* rawServe(["--root", root, "--state-dir", state])
      const call = (id: number, args: string) => {
        const answer = serve.answerTo(id)
        return Effect.promise(async () => {
          await serve.write(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"list_directory","arguments":${args}}}\n`)
          return (await answer)["result"] as Record<string, any>
        })
      }
      const deep = yield* call(1, nestedArguments(50_000))
      assert.isTrue(deep["isError"])
      assert.strictEqual(deep["_meta"]["toolwright/errorType"], "invalid_tool_params")
      assert.include(textOf(deep), "MAX_ARGUMENT_DEPTH")

      const justOver = yield* call(2, nestedArguments(MAX_ARGUMENT_DEPTH + 1))
      assert.strictEqual(justOver["_meta"]["toolwright/errorType"], "invalid_tool_params")
      assert.include(textOf(justOver), "MAX_ARGUMENT_DEPTH")

      // At the bound the door lets the call through: the tool's own validation answers.
      const atBound = yield* call(3, nestedArguments(MAX_ARGUMENT_DEPTH))
      assert.notInclude(textOf(atBound), "MAX_ARGUMENT_DEPTH")

      const list = yield* Effect.promise(() => serve.request("tools/list"))
      assert.isArray(list["result"].tools)
      assert.deepStrictEqual(nonJsonRpcLines(serve.lines), [])
    }), 60_000)
})

describe("MCP gateway: an upstream's invalid response", () => {
  it.live("fails that call at once (mcp_tool_error naming the server and what was wrong), not after the idle timeout", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const config = path.join(state, "mcp.json")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { bad: { command: process.execPath, args: [path.join(fixtures, "badResultServer.mjs")] } } }))
      const serve = yield* rawServe(["--root", root, "--state-dir", state, "--config", config])
      const tools = ["string_result", "no_result", "string_error", "wrong_shape"]
      const search = yield* Effect.promise(() =>
        serve.request("tools/call", { name: "tool_search", arguments: { query: `select:${tools.map((t) => `mcp__bad__${t}`).join(",")}` } })
      )
      assert.notStrictEqual(search["result"].isError, true, JSON.stringify(search))
      const expected: Record<string, string> = {
        string_result: "its result is a string, not an object",
        no_result: "it has neither a result nor an error",
        string_error: "its error is a string"
      }
      for (const tool of tools) {
        const started = Date.now()
        const answer = yield* Effect.promise(() => serve.request("tools/call", { name: `mcp__bad__${tool}`, arguments: {} }))
        const elapsed = Date.now() - started
        const result = answer["result"]
        assert.isBelow(elapsed, 5_000, tool)
        if (tool === "wrong_shape") {
          // A valid JSON-RPC response whose result has no content list: the gateway's documented
          // mapping answers at once that it could not parse the tool's response.
          assert.strictEqual(textOf(result), "[Error: Could not parse tool response]")
          continue
        }
        assert.isTrue(result.isError, JSON.stringify(answer))
        assert.strictEqual(result._meta["toolwright/errorType"], "mcp_tool_error")
        assert.include(textOf(result), `on server "bad" failed`)
        assert.include(textOf(result), expected[tool]!)
      }
      assert.deepStrictEqual(nonJsonRpcLines(serve.lines), [])
    }), 60_000)
})

/** Every file under `dir`, relative, with its size. */
const filesUnder = (dir: string): Array<{ readonly name: string; readonly size: number }> =>
  fs.existsSync(dir)
    ? (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as Array<fs.Dirent>)
      .filter((entry) => entry.isFile())
      .map((entry) => {
        const full = path.join(entry.parentPath, entry.name)
        return { name: path.relative(dir, full), size: fs.statSync(full).size }
      })
    : []

describe("serve door: nothing left behind in the state dir", () => {
  it.live("a shell spill file draws on the session cap and is removed with the session; saved outputs stay", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const cap = 4 * 1024 * 1024
      const serve = yield* rawServe(["--root", root, "--state-dir", state], { TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES: String(cap) })
      const outputs = path.join(state, "outputs")
      const shell = (command: string) =>
        Effect.promise(() => serve.request("tools/call", { name: "run_shell_command", arguments: { command } }))

      // 60,000 characters: cut and saved whole as a kept output.
      const saved = (yield* shell("head -c 60000 /dev/zero | tr '\\0' 's'"))["result"]
      assert.notStrictEqual(saved.isError, true, JSON.stringify(saved).slice(0, 1000))
      const kept = filesUnder(outputs)
      assert.strictEqual(kept.length, 1, JSON.stringify(kept))

      // 12 MiB of output: spilled, but only up to what is left of the session cap.
      const spilled = (yield* shell("yes 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01 | head -c 12582912"))["result"]
      assert.include(textOf(spilled), "discarded")
      const during = filesUnder(outputs)
      const spill = during.find((f) => f.name !== kept[0]!.name)!
      assert.isDefined(spill, JSON.stringify(during))
      assert.strictEqual(spill.size + kept[0]!.size, cap, JSON.stringify(during))

      // The session ends (the host closes stdin): the spill file goes, the saved output stays.
      serve.child.stdin.end()
      assert.strictEqual(yield* Effect.promise(() => serve.exited), 0)
      assert.include(serve.stderr(), "stdin closed")
      assert.deepStrictEqual(filesUnder(outputs), kept)
    }), 60_000)
})
