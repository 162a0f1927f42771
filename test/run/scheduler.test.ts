import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { Effect, Fiber, Layer } from "effect"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import { ToolHooks } from "../../src/run/hooks.js"
import { partitionByConcurrencySafety, Scheduler } from "../../src/run/scheduler.js"
import { Kind } from "../../src/tool/kind.js"
import { testSession } from "../support/session.js"
import { echoTool, timedTool, touchTool } from "../support/tools.js"

const call = (name: string, args: unknown, callId = `${name}-${Math.random().toString(16).slice(2, 8)}`) => ({ callId, name, args })

describe("partitionByConcurrencySafety", () => {
  const kinds = (ks: ReadonlyArray<string>) =>
    partitionByConcurrencySafety(ks, (k) => k === "read" || k === "search" || k === "fetch").map((r) => [r.parallel, r.items])
  it("follows the reference vectors", () => {
    assert.deepStrictEqual(kinds(["read", "read", "edit", "read"]), [[true, ["read", "read"]], [false, ["edit"]], [true, ["read"]]])
    assert.deepStrictEqual(kinds([]), [])
    assert.deepStrictEqual(kinds(["edit", "edit"]), [[false, ["edit"]], [false, ["edit"]]])
    assert.deepStrictEqual(kinds(["read", "search", "fetch"]), [[true, ["read", "search", "fetch"]]])
  })
})

