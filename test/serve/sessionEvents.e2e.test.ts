/**
 * The serve door hears the session's events (SessionEvents) without knowing the rooms that publish
 * them: a background shell that finishes reaches the host as an MCP log notification.
 */
import { assert, describe, it } from "@effect/vitest"
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

describe("toolwright serve: session events", () => {
  it.live("forwards a finished background shell as a log notification", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--sandbox", "off"])
      const heard = yield* Deferred.make<{ readonly level: string; readonly data: unknown }>()
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        if (n.params.logger === "toolwright/background") Deferred.doneUnsafe(heard, Effect.succeed({ level: n.params.level, data: n.params.data }))
      })
      const started = yield* Effect.promise(() =>
        client.callTool({ name: "run_shell_command", arguments: { command: "echo serve-events-done", is_background: true, description: "echo" } })
      )
      assert.isUndefined(started.isError, JSON.stringify(started.content))
      const id = /bg_[0-9a-f]{8}/.exec(JSON.stringify(started.content))?.[0]
      assert.isDefined(id)
      const log = yield* Deferred.await(heard).pipe(Effect.timeout("10 seconds"))
      assert.strictEqual(log.level, "info")
      assert.include(String(log.data), id!)
      assert.include(String(log.data), "completed")
    }), 60_000)
})
