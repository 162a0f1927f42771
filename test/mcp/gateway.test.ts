import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { MCP_TOOL_MAX_OUTPUT_CHARS } from "../../src/mcp/constants.js"
import { McpGateway } from "../../src/mcp/service.js"
import { ToolRegistry } from "../../src/registry/registry.js"
import { ADDED_MCP_TOOLS_INTRO, CHANGED_MCP_TOOLS_INTRO, MCP_SERVER_INSTRUCTIONS_INTRO } from "../../src/registry/toolSearch/reminder.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { Kind } from "../../src/tool/kind.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { LiveOutput } from "../../src/tool/tool.js"
import { testSession } from "../support/session.js"
import { eventually, fixtureEntry } from "./support.js"

/** A session whose MCP config is the given `mcpServers` (and budget). */
const sessionWith = (
  mcpServers: Record<string, unknown>,
  options: { readonly startupWaitMs?: number } = {},
  mcpBudget?: Record<string, unknown>
) =>
  Layer.unwrap(Effect.map(
    parseMcpConfig({ mcpServers, ...(mcpBudget ? { mcpBudget } : {}) }).pipe(Effect.orDie),
    (config) => testSession([], { mcp: { config, ...options } }).layer
  ))

const call = (name: string, args: unknown, onOutput?: (callId: string, chunk: LiveOutput) => Effect.Effect<void>) =>
  Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "c1", name, args }, onOutput ? { onOutput } : {}))

const textOf = (result: CallResult): string => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result))
  return result._tag === "Success" ? result.llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("") : ""
}

/** The tool's own first text part (a session reminder may follow it). */
const firstText = (result: CallResult): string => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result))
  const part = result._tag === "Success" ? result.llmContent[0] : undefined
  return part?.type === "text" ? part.text : ""
}

const failureOf = (result: CallResult) => {
  assert.strictEqual(result._tag, "Failure", JSON.stringify(result))
  return result as Extract<CallResult, { _tag: "Failure" }>
}

