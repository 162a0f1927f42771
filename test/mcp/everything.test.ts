import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Stream } from "effect"
import { parseMcpConfig } from "../../src/mcp/config.js"
import { McpGateway } from "../../src/mcp/service.js"
import { ToolRegistry } from "../../src/registry/registry.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { Kind } from "../../src/tool/kind.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { LiveOutput } from "../../src/tool/tool.js"
import { type ResourceLinkPart, resourceLinkText } from "../../src/tool/result.js"
import { testSession } from "../support/session.js"
import { eventually, everythingEntry } from "./support.js"

const session = Layer.unwrap(Effect.map(
  parseMcpConfig({ mcpServers: { everything: everythingEntry() } }).pipe(Effect.orDie),
  (config) => testSession([], { mcp: { config } }).layer
))

const call = (name: string, args: unknown, onOutput?: (callId: string, chunk: LiveOutput) => Effect.Effect<void>) =>
  Effect.flatMap(Scheduler, (s) => s.runOne({ callId: "e", name, args }, onOutput ? { onOutput } : {}))

const success = (result: CallResult) => {
  assert.strictEqual(result._tag, "Success", JSON.stringify(result).slice(0, 2000))
  return result as Extract<CallResult, { _tag: "Success" }>
}
const textOf = (result: CallResult) => success(result).llmContent.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")

layer(session, { timeout: 60_000, excludeTestServices: true })("@modelcontextprotocol/server-everything over stdio", (it) => {
  it.effect("discovers its tools, with Kinds from readOnlyHint, and calls one", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      const names = yield* registry.names
      assert.includeMembers([...names], ["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__trigger-long-running-operation"])
      assert.strictEqual((yield* registry.ensure("mcp__everything__echo")).kind, Kind.Read)
      assert.strictEqual((yield* registry.ensure("mcp__everything__toggle-simulated-logging")).kind, Kind.Other)
      assert.strictEqual(textOf(yield* call("mcp__everything__echo", { message: "hello" })), "Echo: hello")
      assert.strictEqual(textOf(yield* call("mcp__everything__get-sum", { a: 2, b: 3 })), "The sum of 2 and 3 is 5.")
    }))

  it.effect("its tool list changes after connect (a conditional tool) and the registry follows", () =>
    Effect.gen(function*() {
      const registry = yield* ToolRegistry
      yield* eventually(
        Effect.map(registry.names, (n) => (n.includes("mcp__everything__simulate-research-query") ? true : undefined)),
        "the conditional tool"
      )
      assert.isTrue(yield* registry.isDeferredAndHidden("mcp__everything__simulate-research-query"))
    }))

  it.effect("streams the long-running tool's progress", () =>
    Effect.gen(function*() {
      const chunks: Array<string> = []
      const result = yield* call("mcp__everything__trigger-long-running-operation", { duration: 0.3, steps: 3 }, (_, chunk) =>
        Effect.sync(() => {
          chunks.push(String(chunk))
        }))
      assert.strictEqual(textOf(result), "Long running operation completed. Duration: 0.3 seconds, Steps: 3.")
      assert.deepStrictEqual(chunks, ["(progress 1/3)", "(progress 2/3)", "(progress 3/3)"])
    }))

  it.effect("maps its image and resource-link results", () =>
    Effect.gen(function*() {
      const image = success(yield* call("mcp__everything__get-tiny-image", {}))
      assert.include(image.llmContent.map((p) => p.type), "image")
      assert.include(textOf(image), "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]")
      const links = success(yield* call("mcp__everything__get-resource-links", { count: 2 })).llmContent
      const link = links.find((p) => p.type === "resource_link" && p.uri === "demo://resource/dynamic/blob/1")
      assert.strictEqual(link && resourceLinkText(link as ResourceLinkPart), "Resource Link: Blob Resource 1 at demo://resource/dynamic/blob/1")
    }))

  it.effect("reads a resource through read_mcp_resource", () =>
    Effect.gen(function*() {
      const read = success(yield* call("read_mcp_resource", { server_name: "everything", uri: "demo://resource/static/document/architecture.md" }))
      const text = textOf(read)
      assert.match(text, /^\n--- Content from MCP resource everything:demo:\/\/resource\/static\/document\/architecture\.md \[[0-9a-f]{8}\] ---\n# Everything Server/)
      const dynamic = textOf(yield* call("read_mcp_resource", { server_name: "everything", uri: "demo://resource/dynamic/text/7" }))
      assert.include(dynamic, "Resource 7: This is a plaintext resource")
      const gateway = yield* McpGateway
      const listed = (yield* gateway.resources).map((r) => r.uri)
      assert.includeMembers(listed, ["demo://resource/static/document/architecture.md", "demo://resource/dynamic/text/{resourceId}"])
    }))

  it.effect("resources/list_changed: a resource it creates joins the catalog", () =>
    Effect.gen(function*() {
      const gateway = yield* McpGateway
      const data = `data:text/plain;base64,${Buffer.from("toolwright ".repeat(50)).toString("base64")}`
      yield* call("mcp__everything__gzip-file-as-resource", { name: "tw.txt.gz", data, outputType: "resourceLink" })
      yield* eventually(
        Effect.map(gateway.resources, (all) => (all.some((r) => r.uri === "demo://resource/session/tw.txt.gz") ? true : undefined)),
        "the session resource"
      )
      const read = success(yield* call("read_mcp_resource", { server_name: "everything", uri: "demo://resource/session/tw.txt.gz" }))
      assert.deepStrictEqual(read.llmContent.map((p) => p.type), ["text", "file", "text"])
    }))

  it.effect("exposes its prompts and instructions", () =>
    Effect.gen(function*() {
      const gateway = yield* McpGateway
      const prompts = (yield* gateway.prompts).map((p) => p.name)
      assert.includeMembers(prompts, ["everything__simple-prompt", "everything__args-prompt"])
      const simple = yield* gateway.getPrompt("everything__simple-prompt", {})
      assert.deepStrictEqual(simple.messages, [{ role: "user", content: { type: "text", text: "This is a simple prompt without arguments." } }])
      const args = yield* gateway.getPrompt("everything__args-prompt", { city: "Lisbon" })
      assert.include(JSON.stringify(args.messages), "Lisbon")
      assert.include((yield* gateway.instructionsReminder)!, "### everything\n# Everything Server")
    }))

  it.effect("forwards its log notifications", () =>
    Effect.gen(function*() {
      const gateway = yield* McpGateway
      const events = yield* gateway.subscribe
      const firstLog = yield* Effect.forkChild(
        events.pipe(Stream.filter((e) => e._tag === "UpstreamLog"), Stream.take(1), Stream.runCollect)
      )
      const started = textOf(yield* call("mcp__everything__toggle-simulated-logging", {}))
      assert.include(started, "Started simulated")
      const [log] = yield* Fiber.join(firstLog)
      assert.strictEqual(log!._tag === "UpstreamLog" ? log!.server : "", "everything")
      yield* call("mcp__everything__toggle-simulated-logging", {})
    }))
})
