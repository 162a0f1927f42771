import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { Effect } from "effect"
import { SessionEvents } from "../../src/session/index.js"
import { isWaitingOnTerminal } from "../../src/shell/terminal/ttyWait.js"

describe("SessionEvents reminders", () => {
  it.effect("are taken once, in order; a key replaces the one waiting; sources are asked at each take", () =>
    Effect.gen(function*() {
      const events = yield* SessionEvents
      assert.deepStrictEqual(yield* events.takeReminders, [])
      yield* events.remind("a", "first")
      yield* events.remind("b", "second")
      yield* events.remind("a", "first, again")
      let polled = 0
      yield* events.addReminderSource(Effect.sync(() => (++polled === 1 ? "from the source" : null)))
      assert.deepStrictEqual(yield* events.takeReminders, ["second", "first, again", "from the source"])
      assert.deepStrictEqual(yield* events.takeReminders, [])
      assert.strictEqual(polled, 2)
    }).pipe(Effect.provide(SessionEvents.layer)))
})

describe("isWaitingOnTerminal", () => {
  it.live("a process blocked reading a pipe, does not wait on a terminal", () =>
    Effect.gen(function*() {
      const child = spawn("bash", ["-c", "read x"], { stdio: ["pipe", "ignore", "ignore"] })
      yield* Effect.sleep("300 millis")
      // blocked in read, but on a pipe
      assert.isFalse(isWaitingOnTerminal(child.pid!))
      assert.isFalse(isWaitingOnTerminal(child.pid!, "mips"))
      child.kill("SIGKILL")
      assert.isFalse(isWaitingOnTerminal(2 ** 30))
    }))
})