layer(sessionWith({ fixture: fixtureEntry(), off: { command: "nope", disabled: true } }), { timeout: 30_000, excludeTestServices: true })("MCP gateway over a real stdio server", (it) => {
  it.effect("registers upstream tools deferred, named and described per reference §13.1", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const names = yield* registry.names
      assert.includeMembers([...names], ["mcp__fixture__echo", "mcp__fixture__crash", "read_mcp_resource", "tool_search"])
      // Not provider-safe: sanitised with the hash suffix.
      assert.include([...names], "mcp__fixture__named_with_spaces_1nvw3lo")
      const echo = yield* registry.ensure("mcp__fixture__echo")
      assert.strictEqual(echo.displayName, "echo (fixture MCP Server)")
      assert.strictEqual(echo.kind, Kind.Read)
      assert.strictEqual((yield* registry.ensure("mcp__fixture__crash")).kind, Kind.Other)
      assert.isTrue(echo.shouldDefer)
      assert.isFalse(echo.alwaysLoad)
      assert.strictEqual(echo.serverName, "fixture")
      assert.strictEqual(echo.maxOutputChars, MCP_TOOL_MAX_OUTPUT_CHARS)
      assert.strictEqual(echo.searchHint, "mcp fixture")
      assert.deepStrictEqual(echo.parametersJsonSchema, {
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
        additionalProperties: false
      })
      // Deferred: not declared until tool_search reveals them.
      const declared = (yield* registry.declarations).map((t) => t.name)
      assert.notInclude(declared, "mcp__fixture__echo")
      assert.notInclude(declared, "read_mcp_resource")
      const gateway = yield* McpGateway
      const statuses = yield* gateway.statuses
      assert.deepStrictEqual(statuses.map((s) => [s.name, s.state, s.transport]), [["fixture", "connected", "stdio"], ["off", "disabled", undefined]])
      assert.strictEqual(statuses[0]!.tools, 14)
    }))

  it.effect("tool_search finds an upstream tool; the call runs through the scheduler", () =>
    Effect.gen(function*() {
      const search = yield* call("tool_search", { query: "+echo fixture" })
      assert.include(textOf(search), `"name":"mcp__fixture__echo"`)
      assert.strictEqual(textOf(yield* call("mcp__fixture__echo", { message: "hi" })), "echo: hi")
    }))

  it.effect("params are validated against the server's JSON Schema", () =>
    Effect.gen(function*() {
      const bad = failureOf(yield* call("mcp__fixture__echo", { message: 3, extra: true }))
      assert.strictEqual(bad.code, "invalid_tool_params")
      assert.include(bad.message, "params.message: must be string")
      assert.include(bad.message, "params: must NOT have additional properties")
      const missing = failureOf(yield* call("mcp__fixture__echo", {}))
      assert.strictEqual(missing.message, "params: must have required property 'message'")
    }))

  it.effect("an isError result is mcp_tool_error", () =>
    Effect.gen(function*() {
      const failed = failureOf(yield* call("mcp__fixture__fail", {}))
      assert.strictEqual(failed.code, "mcp_tool_error")
      assert.include(failed.message, "with response: [{\"type\":\"text\",\"text\":\"the upstream says no\"}]")
    }))

  it.effect("progress notifications stream to the live-output callback", () =>
    Effect.gen(function*() {
      const chunks: Array<string> = []
      const result = yield* call("mcp__fixture__progress", { steps: 3, delayMs: 5 }, (_, chunk) =>
        Effect.sync(() => {
          chunks.push(String(chunk))
        }))
      assert.strictEqual(textOf(result), "done after 3 steps")
      assert.deepStrictEqual(chunks, ["step 1 (progress 1/3)", "step 2 (progress 2/3)", "step 3 (progress 3/3)"])
    }))

  it.effect("maps every content block of a real result", () =>
    Effect.gen(function*() {
      const result = yield* call("mcp__fixture__media", {})
      assert.strictEqual(result._tag, "Success", JSON.stringify(result).slice(0, 1500))
      const parts = result._tag === "Success" ? result.llmContent : []
      assert.deepStrictEqual(parts.map((p) => p.type), ["text", "text", "image", "text", "audio", "text", "text", "file", "resource_link"])
      assert.deepInclude(parts, { type: "resource_link", uri: "fixture://hello", name: "hello", title: "Hello resource" })
      assert.strictEqual(textOf(yield* call("mcp__fixture__structured", {})), `{"answer":42}`)
      // A block of an unknown type is dropped, not fatal.
      assert.strictEqual(textOf(yield* call("mcp__fixture__raw_unknown", {})), "before")
    }))

  it.effect("garbage on the server's stdout is skipped", () =>
    Effect.gen(function*() {
      assert.strictEqual(textOf(yield* call("mcp__fixture__garbage", {})), "ok after garbage")
      assert.strictEqual(textOf(yield* call("mcp__fixture__echo", { message: "still here" })), "echo: still here")
    }))

  it.effect("read_mcp_resource frames text with a nonce; blobs become attachments; caps apply", () =>
    Effect.gen(function*() {
      const hello = yield* call("read_mcp_resource", { server_name: "fixture", uri: "fixture://hello" })
      const text = textOf(hello)
      const nonce = /--- Content from MCP resource fixture:fixture:\/\/hello \[([0-9a-f]{8})\] ---/.exec(text)?.[1]
      assert.isDefined(nonce)
      assert.isTrue(text.endsWith(`--- End of MCP resource fixture:fixture://hello [${nonce}] ---\n`))
      // The forged end line inside the resource carries another nonce.
      assert.notStrictEqual(nonce, "00000000")
      const blob = yield* call("read_mcp_resource", { server_name: "fixture", uri: "fixture://blob" })
      assert.strictEqual(blob._tag, "Success")
      assert.deepStrictEqual(blob._tag === "Success" ? blob.llmContent.map((p) => p.type) : [], ["text", "image", "text"])
      assert.strictEqual(blob._tag === "Success" ? blob.display : "", "Read resource fixture:fixture://blob — Injected 0 chars + 1 attachment(s)")
      const huge = yield* call("read_mcp_resource", { server_name: "fixture", uri: "fixture://huge" })
      assert.strictEqual(huge._tag === "Success" ? huge.display : "", "Read resource fixture:fixture://huge — Injected 100000 chars + 0 attachment(s) (truncated)")
    }))

  it.effect("read_mcp_resource errors name the server and what to do", () =>
    Effect.gen(function*() {
      const unknown = failureOf(yield* call("read_mcp_resource", { server_name: "nobody", uri: "x://y" }))
      assert.strictEqual(unknown.code, "execution_failed")
      assert.strictEqual(unknown.message, "MCP server 'nobody' is not configured. Configured servers: fixture, off.")
      const disabled = failureOf(yield* call("read_mcp_resource", { server_name: "off", uri: "x://y" }))
      assert.strictEqual(disabled.message, "MCP server 'off' is disabled.")
      const missing = failureOf(yield* call("read_mcp_resource", { server_name: "fixture", uri: "fixture://missing" }))
      assert.strictEqual(missing.code, "mcp_tool_error")
      assert.include(missing.message, `MCP server "fixture" could not read resource fixture://missing`)
      const long = failureOf(yield* call("read_mcp_resource", { server_name: "fixture", uri: "u".repeat(4097) }))
      assert.strictEqual(long.code, "invalid_tool_params")
    }))

  it.effect("prompts and server instructions", () =>
    Effect.gen(function*() {
      const gateway = yield* McpGateway
      const prompts = yield* gateway.prompts
      assert.deepStrictEqual(prompts.map((p) => p.name), ["fixture__greet"])
      const got = yield* gateway.getPrompt("fixture__greet", { name: "Ada" })
      assert.deepStrictEqual(got.messages, [{ role: "user", content: { type: "text", text: "Say hello to Ada." } }])
      const unknown = yield* Effect.flip(gateway.getPrompt("fixture__nope", {}))
      assert.strictEqual(unknown.message, `Prompt "fixture__nope" is not offered by any connected MCP server.`)
      const instructions = yield* gateway.instructionsReminder
      assert.include(instructions!, MCP_SERVER_INSTRUCTIONS_INTRO)
      assert.include(instructions!, "### fixture\nUse echo to check the connection.")
    }))
})

