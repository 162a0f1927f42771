/**
 * Lazy tools as scoped resources: what a factory acquires lives as long as the tool, is acquired once
 * for concurrent first callers, and is released when the tool is disabled, replaced or removed, when
 * the session closes, or (for idle-released tools) after its idle time.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { type Duration, Effect, Fiber, Layer, Ref } from "effect"
import { TestClock } from "effect/testing"
import * as Registry from "../../src/registry/registry.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { Approver } from "../../src/run/approver.js"
import { echoTool } from "../support/tools.js"
import { makeTempDir } from "../support/session.js"

interface Counts {
  readonly acquired: number
  readonly released: number
}

/** A factory whose load acquires a counted resource in the tool's scope. */
const countedFactory = (
  name: string,
  counts: Ref.Ref<Counts>,
  options: { readonly delay?: Duration.Input; readonly failFirst?: Ref.Ref<number>; readonly idleTimeToLive?: Duration.Input; readonly declared?: boolean } = {}
): Registry.ToolFactory => {
  const tool = echoTool(name, { deferred: false })
  return {
    name,
    ...(options.declared ? { info: tool } : {}),
    ...(options.idleTimeToLive !== undefined ? { idleTimeToLive: options.idleTimeToLive } : {}),
    load: Effect.gen(function*() {
      yield* Effect.acquireRelease(
        Ref.update(counts, (c) => ({ ...c, acquired: c.acquired + 1 })),
        () => Ref.update(counts, (c) => ({ ...c, released: c.released + 1 }))
      )
      if (options.delay !== undefined) yield* Effect.sleep(options.delay)
      if (options.failFirst !== undefined && (yield* Ref.getAndUpdate(options.failFirst, (n) => n + 1)) === 0) {
        return yield* Effect.fail(new Error("the first acquisition fails"))
      }
      return echoTool(name, { deferred: false })
    })
  }
}

const zero: Counts = { acquired: 0, released: 0 }

