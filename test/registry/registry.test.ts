import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect, Fiber, Ref, Stream } from "effect"
import * as Registry from "../../src/registry/registry.js"
import { PublishFailed } from "../../src/registry/registry.js"
import { echoTool } from "../support/tools.js"

const names = (list: ReadonlyArray<{ readonly name: string }>) => list.map((t) => t.name)

describe("ToolRegistry.ensure", () => {
  it.live("runs a factory at most once with 100 concurrent callers", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([{
        name: "slow",
        load: Effect.gen(function*() {
          yield* Ref.update(loads, (n) => n + 1)
          yield* Effect.sleep("20 millis")
          // a real dynamic import, as the built-in catalog does
          const mod = yield* Effect.promise(() => import("../support/tools.js"))
          return mod.echoTool("slow", { deferred: false })
        })
      }])
      const tools = yield* Effect.forEach(Array.from({ length: 100 }), () => registry.ensure("slow"), { concurrency: "unbounded" })
      assert.strictEqual(yield* Ref.get(loads), 1)
      assert.isTrue(tools.every((t) => t === tools[0]))
      yield* registry.ensure("slow")
      assert.strictEqual(yield* Ref.get(loads), 1)
    }))

  it.effect("a failed factory can be retried later", () =>
    Effect.gen(function*() {
      const attempts = yield* Ref.make(0)
      const registry = yield* Registry.make([{
        name: "flaky",
        load: Effect.gen(function*() {
          const n = yield* Ref.updateAndGet(attempts, (k) => k + 1)
          if (n === 1) return yield* Effect.fail(new Error("first load fails"))
          return echoTool("flaky", { deferred: false })
        })
      }])
      const first = yield* Effect.flip(registry.ensure("flaky"))
      assert.strictEqual(first.code, "execution_failed")
      assert.include(first.message, "first load fails")
      const tool = yield* registry.ensure("flaky")
      assert.strictEqual(tool.name, "flaky")
      assert.strictEqual(yield* Ref.get(attempts), 2)
    }))

  it.effect("unknown names fail with tool_not_registered", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      const error = yield* Effect.flip(registry.ensure("nope"))
      assert.strictEqual(error.code, "tool_not_registered")
      assert.include(error.message, "nope")
    }))

  it.effect("warmAll loads everything and reports failures without raising", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make([
        { name: "a", load: Effect.succeed(echoTool("a")) },
        { name: "b", load: Effect.fail("broken") }
      ])
      const report = yield* registry.warmAll
      assert.strictEqual(report.loaded, 1)
      assert.deepStrictEqual(report.failed, ["b"])
      assert.deepStrictEqual(yield* registry.names, ["a", "b"])
    }))
})

describe("registration", () => {
  it.effect("skips disabled names", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make([{ name: "x", load: Effect.succeed(echoTool("x")) }], { disabled: ["x", "y"] })
      const outcome = yield* registry.register(echoTool("y"))
      assert.strictEqual(outcome._tag, "Disabled")
      assert.deepStrictEqual(yield* registry.names, [])
    }))

  it.effect("renames an MCP tool on a clash, and checks the disabled set again after the rename", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make([], { disabled: ["mcp__blocked__search"] })
      yield* registry.register(echoTool("search"))
      const mcpTool = { ...echoTool("search"), serverName: "github" }
      const renamed = yield* registry.register({ ...mcpTool, withName: (n: string) => ({ ...echoTool(n), serverName: "github" }) })
      assert.deepStrictEqual(renamed, { _tag: "Renamed", from: "search", name: "mcp__github__search" })
      const blocked = yield* registry.register({ ...echoTool("search"), serverName: "blocked" })
      assert.deepStrictEqual(blocked, { _tag: "Disabled", name: "mcp__blocked__search" })
      assert.deepStrictEqual(yield* registry.names, ["mcp__github__search", "search"])
    }))

  it.effect("a non-MCP clash replaces the earlier tool", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      yield* registry.register(echoTool("dup"))
      const outcome = yield* registry.register(echoTool("dup", { deferred: false }))
      assert.strictEqual(outcome._tag, "Replaced")
      assert.isFalse((yield* registry.ensure("dup")).shouldDefer)
    }))
})

