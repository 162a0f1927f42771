import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { LanguageModel } from "effect/ai"
import { ToolRegistry } from "../../src/registry/registry.js"
import { Approver } from "../../src/run/approver.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import {
  notRevealedMessage,
  runAgent,
  SessionToolkit,
  TRUNCATED_EDIT_MESSAGE,
  TRUNCATED_PARAMS_NOTE
} from "../../src/serve/effectAi.js"
import { DEFAULT_OUTPUT_LIMITS } from "../../src/output/config.js"
import { Kind } from "../../src/tool/kind.js"
import { factoriesOf, makeTempDir } from "../support/session.js"
import { bigTool, echoTool, timedTool, touchTool } from "../support/tools.js"
import { finish, jsonSchemaOf, lastToolResults, type ScriptStep, scriptedModel, text, toolCall } from "./effectAi.support.js"
import type { AnyTool } from "../../src/tool/tool.js"
import type { LivePart, PartOrigin } from "../../src/tool/result.js"
import { progressTool } from "../support/progressTool.js"

const session = (
  tools: ReadonlyArray<AnyTool>,
  options: Partial<SessionLayer.SessionOptions> & {
    readonly approver?: Layer.Layer<Approver>
    readonly toolkit?: SessionToolkit.Options
  } = {}
) => {
  const { approver, toolkit, ...rest } = options
  return (toolkit ? SessionToolkit.layerWith(toolkit) : SessionToolkit.layer).pipe(
    Layer.provideMerge(SessionLayer.layer({
      builtins: false,
      mode: "yolo",
      ...rest,
      roots: [makeTempDir("tw-ai-root-")],
      stateDir: makeTempDir("tw-ai-state-"),
      tools: factoriesOf(tools)
    })),
    Layer.provide(approver ?? Approver.layerFixed({ _tag: "proceed_once" }))
  )
}

const withModel = <A, E, R>(script: ReadonlyArray<ScriptStep>, body: (requests: Effect.Effect<ReadonlyArray<import("./effectAi.support.js").ModelRequest>>) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const model = yield* scriptedModel(script)
    return yield* body(model.requests).pipe(Effect.provide(model.layer))
  })

