/**
 * Failover keeps what the session store holds (issue 17): a session's todo list, the task board
 * and the tools it revealed survive a runner stop; the session continues on the other runner with
 * them. Two runner processes of the built CLI (`npm run build` first) on a private PostgreSQL, each
 * with its own state directory (as on two machines), and a front in this process.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Layer } from "effect"
import { ClusterFront, Front, type WireBatch } from "../../src/cluster/index.js"
import { resultOf, startRunner, textOf } from "../support/cluster.js"
import { startPostgres } from "../support/postgres.js"
import { tempDir } from "../support/serve.js"

interface McpResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
}

const toolNames = (tools: ReadonlyArray<unknown>) => tools.map((t) => (t as { readonly name: string }).name)

describe("failover: what the session store holds survives a runner stop", () => {
  it.live("todos, task board and revealed tools continue on the other runner", () =>
    Effect.gen(function*() {
      const pg = yield* startPostgres()
      const root = yield* tempDir("tw-failover-root-")
      const front = Context.get(yield* Layer.build(Front.layer({ sqlUrl: pg.url })), ClusterFront)
      const a = yield* startRunner({ sqlUrl: pg.url, root, stateDir: yield* tempDir("tw-failover-a-") })
      // the session starts on A: B joins only after it is placed
      let callSeq = 0
      const call = (name: string, args: unknown) => front.callBatch("moving", [{ callId: `c${++callSeq}`, name, args }])

      const todos = [{ content: "Port the parser", status: "in_progress", id: "1" }]
      const wrote = yield* call("todo_write", { todos })
      assert.strictEqual(wrote.runner, a.name)
      assert.notStrictEqual(resultOf(wrote).isError, true, textOf(resultOf(wrote)))
      const task = yield* call("task_create", { subject: "Review the parser", description: "Check the error paths." })
      assert.notStrictEqual(resultOf(task).isError, true, textOf(resultOf(task)))
      const search = yield* call("tool_search", { query: "select:web_fetch" })
      assert.notStrictEqual(resultOf(search).isError, true, textOf(resultOf(search)))
      assert.include(toolNames((yield* front.listTools("moving")).tools), "web_fetch")

      const b = yield* startRunner({ sqlUrl: pg.url, root, stateDir: yield* tempDir("tw-failover-b-") })
      // SIGTERM: the session closes and saves; its shard goes to B
      yield* a.stop("SIGTERM")

      const listed = yield* call("task_list", {})
      assert.strictEqual(listed.runner, b.name)
      const text = textOf(resultOf(listed))
      assert.include(text, "Review the parser")
      // the first result on B tells the model its unfinished todo list
      assert.include(text, "This session was resumed and its todo list")
      assert.include(text, "Port the parser")
      const tools = yield* front.listTools("moving")
      assert.strictEqual(tools.runner, b.name)
      assert.include(toolNames(tools.tools), "web_fetch")
      // todo_write on B compares with the list from A: the item is not created again, only completed
      const done = yield* call("todo_write", { todos: [{ ...todos[0]!, status: "completed" }] })
      assert.strictEqual(done.runner, b.name)
      assert.notStrictEqual(resultOf(done).isError, true, textOf(resultOf(done)))
    }).pipe(Effect.scoped), 240_000)
})