describe("Scheduler.runBatch", () => {
  it.effect("returns results in call order with the right codes for unknown, invalid, failing and good calls", () => {
    const s = testSession([echoTool("echo", { deferred: false }), touchTool])
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const batch = yield* scheduler.runBatch([
        call("nope", {}, "1"),
        call("echo", { message: 3 }, "2"),
        call("echo", { message: "x", fail: true }, "3"),
        call("echo", { message: "hello" }, "4")
      ])
      assert.deepStrictEqual(batch.results.map((r) => r.callId), ["1", "2", "3", "4"])
      const [unknown, invalid, failed, ok] = batch.results
      assert.strictEqual(unknown!._tag === "Failure" && unknown!.code, "tool_not_registered")
      assert.strictEqual(invalid!._tag === "Failure" && invalid!.code, "invalid_tool_params")
      assert.strictEqual(failed!._tag === "Failure" && failed!.code, "execution_failed")
      assert.strictEqual(ok!._tag, "Success")
      if (ok!._tag === "Success") assert.deepStrictEqual(ok!.llmContent, [{ type: "text", text: "hello" }])
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("reports every path a call touched: its locations, resolved once from params annotated as paths", () => {
    const s = testSession([touchTool], { mode: "yolo" })
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const batch = yield* scheduler.runBatch([call("touch_path", { file_path: "src/a.ts" }), call("touch_path", { file_path: "../outside" })])
      assert.deepStrictEqual(batch.touchedPaths, [path.join(s.root, "src/a.ts")])
      // a path param that does not resolve inside the workspace fails the call (never swallowed)
      const outside = batch.results[1]!
      assert.strictEqual(outside._tag === "Failure" && outside.code, "path_not_in_workspace")
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("policy: a deny rule fails with execution_denied; plan mode denies mutating kinds", () => {
    const s = testSession([touchTool, echoTool("echo", { deferred: false })], {
      rules: [{ decision: "deny", pattern: "touch_path(secret/**)" }]
    })
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const denied = yield* scheduler.runOne(call("touch_path", { file_path: "secret/key" }))
      assert.strictEqual(denied._tag === "Failure" && denied.code, "execution_denied")
      assert.include(denied._tag === "Failure" ? denied.message : "", `"touch_path(secret/**)"`)
      yield* scheduler.setMode("plan")
      const planned = yield* scheduler.runOne(call("touch_path", { file_path: "ok.txt" }))
      assert.strictEqual(planned._tag === "Failure" && planned.code, "execution_denied")
      assert.include(planned._tag === "Failure" ? planned.message : "", "plan mode")
      const read = yield* scheduler.runOne(call("echo", { message: "still fine" }))
      assert.strictEqual(read._tag, "Success")
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("ask: the approver sees the confirmation; cancel tells the model; proceed_always is remembered", () =>
    Effect.gen(function*() {
      const recording = yield* makeRecordingApprover([{ _tag: "cancel", reason: "not now" }, { _tag: "proceed_always" }])
      const s = testSession([touchTool], { approver: Layer.succeed(Approver, recording.approver) })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const cancelled = yield* scheduler.runOne(call("touch_path", { file_path: "a" }))
        assert.strictEqual(cancelled._tag, "Cancelled")
        assert.include(cancelled._tag === "Cancelled" ? cancelled.message : "", "not now")
        const first = yield* scheduler.runOne(call("touch_path", { file_path: "b" }))
        const second = yield* scheduler.runOne(call("touch_path", { file_path: "c" }))
        assert.strictEqual(first._tag, "Success")
        assert.strictEqual(second._tag, "Success")
      }).pipe(Effect.provide(s.layer))
      const requests = yield* recording.requests
      assert.strictEqual(requests.length, 2)
      assert.strictEqual(requests[0]!.details.type, "info")
      // a custom tool's path param reaches its invoke resolved against the workspace root
      assert.strictEqual(requests[0]!.description, `touch ${path.join(s.root, "a")}`)
    }))

  it.effect("a pre-call hook can block a call with a reason; the post-call hook observes outcomes", () =>
    Effect.gen(function*() {
      const seen: Array<string> = []
      const hooks = Layer.succeed(ToolHooks, ToolHooks.of({
        beforeCall: (inv) => Effect.succeed(inv.description.includes("forbidden") ? { _tag: "Block", reason: "no forbidden words" } : { _tag: "Continue" }),
        afterCall: (o) => Effect.sync(() => void seen.push(`${o.invocation.description}:${o.outcome}`))
      }))
      const s = testSession([echoTool("echo", { deferred: false })], { hooks })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const blocked = yield* scheduler.runOne(call("echo", { message: "forbidden" }))
        assert.strictEqual(blocked._tag === "Failure" && blocked.code, "execution_denied")
        assert.include(blocked._tag === "Failure" ? blocked.message : "", "no forbidden words")
        yield* scheduler.runOne(call("echo", { message: "fine" }))
        yield* scheduler.runOne(call("echo", { message: "bad", fail: true }))
      }).pipe(Effect.provide(s.layer))
      assert.deepStrictEqual(seen, ["echo fine:success", "echo bad:failure"])
    }))

  it.live("concurrency: two Read calls overlap; an Edit-kind call overlaps nothing", () =>
    Effect.gen(function*() {
      const log: Array<{ name: string; id: string; start: number; end: number }> = []
      const s = testSession([timedTool("slow_read", Kind.Read, log), timedTool("slow_edit", Kind.Edit, log)], { mode: "yolo" })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        yield* scheduler.runBatch([
          call("slow_read", { id: "r1" }),
          call("slow_read", { id: "r2" }),
          call("slow_edit", { id: "e1" }),
          call("slow_read", { id: "r3" }),
          call("slow_read", { id: "r4" })
        ])
      }).pipe(Effect.provide(s.layer))
      const byId = Object.fromEntries(log.map((e) => [e.id, e]))
      const overlaps = (a: string, b: string) => byId[a]!.start < byId[b]!.end && byId[b]!.start < byId[a]!.end
      assert.isTrue(overlaps("r1", "r2"))
      assert.isTrue(overlaps("r3", "r4"))
      for (const other of ["r1", "r2", "r3", "r4"]) assert.isFalse(overlaps("e1", other))
      assert.isTrue(byId["e1"]!.start >= Math.max(byId["r1"]!.end, byId["r2"]!.end))
      assert.isTrue(byId["r3"]!.start >= byId["e1"]!.end)
    }))

  it.live("the concurrency cap bounds parallel calls", () =>
    Effect.gen(function*() {
      const log: Array<{ name: string; id: string; start: number; end: number }> = []
      const s = testSession([timedTool("slow_read", Kind.Read, log, 100)], { maxConcurrency: 2 })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        yield* scheduler.runBatch(["a", "b", "c", "d", "e"].map((id) => call("slow_read", { id })))
      }).pipe(Effect.provide(s.layer))
      // the most intervals active at one instant (sweep over start points)
      const maxActive = Math.max(...log.map((e) => log.filter((o) => o.start <= e.start && e.start < o.end).length))
      assert.strictEqual(log.length, 5)
      assert.strictEqual(maxActive, 2)
    }))

  it.live("interrupting the batch interrupts its calls", () =>
    Effect.gen(function*() {
      const log: Array<{ name: string; id: string; start: number; end: number }> = []
      const s = testSession([timedTool("slow_read", Kind.Read, log, 5_000)])
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const fiber = yield* Effect.forkChild(scheduler.runBatch([call("slow_read", { id: "x" })]))
        yield* Effect.sleep("50 millis")
        yield* Fiber.interrupt(fiber)
      }).pipe(Effect.provide(s.layer))
      assert.deepStrictEqual(log, [])
    }))
})