describe("effect/ai door: the agent loop", () => {
  it.effect("offers the declarations with their own JSON Schemas and ends when the model answers", () =>
    withModel([
      () => [toolCall("c1", "echo", { message: "hello" }), finish()],
      () => [text("done: hello"), finish("stop")]
    ], (requests) =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "say hello" })
        assert.strictEqual(result.stoppedBy, "model")
        assert.strictEqual(result.text, "done: hello")
        assert.strictEqual(result.steps.length, 2)
        const seen = yield* requests
        const declared = yield* (yield* ToolRegistry).declarations
        assert.deepStrictEqual(seen[0]!.toolNames, ["echo", "tool_search"])
        for (const tool of seen[0]!.tools) {
          const info = declared.find((d) => d.name === tool.name)!
          assert.deepStrictEqual(jsonSchemaOf(tool), info.parametersJsonSchema)
          assert.strictEqual(tool.description, info.description)
        }
        // the model read the result as plain text, not JSON
        assert.deepStrictEqual(lastToolResults(seen[1]!.prompt).map((r) => [r.name, r.isFailure, r.text]), [["echo", false, "hello"]])
        // the whole conversation: user, assistant(call), tool(result), assistant(answer)
        assert.deepStrictEqual(result.prompt.content.map((m) => m.role), ["user", "assistant", "tool", "assistant"])
      }).pipe(Effect.provide(session([echoTool("echo", { deferred: false })])))))

  it.effect("a failing call comes back to the model as a result with its wire code; the turn goes on", () =>
    withModel([
      () => [toolCall("c1", "echo", { message: "boom", fail: true }), toolCall("c2", "echo", { message: 42 }), toolCall("c3", "nope", {}), finish()],
      (request) => {
        const results = lastToolResults(request.prompt)
        return [text(results.map((r) => `${r.result["code"]}`).join(",")), finish("stop")]
      }
    ], () =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "try" })
        assert.strictEqual(result.text, "execution_failed,invalid_tool_params,tool_not_registered")
        const [failed, invalid] = result.steps[0]!.results
        assert.strictEqual(failed!._tag, "Failure")
        assert.include(failed!._tag === "Failure" ? failed!.message : "", "asked to fail: boom")
        assert.include(invalid!._tag === "Failure" ? invalid!.message : "", "params.message")
      }).pipe(Effect.provide(session([echoTool("echo", { deferred: false })])))))

  it.effect("a deferred tool is refused until tool_search reveals it, then it is in the next step's toolkit", () =>
    withModel([
      () => [toolCall("c1", "echo_deferred", { message: "too early" }), toolCall("c2", "tool_search", { query: "select:echo_deferred" }), finish()],
      () => [toolCall("c3", "echo_deferred", { message: "now" }), finish()],
      () => [text("ok"), finish("stop")]
    ], (requests) =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "use the echo tool" })
        const seen = yield* requests
        assert.deepStrictEqual(seen[0]!.toolNames, ["tool_search"])
        assert.deepStrictEqual(seen[1]!.toolNames, ["echo_deferred", "tool_search"])
        const [early, search] = result.steps[0]!.results
        assert.deepStrictEqual(early, {
          _tag: "Failure",
          callId: "c1",
          name: "echo_deferred",
          code: "tool_not_registered",
          message: notRevealedMessage("echo_deferred"),
          display: notRevealedMessage("echo_deferred")
        })
        assert.strictEqual(search!._tag, "Success")
        // only tool_search reached the scheduler in step 0
        assert.deepStrictEqual(result.steps[0]!.batch!.results.map((r) => r.name), ["tool_search"])
        const now = result.steps[1]!.results[0]!
        assert.deepStrictEqual(now._tag === "Success" && now.llmContent, [{ type: "text", text: "now" }])
      }).pipe(Effect.provide(session([echoTool("echo_deferred")])))))

  it.effect("the parallel calls of one step are one scheduler batch: the batch budget applies across them", () => {
    const budget = 30_000
    return withModel([
      () => [toolCall("a", "big", { size: 20_000 }), toolCall("b", "big", { size: 20_000 }), toolCall("c", "big", { size: 1_000 }), finish()],
      () => [text("read them"), finish("stop")]
    ], (requests) =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "three reads" })
        const batch = result.steps[0]!.batch!
        assert.deepStrictEqual(batch.results.map((r) => r.callId), ["a", "b", "c"])
        assert.strictEqual(batch.output.charsBefore, 41_000)
        assert.isAtMost(batch.output.charsAfter, budget)
        assert.strictEqual(batch.output.offloaded, 2)
        const read = lastToolResults((yield* requests)[1]!.prompt)
        // the small one is whole, the big ones share what is left and name their saved file
        assert.strictEqual(read[2]!.text.length, 1_000)
        for (const r of read.slice(0, 2)) {
          assert.isAtMost(r.text.length, (budget - 1_000) / 2)
          assert.match(r.text, /^Tool output truncated\. Persisted tool-output artifact: .*big_[0-9a-f]{16}\.output/)
        }
      }).pipe(Effect.provide(session([bigTool("big", { maxOutputChars: Infinity })], {
        outputLimits: { ...DEFAULT_OUTPUT_LIMITS, batchBudget: budget }
      }))))
  })

  it.effect("a response cut at max tokens: edits are refused with output_truncated, parameter errors get the note", () =>
    withModel([
      () => [toolCall("e", "touch_path", { file_path: "a.txt" }), toolCall("r", "echo", {}), toolCall("ok", "echo", { message: "fine" }), finish("length")],
      () => [text("ok"), finish("stop")]
    ], () =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "write" })
        const [edit, bad, good] = result.steps[0]!.results
        assert.deepStrictEqual(edit!._tag === "Failure" && [edit!.code, edit!.message], ["output_truncated", TRUNCATED_EDIT_MESSAGE])
        assert.isTrue(bad!._tag === "Failure" && bad!.code === "invalid_tool_params" && bad!.message.endsWith(`\n\n${TRUNCATED_PARAMS_NOTE}`))
        assert.strictEqual(good!._tag, "Success")
      }).pipe(Effect.provide(session([touchTool, echoTool("echo", { deferred: false })])))))

  it.effect("a declined approval comes back as code cancelled", () =>
    withModel([
      () => [toolCall("t", "touch_path", { file_path: "a.txt" }), finish()],
      (request) => [text(JSON.stringify(lastToolResults(request.prompt)[0]!.result)), finish("stop")]
    ], () =>
      Effect.gen(function*() {
        const result = yield* runAgent({ prompt: "touch" })
        const read = JSON.parse(result.text) as { code: string; error: string }
        assert.strictEqual(read.code, "cancelled")
        assert.include(read.error, "The user declined this touch_path call")
      }).pipe(Effect.provide(session([touchTool], { mode: "default", approver: Approver.layerFixed({ _tag: "cancel", reason: "no" }) })))))

  it.effect("media parts reach the model as file parts beside the text", () =>
    withModel([
      () => [toolCall("i", "pic", { size: 10 }), finish()],
      () => [text("seen"), finish("stop")]
    ], (requests) =>
      Effect.gen(function*() {
        yield* runAgent({ prompt: "look" })
        const [r] = lastToolResults((yield* requests)[1]!.prompt)
        assert.deepStrictEqual(r!.modelOutput!.map((p) => p.type), ["text", "file"])
        assert.strictEqual(r!.text, `${"line 0 ".padEnd(10, "x").slice(0, 10)}\n[file image/png]`)
      }).pipe(Effect.provide(session([bigTool("pic", { withImage: true })])))))

  it.effect("stops after maxSteps requests", () =>
    withModel([
      () => [toolCall("1", "echo", { message: "a" }), finish()],
      () => [toolCall("2", "echo", { message: "b" }), finish()]
    ], () =>
      Effect.gen(function*() {
        const seen = yield* Ref.make(0)
        const result = yield* runAgent({ prompt: "loop", maxSteps: 2, onStep: () => Ref.update(seen, (n) => n + 1) })
        assert.strictEqual(result.stoppedBy, "max-steps")
        assert.strictEqual(result.steps.length, 2)
        assert.strictEqual(yield* Ref.get(seen), 2)
      }).pipe(Effect.provide(session([echoTool("echo", { deferred: false })])))))
})