describe("disclosure", () => {
  it.effect("declarations = non-deferred ∪ alwaysLoad ∪ visible ∪ revealed, sorted by name", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make([], { visible: ["shown_deferred"] })
      yield* registry.register(echoTool("zeta", { deferred: false }))
      yield* registry.register(echoTool("hidden"))
      yield* registry.register(echoTool("shown_deferred"))
      yield* registry.register({ ...echoTool("always"), alwaysLoad: true })
      assert.deepStrictEqual(names(yield* registry.declarations), ["always", "shown_deferred", "zeta"])
      assert.isTrue(yield* registry.isDeferredAndHidden("hidden"))
      assert.deepStrictEqual(names(yield* registry.deferredSummary), ["hidden"])
      assert.deepStrictEqual(yield* registry.reveal(["hidden", "zeta", "unknown"]), ["hidden"])
      assert.deepStrictEqual(names(yield* registry.declarations), ["always", "hidden", "shown_deferred", "zeta"])
      assert.deepStrictEqual(yield* registry.reveal(["hidden"]), [])
      yield* registry.clearRevealed
      assert.deepStrictEqual(names(yield* registry.declarations), ["always", "shown_deferred", "zeta"])
    }))

  it.effect("removeByServer removes a server's tools and their reveal marks together", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      yield* registry.register({ ...echoTool("mcp__gh__a"), serverName: "gh" })
      yield* registry.register({ ...echoTool("mcp__gh__b"), serverName: "gh" })
      yield* registry.register({ ...echoTool("mcp__sl__c"), serverName: "sl" })
      yield* registry.reveal(["mcp__gh__a", "mcp__sl__c"])
      assert.deepStrictEqual([...(yield* registry.removeByServer("gh"))].sort(), ["mcp__gh__a", "mcp__gh__b"])
      assert.deepStrictEqual(names(yield* registry.declarations), ["mcp__sl__c"])
      // re-registering the removed tool: it starts hidden again (its reveal mark went with it)
      yield* registry.register({ ...echoTool("mcp__gh__a"), serverName: "gh" })
      assert.isTrue(yield* registry.isDeferredAndHidden("mcp__gh__a"))
    }))

  it.effect("publishes every change as a stream", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      const changesStream = yield* registry.subscribe
      const fiber = yield* changesStream.pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      yield* registry.register(echoTool("x"))
      yield* registry.reveal(["x"])
      const changes = yield* Fiber.join(fiber)
      assert.deepStrictEqual(changes.map((c) => c.reason), ["registered", "revealed"])
      assert.deepStrictEqual(changes.map((c) => c.names), [["x"], ["x"]])
      assert.deepStrictEqual(names(yield* registry.declarations), ["x"])
    }))

  it.effect("a failing publisher fails the reveal but does not undo it: the tools stay revealed and callable", () =>
    Effect.gen(function*() {
      const registry = yield* Registry.make()
      for (const n of ["a", "b", "c"]) yield* registry.register(echoTool(n))
      yield* registry.reveal(["a"])
      yield* registry.setPublisher(() => Effect.fail(new PublishFailed({ message: "host gone" })))
      const error = yield* Effect.flip(registry.reveal(["b", "c"]))
      assert.strictEqual(error.message, "host gone")
      assert.deepStrictEqual(names(yield* registry.declarations), ["a", "b", "c"])
      assert.deepStrictEqual((yield* registry.toolSet).version, 5)
    }))

  it("property: with a publisher that fails at random, every reveal commits once and the version counts the commits", async () => {
    const toolNames = ["t0", "t1", "t2", "t3", "t4", "t5"]
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ names: fc.subarray(toolNames), fails: fc.boolean() }), { maxLength: 12 }),
        async (steps) => {
          await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const registry = yield* Registry.make()
            for (const n of toolNames) yield* registry.register(echoTool(n))
            let expected = new Set<string>()
            let version = (yield* registry.toolSet).version
            for (const step of steps) {
              yield* registry.setPublisher(() => (step.fails ? Effect.fail(new PublishFailed({ message: "no" })) : Effect.void))
              const exit = yield* Effect.exit(registry.reveal(step.names))
              const wouldReveal = step.names.filter((n) => !expected.has(n))
              assert.strictEqual(exit._tag, step.fails && wouldReveal.length > 0 ? "Failure" : "Success")
              expected = new Set([...expected, ...step.names])
              if (wouldReveal.length > 0) version++
              const now = yield* registry.toolSet
              assert.deepStrictEqual(names(now.declarations), [...expected].sort())
              assert.strictEqual(now.version, version)
            }
          })))
        }
      ),
      { seed: 7, numRuns: 200 }
    )
  })
})
