import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Context, Effect, Layer, Ref } from "effect"
import { detectTodoChanges, TodoMessages } from "../../src/plan/index.js"
import { ToolRegistry } from "../../src/registry/registry.js"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import { type EventObservation, ToolHooks } from "../../src/run/hooks.js"
import { Session } from "../../src/session/session.js"
import { codeOf, dataOf, planSession, run, tempDir, textOf } from "./helpers.js"

const todo = (id: string, content: string, status = "pending") => ({ id, content, status })

const WRITTEN_HEAD = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your " +
  "progress. Please proceed with the current tasks if applicable\n<system-reminder>\nYour todo list has changed. DO NOT " +
  "mention this explicitly to the user. Here are the latest contents of your todo list:\n"
const CLEARED = "Todo list has been cleared.\n<system-reminder>\nYour todo list is now empty. DO NOT mention this explicitly " +
  "to the user. You have no pending tasks in your todo list.\n</system-reminder>"

/** A session in fresh dirs; `file` is this session's todo file. */
const setup = (extra: { readonly hooks?: Layer.Layer<ToolHooks>; readonly approver?: Layer.Layer<Approver> } = {}) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const stateDir = yield* tempDir()
    const layer = planSession({ root, stateDir, ...extra })
    const context = yield* Layer.build(layer)
    const sessionId = Context.get(context, Session).id
    const file = path.join(stateDir, "todos", `${sessionId}.json`)
    const call = (args: unknown) => Effect.provideContext(run("todo_write", args), context)
    return { root, stateDir, file, sessionId, call, context }
  })

describe("todo_write: validation (the Schema, with the reference's messages)", () => {
  const cases: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["no todos", {}, "params.todos", TodoMessages.notArray],
    ["todos not an array", { todos: "buy milk" }, "params.todos", TodoMessages.notArray],
    ["a todo that is not an object", { todos: [3] }, "params.todos.0", TodoMessages.notObject],
    ["a missing id", { todos: [{ content: "a", status: "pending" }] }, "params.todos.0.id", TodoMessages.id],
    ["an empty id", { todos: [todo("", "a")] }, "params.todos.0.id", TodoMessages.id],
    ["a blank id", { todos: [todo("   ", "a")] }, "params.todos.0.id", TodoMessages.id],
    ["a numeric id", { todos: [{ id: 7, content: "a", status: "pending" }] }, "params.todos.0.id", TodoMessages.id],
    ["a missing content", { todos: [{ id: "1", status: "pending" }] }, "params.todos.0.content", TodoMessages.content],
    ["an empty content", { todos: [todo("1", "")] }, "params.todos.0.content", TodoMessages.content],
    ["a whitespace content", { todos: [todo("1", " \n\t")] }, "params.todos.0.content", TodoMessages.content],
    ["an unknown status", { todos: [todo("1", "a", "done")] }, "params.todos.0.status", TodoMessages.status],
    ["a missing status", { todos: [{ id: "1", content: "a" }] }, "params.todos.0.status", TodoMessages.status],
    ["duplicate ids", { todos: [todo("1", "a"), todo("2", "b"), todo("1", "c")] }, "params.todos", TodoMessages.unique],
    ["an extra property", { todos: [{ ...todo("1", "a"), priority: "high" }] }, "params.todos.0.priority", "Expected no excess property"]
  ]
  it.effect("rejects each bad list with invalid_tool_params, the field's path and the reference's message; nothing is written", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      for (const [label, args, at, message] of cases) {
        const result = yield* s.call(args)
        assert.strictEqual(codeOf(result), "invalid_tool_params", label)
        assert.include(textOf(result), `${at}: ${message}`, label)
      }
      assert.isFalse(fs.existsSync(path.join(s.stateDir, "todos")))
    }))

  it.effect("reports every problem of a list at once", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const text = textOf(yield* s.call({ todos: [todo("", ""), todo("2", "b", "later")] }))
      assert.include(text, `params.todos.0.id: ${TodoMessages.id}`)
      assert.include(text, `params.todos.0.content: ${TodoMessages.content}`)
      assert.include(text, `params.todos.1.status: ${TodoMessages.status}`)
    }))
})