describe("lazy tools as scoped resources", () => {
  it.effect("disabling a loaded tool runs its finalizer once; the name stays disabled", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const registry = yield* Registry.make([countedFactory("res", counts)])
      yield* registry.ensure("res")
      yield* registry.ensure("res")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
      assert.deepStrictEqual(yield* registry.disable(["res"]), ["res"])
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 1 })
      assert.deepStrictEqual(yield* registry.disable(["res"]), [])
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 1 })
      assert.strictEqual((yield* Effect.flip(registry.ensure("res"))).code, "tool_not_registered")
      assert.strictEqual((yield* registry.registerFactory(countedFactory("res", counts)))._tag, "Disabled")
      assert.deepStrictEqual(yield* registry.names, [])
    }))

  it.live("two concurrent first calls acquire once and get the same tool", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const registry = yield* Registry.make([countedFactory("slow", counts, { delay: "30 millis", declared: true })])
      const [a, b] = yield* Effect.all([registry.ensure("slow"), registry.ensure("slow")], { concurrency: "unbounded" })
      assert.strictEqual(a, b)
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
      // the declared stand-in was replaced by the loaded tool: later calls do not load again
      const result = yield* (yield* registry.ensure("slow")).call({ message: "hi" })
      assert.deepStrictEqual(result.data, { echoed: "hi" })
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
    }))

  it.effect("registering the name again releases the old tool's resources; the new one is acquired on its first call", () =>
    Effect.gen(function*() {
      const first = yield* Ref.make(zero)
      const second = yield* Ref.make(zero)
      const registry = yield* Registry.make([countedFactory("swap", first)])
      const old = yield* registry.ensure("swap")
      assert.deepStrictEqual((yield* registry.registerFactory(countedFactory("swap", second)))._tag, "Replaced")
      assert.deepStrictEqual(yield* Ref.get(first), { acquired: 1, released: 1 })
      assert.deepStrictEqual(yield* Ref.get(second), zero)
      const replacement = yield* registry.ensure("swap")
      assert.notStrictEqual(replacement, old)
      assert.deepStrictEqual(yield* Ref.get(second), { acquired: 1, released: 0 })
      // a loaded tool registered under the name (MCP re-discovery) replaces the factory too
      yield* registry.register(echoTool("swap", { deferred: false }))
      assert.deepStrictEqual(yield* Ref.get(second), { acquired: 1, released: 1 })
      assert.deepStrictEqual(yield* Ref.get(first), { acquired: 1, released: 1 })
    }))

  it.effect("closing the registry's scope releases every loaded tool, once", () =>
    Effect.gen(function*() {
      const a = yield* Ref.make(zero)
      const b = yield* Ref.make(zero)
      const pending = yield* Ref.make(zero)
      yield* Effect.gen(function*() {
        const registry = yield* Registry.ToolRegistry
        yield* registry.ensure("a")
        yield* registry.ensure("b")
      }).pipe(Effect.provide(Registry.layer([countedFactory("a", a), countedFactory("b", b), countedFactory("never_called", pending)])))
      assert.deepStrictEqual(yield* Ref.get(a), { acquired: 1, released: 1 })
      assert.deepStrictEqual(yield* Ref.get(b), { acquired: 1, released: 1 })
      assert.deepStrictEqual(yield* Ref.get(pending), zero)
    }))

  it.effect("a failed acquisition releases what it acquired and does not poison later calls", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const attempts = yield* Ref.make(0)
      const registry = yield* Registry.make([countedFactory("flaky", counts, { failFirst: attempts })])
      const error = yield* Effect.flip(registry.ensure("flaky"))
      assert.strictEqual(error.code, "execution_failed")
      assert.include(error.message, "the first acquisition fails")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 1 })
      const tool = yield* registry.ensure("flaky")
      assert.strictEqual(tool.name, "flaky")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 2, released: 1 })
      assert.strictEqual(yield* Ref.get(attempts), 2)
    }))

  it.effect("an idle-released tool is released after its idle time and acquired again by the next call", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const registry = yield* Registry.make([countedFactory("heavy", counts, { idleTimeToLive: "1 minute", declared: true })])
      const tool = yield* registry.ensure("heavy")
      assert.deepStrictEqual(yield* Ref.get(counts), zero, "listing and ensuring do not acquire")
      assert.deepStrictEqual((yield* tool.call({ message: "one" })).data, { echoed: "one" })
      assert.deepStrictEqual((yield* tool.call({ message: "two" })).data, { echoed: "two" })
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
      yield* TestClock.adjust("59 seconds")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
      yield* TestClock.adjust("2 seconds")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 1 })
      // a call built before a release and run after it runs on the newly acquired tool
      const invocation = yield* tool.build({ message: "late" })
      yield* TestClock.adjust("2 minutes")
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 2, released: 2 })
      assert.deepStrictEqual((yield* invocation.execute()).data, { echoed: "late" })
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 3, released: 2 })
      // disabling releases at once, without waiting for the idle time
      yield* registry.disable(["heavy"])
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 3, released: 3 })
    }))

  it.effect("an idle-released tool whose acquisition fails is acquired afresh by the next call", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const attempts = yield* Ref.make(0)
      const registry = yield* Registry.make([countedFactory("heavy", counts, { idleTimeToLive: "1 hour", failFirst: attempts })])
      assert.deepStrictEqual((yield* Effect.flip(registry.ensure("heavy"))).code, "execution_failed")
      const tool = yield* registry.ensure("heavy")
      assert.deepStrictEqual((yield* tool.call({ message: "ok" })).data, { echoed: "ok" })
      assert.strictEqual(yield* Ref.get(attempts), 2)
      assert.deepStrictEqual((yield* Ref.get(counts)).released, 1)
    }))

  it.live("a tool that owns a child process: disabling it kills the process; the session's close kills another", () =>
    Effect.gen(function*() {
      const root = makeTempDir("tw-scoped-")
      const pidFile = (name: string) => path.join(root, `${name}.pid`)
      const processTool = (name: string): Registry.ToolFactory => ({
        name,
        load: Effect.gen(function*() {
          const child = yield* Effect.acquireRelease(
            Effect.sync(() => spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })),
            (child) => Effect.sync(() => child.kill("SIGKILL"))
          )
          fs.writeFileSync(pidFile(name), String(child.pid))
          return echoTool(name, { deferred: false })
        })
      })
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0)
          return true
        } catch {
          return false
        }
      }
      const waitDead = (pid: number) =>
        Effect.gen(function*() {
          for (let i = 0; i < 200 && alive(pid); i++) yield* Effect.sleep("25 millis")
          return !alive(pid)
        })
      const session = SessionLayer.layer({
        roots: [root],
        stateDir: makeTempDir("tw-scoped-state-"),
        builtins: false,
        tools: [processTool("first_process"), processTool("second_process")]
      }).pipe(Layer.provide(Approver.layerFixed({ _tag: "proceed_once" })))
      const firstPid = yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const registry = yield* Registry.ToolRegistry
        const batch = yield* scheduler.runBatch([
          { callId: "1", name: "first_process", args: { message: "a" } },
          { callId: "2", name: "second_process", args: { message: "b" } }
        ])
        assert.deepStrictEqual(batch.results.map((r) => r._tag), ["Success", "Success"])
        const first = Number(fs.readFileSync(pidFile("first_process"), "utf8"))
        assert.isTrue(alive(first))
        yield* registry.disable(["first_process"])
        assert.isTrue(yield* waitDead(first), "disabling the tool killed its process")
        assert.isTrue(alive(Number(fs.readFileSync(pidFile("second_process"), "utf8"))))
        return first
      }).pipe(Effect.provide(session))
      assert.isFalse(alive(firstPid))
      assert.isTrue(yield* waitDead(Number(fs.readFileSync(pidFile("second_process"), "utf8"))), "closing the session killed the other")
    }), 20_000)

  it.live("a session's concurrent first calls of a slow factory acquire it once", () =>
    Effect.gen(function*() {
      const counts = yield* Ref.make(zero)
      const session = SessionLayer.layer({
        roots: [makeTempDir("tw-scoped-")],
        stateDir: makeTempDir("tw-scoped-state-"),
        builtins: false,
        tools: [countedFactory("slow_read", counts, { delay: "50 millis" })]
      }).pipe(Layer.provide(Approver.layerFixed({ _tag: "proceed_once" })))
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const fibers = yield* Effect.forEach(
          ["1", "2", "3"],
          (callId) => Effect.forkChild(scheduler.runOne({ callId, name: "slow_read", args: { message: callId } }))
        )
        const results = yield* Effect.forEach(fibers, Fiber.join)
        assert.deepStrictEqual(results.map((r) => r._tag), ["Success", "Success", "Success"])
        assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 0 })
      }).pipe(Effect.provide(session))
      assert.deepStrictEqual(yield* Ref.get(counts), { acquired: 1, released: 1 })
    }), 20_000)
})
