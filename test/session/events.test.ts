/**
 * SessionEvents: the bus between the rooms that produce events (background shells, the MCP gateway)
 * and the door that forwards them (serve). A subscriber hears what is published after it
 * subscribed; a real background shell announces its end there.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Stream from "effect/Stream"
import { type SessionEvent, SessionEvents } from "../../src/session/events.js"
import { call, textOf, UNSANDBOXED, withSession } from "../shell/helpers.js"

describe("SessionEvents", () => {
  it.effect("delivers what is published after a subscription, to every subscriber, in order", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents
      yield* events.publish({ _tag: "PromptsChanged" }) // nobody listens yet: dropped
      const first = yield* events.subscribe
      const second = yield* events.subscribe
      const log: SessionEvent = { _tag: "Log", level: "info", logger: "test", data: "one" }
      yield* events.publish(log)
      yield* events.publish({ _tag: "PromptsChanged" })
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(first, 2)), [log, { _tag: "PromptsChanged" }])
      assert.deepStrictEqual(yield* Stream.runCollect(Stream.take(second, 2)), [log, { _tag: "PromptsChanged" }])
    }).pipe(Effect.scoped, Effect.provide(SessionEvents.layer)))

  it.live("hears a background shell of a real session finish, with its task notification", () =>
    withSession({ sandbox: UNSANDBOXED }, () =>
      Effect.gen(function*() {
        const events = yield* SessionEvents
        const stream = yield* events.subscribe
        const finished = yield* Effect.forkChild(stream.pipe(Stream.filter((e) => e._tag === "ShellFinished"), Stream.take(1), Stream.runCollect))
        const started = yield* call("run_shell_command", { command: "echo session-events-done", is_background: true, description: "echo" })
        assert.strictEqual(started._tag, "Success", textOf(started))
        const [event] = yield* Fiber.join(finished).pipe(Effect.timeout("10 seconds"))
        if (event?._tag !== "ShellFinished") return assert.fail("no ShellFinished event")
        assert.strictEqual(event.status, "completed")
        assert.match(event.shellId, /^bg_[0-9a-f]{8}$/)
        assert.include(event.text, event.shellId)
        assert.include(textOf(started), event.shellId)
      }).pipe(Effect.scoped)))
})