describe("todo_write: writing the list", () => {
  it.effect("replaces the whole list, persists it per session atomically and returns the reference texts", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const first = [todo("a", "Write the parser", "in_progress"), todo("b", "Test it")]
      const created = yield* s.call({ todos: first })
      assert.strictEqual(created._tag, "Success")
      const expectedJson = JSON.stringify(first.map((t) => ({ content: t.content, status: t.status, id: t.id })))
      assert.strictEqual(textOf(created), `${WRITTEN_HEAD}${expectedJson}. Continue on with the tasks at hand if applicable.\n</system-reminder>`)
      assert.deepStrictEqual(created._tag === "Success" && created.display, { _tag: "TodoList", todos: JSON.parse(expectedJson) })
      const onDisk = JSON.parse(fs.readFileSync(s.file, "utf8"))
      assert.deepStrictEqual(onDisk, { todos: JSON.parse(expectedJson), sessionId: s.sessionId })
      assert.strictEqual(fs.statSync(s.file).mode & 0o777, 0o600)

      const replaced = yield* s.call({ todos: [todo("b", "Test it", "in_progress")] })
      assert.strictEqual(replaced._tag, "Success")
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(s.file, "utf8")).todos, [{ content: "Test it", status: "in_progress", id: "b" }])
      // no temp files are left behind
      assert.deepStrictEqual(fs.readdirSync(path.dirname(s.file)), [path.basename(s.file)])

      const cleared = yield* s.call({ todos: [] })
      assert.strictEqual(textOf(cleared), CLEARED)
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(s.file, "utf8")).todos, [])
    }))

  it.effect("is described as Create todos before the first write and Update todos after; Kind think, not concurrency-safe, allowed without asking", () =>
    Effect.gen(function*() {
      const recording = yield* makeRecordingApprover([])
      const s = yield* setup({ approver: Layer.succeed(Approver, recording.approver) })
      const registry = yield* Context.get(s.context, ToolRegistry).ensure("todo_write")
      assert.strictEqual(registry.kind, "think")
      assert.strictEqual(registry.displayName, "TodoList")
      const before = yield* registry.build({ todos: [todo("1", "x")] })
      assert.strictEqual(before.description, "Create todos")
      assert.isFalse(before.concurrencySafe)
      assert.strictEqual(yield* before.defaultPermission, "allow")
      assert.strictEqual((yield* s.call({ todos: [todo("1", "x")] }))._tag, "Success")
      const after = yield* registry.build({ todos: [todo("1", "x")] })
      assert.strictEqual(after.description, "Update todos")
      assert.lengthOf(yield* recording.requests, 0)
    }))

  it.effect("keeps each session's list in its own file", () =>
    Effect.gen(function*() {
      const a = yield* setup()
      const context = yield* Layer.build(planSession({ root: a.root, stateDir: a.stateDir }))
      const otherId = Context.get(context, Session).id
      yield* a.call({ todos: [todo("1", "mine")] })
      yield* Effect.provideContext(run("todo_write", { todos: [todo("1", "theirs")] }), context)
      assert.strictEqual(JSON.parse(fs.readFileSync(a.file, "utf8")).todos[0].content, "mine")
      assert.strictEqual(JSON.parse(fs.readFileSync(path.join(a.stateDir, "todos", `${otherId}.json`), "utf8")).todos[0].content, "theirs")
    }))

  it.effect("a write that fails is file_write_failure with the reference text, and the old list stays", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      fs.mkdirSync(s.file, { recursive: true }) // the list's path is taken by a directory: rename fails
      const result = yield* s.call({ todos: [todo("1", "x")] })
      assert.strictEqual(codeOf(result), "file_write_failure")
      const text = textOf(result)
      assert.isTrue(text.startsWith("Failed to modify todos. An error occurred during the operation.\n<system-reminder>\n" +
        "Todo list modification failed with error: rename "), text)
      assert.isTrue(text.endsWith(". You may need to retry or handle this error appropriately.\n</system-reminder>"))
      assert.deepStrictEqual(fs.readdirSync(path.dirname(s.file)), [path.basename(s.file)])
    }))

  it.effect("a state dir that cannot hold the todos dir fails with the reference text", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      fs.writeFileSync(path.join(s.stateDir, "todos"), "not a directory")
      const result = yield* s.call({ todos: [todo("1", "x")] })
      assert.strictEqual(codeOf(result), "file_write_failure")
      assert.include(textOf(result), "Failed to modify todos. An error occurred during the operation.")
    }))

  it.effect("a corrupt previous list is replaced (its todos count as created)", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      fs.mkdirSync(path.dirname(s.file), { recursive: true })
      fs.writeFileSync(s.file, "{ not json")
      const result = yield* s.call({ todos: [todo("1", "x")] })
      assert.strictEqual(result._tag, "Success")
      assert.deepStrictEqual(dataOf<{ created: Array<string> }>(result).created, ["1"])
    }))
})