layer(sessionWith({ fixture: fixtureEntry() }), { timeout: 30_000, excludeTestServices: true })("upstream list_changed", (it) => {
  it.effect("re-discovers, diffs into the registry, and produces the §2.4 reminders", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const gateway = yield* McpGateway
      assert.isNull(yield* gateway.takeReminder)
      assert.strictEqual(firstText(yield* call("mcp__fixture__toggle", {})), "extra added")
      yield* eventually(Effect.map(registry.names, (n) => (n.includes("mcp__fixture__extra") ? true : undefined)), "extra to appear")
      assert.isTrue(yield* registry.isDeferredAndHidden("mcp__fixture__extra"))
      const added = yield* gateway.takeReminder
      assert.include(added!, ADDED_MCP_TOOLS_INTRO)
      assert.include(added!, `#### fixture\n- "mcp__fixture__extra": "Appears when toggle is called."`)
      assert.isNull(yield* gateway.takeReminder)

      // Revealed, then removed upstream: gone with its reveal mark; back: hidden again.
      yield* registry.reveal(["mcp__fixture__extra"])
      assert.include((yield* registry.declarations).map((t) => t.name), "mcp__fixture__extra")
      yield* registry.reveal(["mcp__fixture__echo"])
      assert.strictEqual(firstText(yield* call("mcp__fixture__toggle", {})), "extra removed")
      yield* eventually(Effect.map(registry.names, (n) => (n.includes("mcp__fixture__extra") ? undefined : true)), "extra to go")
      const removed = yield* gateway.takeReminder
      assert.include(removed!, CHANGED_MCP_TOOLS_INTRO)
      assert.include(removed!, `- "mcp__fixture__extra"`)
      // A tool that stayed keeps its reveal.
      assert.include((yield* registry.declarations).map((t) => t.name), "mcp__fixture__echo")
      const gone = failureOf(yield* call("mcp__fixture__extra", {}))
      assert.strictEqual(gone.code, "tool_not_registered")

      yield* call("mcp__fixture__toggle", {})
      yield* eventually(Effect.map(registry.names, (n) => (n.includes("mcp__fixture__extra") ? true : undefined)), "extra to return")
      assert.isTrue(yield* registry.isDeferredAndHidden("mcp__fixture__extra"))
      // the scheduler attaches the changes to the next result, once (every door shows them)
      const works = yield* call("mcp__fixture__extra", {})
      assert.strictEqual(firstText(works), "extra works")
      const parts = works._tag === "Success" ? works.llmContent : []
      const last = parts.at(-1)
      assert.isTrue(last?.type === "text" && last.text.startsWith("<system-reminder>") && last.text.includes(ADDED_MCP_TOOLS_INTRO))
      assert.strictEqual(textOf(yield* call("mcp__fixture__extra", {})), "extra works")
    }))
})

layer(sessionWith({ fixture: fixtureEntry() }, {}, { maxServers: 1, mode: "warn" }), { timeout: 30_000, excludeTestServices: true })(
  "the MCP budget warning",
  (it) => {
    it.effect("reaches the model once, with the next tool result", () =>
      Effect.gen(function*() {
        const first = yield* call("tool_search", { query: "select:mcp__fixture__echo" })
        const parts = first._tag === "Success" ? first.llmContent : []
        const last = parts.at(-1)
        assert.isTrue(last?.type === "text" && last.text.startsWith("<system-reminder>"), JSON.stringify(parts))
        assert.include(last?.type === "text" ? last.text : "", "1 of 1 MCP server slots of this workspace are in use")
        const second = yield* call("tool_search", { query: "select:mcp__fixture__echo" })
        assert.notInclude(textOf(second), "MCP server slots")
      }))
  }
)

layer(
  sessionWith({
    picky: fixtureEntry({}, { includeTools: ["echo", "progress(steps)", "fail"], excludeTools: ["fail"], alwaysLoadTools: ["echo"], trust: true })
  }),
  { timeout: 30_000, excludeTestServices: true }
)("per-server tool policy", (it) => {
  it.effect("includeTools / excludeTools / alwaysLoadTools / trust", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      assert.deepStrictEqual(
        (yield* registry.names).filter((n) => n.startsWith("mcp__")),
        ["mcp__picky__echo", "mcp__picky__progress"]
      )
      assert.include((yield* registry.declarations).map((t) => t.name), "mcp__picky__echo")
      assert.isTrue(yield* registry.isDeferredAndHidden("mcp__picky__progress"))
      const echo = yield* registry.ensure("mcp__picky__echo")
      const invocation = yield* echo.build({ message: "x" })
      assert.strictEqual(yield* invocation.defaultPermission, "allow")
    }))
})