describe("effect/ai door: the toolkit with effect/ai's own resolution", () => {
  it.effect("generateText runs the handlers through the scheduler; failures are results, not errors", () =>
    withModel([
      () => [toolCall("ok", "echo", { message: "hi" }), toolCall("bad", "echo", { message: "x", fail: true }), finish()]
    ], () =>
      Effect.gen(function*() {
        const toolkit = yield* SessionToolkit
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: toolkit.current })
        // effect/ai merges the handlers' results as they finish: compare by id
        const results = response.toolResults.map((r) => [r.id, r.isFailure, r.result]).sort()
        assert.deepStrictEqual(results, [
          ["bad", true, { error: "asked to fail: x", code: "execution_failed" }],
          ["ok", false, { output: "hi" }]
        ])
        const ok = response.toolResults.find((r) => r.id === "ok")!
        assert.deepStrictEqual(ok.modelOutput?.map((p) => p.type === "text" ? p.text : p.type), ["hi"])
      }).pipe(Effect.provide(session([echoTool("echo", { deferred: false })])))))

  it.effect("layerWith({ onPart }): a call's live parts reach the caller with effect/ai's call id, before its result", () => {
    const seen: Array<[string, LivePart, PartOrigin]> = []
    return withModel([
      () => [toolCall("p1", "progress", { steps: 2, delayMs: 0 }), finish()]
    ], () =>
      Effect.gen(function*() {
        const toolkit = yield* SessionToolkit
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: toolkit.current })
        assert.deepStrictEqual(response.toolResults.map((r) => r.result), [{ output: "done after 2 steps" }])
        assert.deepStrictEqual(seen, [
          ["p1", { type: "progress", message: "step 1", progress: 1, total: 2 }, "live"],
          ["p1", { type: "progress", message: "step 2", progress: 2, total: 2 }, "live"],
          ["p1", { type: "text", text: "done after 2 steps" }, "result"]
        ])
      }).pipe(Effect.provide(session([progressTool()], {
        toolkit: { onPart: (callId, part, origin) => Effect.sync(() => void seen.push([callId, part, origin])) }
      }))))
  })

  it.effect("current is rebuilt per request: a reveal shows up in the next request's tools", () =>
    withModel([
      () => [toolCall("s", "tool_search", { query: "select:echo_deferred" }), finish()],
      () => [toolCall("e", "echo_deferred", { message: "yes" }), finish()]
    ], (requests) =>
      Effect.gen(function*() {
        const toolkit = yield* SessionToolkit
        yield* LanguageModel.generateText({ prompt: "find", toolkit: toolkit.current })
        const second = yield* LanguageModel.generateText({ prompt: "use", toolkit: toolkit.current })
        const seen = yield* requests
        assert.deepStrictEqual(seen.map((r) => r.toolNames), [["tool_search"], ["echo_deferred", "tool_search"]])
        assert.deepStrictEqual(second.toolResults.map((r) => r.result), [{ output: "yes" }])
      }).pipe(Effect.provide(session([echoTool("echo_deferred")])))))

  it.live("calls that are not concurrency-safe by Kind never overlap another call, even though effect/ai runs handlers in parallel", () => {
    const log: Array<{ name: string; id: string; start: number; end: number }> = []
    return withModel([
      () => [
        toolCall("1", "reader", { id: "r1" }),
        toolCall("2", "writer", { id: "w1" }),
        toolCall("3", "reader", { id: "r2" }),
        toolCall("4", "writer", { id: "w2" }),
        finish()
      ]
    ], () =>
      Effect.gen(function*() {
        const toolkit = yield* SessionToolkit
        const response = yield* LanguageModel.generateText({ prompt: "go", toolkit: toolkit.current })
        assert.strictEqual(response.toolResults.length, 4)
        assert.strictEqual(log.length, 4)
        for (const w of log.filter((e) => e.name === "writer")) {
          for (const other of log.filter((e) => e !== w)) {
            assert.isTrue(other.end <= w.start || other.start >= w.end, `${other.id} overlaps ${w.id}`)
          }
        }
      }).pipe(Effect.provide(session([timedTool("reader", Kind.Read, log, 30), timedTool("writer", Kind.Edit, log, 30)]))))
  })
})