describe("todo_write: hooks through the scheduler's hook service", () => {
  const recordingHooks = (observations: Ref.Ref<ReadonlyArray<string>>, decide: (o: EventObservation) => Effect.Effect<
    { readonly _tag: "Continue" } | { readonly _tag: "Block"; readonly reason: string }
  > = () => Effect.succeed({ _tag: "Continue" })) =>
    ToolHooks.layer({
      onEvent: (o) =>
        Effect.andThen(
          Ref.update(observations, (all) => [
            ...all,
            `${o.phase} ${o.event._tag} ${o.event.todo.id}${o.event._tag === "TodoCompleted" ? ` from ${o.event.previousStatus}` : ""}`
          ]),
          decide(o)
        )
    })

  it.effect("created and completed todos reach the hooks: validation first, then post-write, in list order", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const s = yield* setup({ hooks: recordingHooks(seen) })
      yield* s.call({ todos: [todo("1", "a"), todo("2", "b", "in_progress")] })
      assert.deepStrictEqual(yield* Ref.get(seen), [
        "validation TodoCreated 1",
        "validation TodoCreated 2",
        "postWrite TodoCreated 1",
        "postWrite TodoCreated 2"
      ])
      yield* Ref.set(seen, [])
      const done = yield* s.call({ todos: [todo("1", "a", "in_progress"), todo("2", "b", "completed"), todo("3", "c", "completed")] })
      assert.deepStrictEqual(dataOf<{ created: Array<string>; completed: Array<string> }>(done).completed, ["2", "3"])
      assert.deepStrictEqual(yield* Ref.get(seen), [
        "validation TodoCreated 3",
        "validation TodoCompleted 2 from in_progress",
        "validation TodoCompleted 3 from undefined",
        "postWrite TodoCreated 3",
        "postWrite TodoCompleted 2 from in_progress",
        "postWrite TodoCompleted 3 from undefined"
      ])
    }))

  it.effect("a hook blocks creation: the model is told why and the list on disk is unchanged", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const s = yield* setup({
        hooks: recordingHooks(seen, (o) =>
          Effect.succeed(
            o.phase === "validation" && o.event._tag === "TodoCreated" && o.event.todo.content.includes("deploy")
              ? { _tag: "Block", reason: "deployments are frozen until Monday" }
              : { _tag: "Continue" }
          ))
      })
      yield* s.call({ todos: [todo("1", "write code")] })
      const before = fs.readFileSync(s.file, "utf8")
      yield* Ref.set(seen, [])
      const blocked = yield* s.call({ todos: [todo("1", "write code", "completed"), todo("2", "deploy to prod")] })
      assert.strictEqual(blocked._tag, "Success")
      assert.strictEqual(
        textOf(blocked),
        "Todo creation blocked: deployments are frozen until Monday\n<system-reminder>\nTodo list was not modified because a " +
          "TodoCreated hook blocked the operation: deployments are frozen until Monday\n</system-reminder>"
      )
      assert.deepStrictEqual(dataOf<{ blocked: unknown }>(blocked).blocked, { event: "TodoCreated", reason: "deployments are frozen until Monday" })
      assert.strictEqual(fs.readFileSync(s.file, "utf8"), before)
      // completion hooks do not run once creation is blocked, and nothing is post-written
      assert.deepStrictEqual(yield* Ref.get(seen), ["validation TodoCreated 2"])
    }))

  it.effect("a hook blocks completion: the list on disk is unchanged", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const s = yield* setup({
        hooks: recordingHooks(seen, (o) =>
          Effect.succeed(
            o.phase === "validation" && o.event._tag === "TodoCompleted"
              ? { _tag: "Block", reason: "run the tests before completing a todo" }
              : { _tag: "Continue" }
          ))
      })
      yield* s.call({ todos: [todo("1", "fix the bug", "in_progress")] })
      const before = fs.readFileSync(s.file, "utf8")
      const blocked = yield* s.call({ todos: [todo("1", "fix the bug", "completed")] })
      assert.isTrue(textOf(blocked).startsWith("Todo completion blocked: run the tests before completing a todo\n<system-reminder>\n" +
        "Todo list was not modified because a TodoCompleted hook blocked the operation"))
      assert.strictEqual(blocked._tag === "Success" && blocked.display, "Todo completion blocked: run the tests before completing a todo")
      assert.strictEqual(fs.readFileSync(s.file, "utf8"), before)
    }))

  it.effect("a failing validation hook blocks (fail closed); a failing post-write hook does not fail the call", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const stateDir = yield* tempDir()
      const failingValidation = ToolHooks.layer({
        onEvent: (o) => (o.phase === "validation" ? Effect.die(new Error("hook crashed")) : Effect.succeed({ _tag: "Continue" }))
      })
      const blocked = yield* run("todo_write", { todos: [todo("1", "a")] }).pipe(
        Effect.provide(planSession({ root, stateDir, hooks: failingValidation }))
      )
      assert.include(textOf(blocked), "Todo creation blocked: the TodoCreated hook failed (hook crashed)")

      const failingPostWrite = ToolHooks.layer({
        onEvent: (o) => (o.phase === "postWrite" ? Effect.die(new Error("sync service down")) : Effect.succeed({ _tag: "Continue" }))
      })
      const written = yield* run("todo_write", { todos: [todo("1", "a")] }).pipe(
        Effect.provide(planSession({ root, stateDir, hooks: failingPostWrite }))
      )
      assert.strictEqual(written._tag, "Success")
      assert.isTrue(textOf(written).startsWith("Todos have been modified successfully."))
    }))

  it.effect("without event hooks (the default), before/after call hooks still run", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const s = yield* setup({ hooks: ToolHooks.layer({ afterCall: () => Ref.update(calls, (n) => n + 1) }) })
      assert.strictEqual((yield* s.call({ todos: [todo("1", "a", "completed")] }))._tag, "Success")
      assert.strictEqual(yield* Ref.get(calls), 1)
    }))
})

describe("detectTodoChanges", () => {
  it("finds new ids and todos that became completed", () => {
    const before = [todo("1", "a"), todo("2", "b", "completed")] as const
    const after = [todo("1", "a", "completed"), todo("2", "b", "completed"), todo("3", "c")] as const
    const changes = detectTodoChanges(before as never, after as never)
    assert.deepStrictEqual(changes.created.map((t) => t.id), ["3"])
    assert.deepStrictEqual(changes.completed.map((c) => [c.todo.id, c.previousStatus]), [["1", "pending"]])
  })
})
