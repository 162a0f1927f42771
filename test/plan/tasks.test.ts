import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Context, Effect, Layer } from "effect"
import { BOARD_FILE, MAX_DESCRIPTION_CHARS, MAX_SUBJECT_CHARS } from "../../src/plan/index.js"
import { ToolRegistry } from "../../src/registry/registry.js"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import { Session } from "../../src/session/session.js"
import { codeOf, planSession, run, tempDir, textOf } from "./helpers.js"

const setup = (approver?: Layer.Layer<Approver>) =>
  Effect.gen(function*() {
    const root = yield* tempDir()
    const stateDir = yield* tempDir()
    const context = yield* Layer.build(planSession({ root, stateDir, ...(approver ? { approver } : {}) }))
    const call = (name: string, args: unknown) => Effect.provideContext(run(name, args), context)
    const boardFile = path.join(stateDir, "tasks", BOARD_FILE)
    const board = () => JSON.parse(fs.readFileSync(boardFile, "utf8"))
    return { root, stateDir, context, call, boardFile, board }
  })

const create = (subject: string, description = `Do: ${subject}`) => ({ subject, description })

describe("task_create", () => {
  it.effect("asks first, showing the subject and the description; ids are 1, 2, 3; the result names the task", () =>
    Effect.gen(function*() {
      const recording = yield* makeRecordingApprover([], { _tag: "proceed_once" })
      const s = yield* setup(Layer.succeed(Approver, recording.approver))
      const first = yield* s.call("task_create", { ...create("Add retries"), active_form: "Adding retries", metadata: { pr: 12 } })
      assert.strictEqual(textOf(first), `Task #1 created: "Add retries"`)
      assert.strictEqual(textOf(yield* s.call("task_create", create("Write docs"))), `Task #2 created: "Write docs"`)
      const long = "x".repeat(2_500)
      assert.strictEqual(textOf(yield* s.call("task_create", create("Long one", long))), `Task #3 created: "Long one"`)
      const requests = yield* recording.requests
      assert.deepStrictEqual(requests[0]!.details, { type: "info", title: "Confirm TaskCreate", prompt: "Create task: Add retries\n\nDo: Add retries" })
      assert.strictEqual(
        requests[2]!.details.type === "info" && requests[2]!.details.prompt,
        `Create task: Long one\n\n${"x".repeat(2_000)}\n… (500 more characters)`
      )
      const stored = s.board()
      assert.strictEqual(stored.nextId, 4)
      assert.deepStrictEqual(
        { ...stored.tasks[0], createdAt: 0, updatedAt: 0 },
        {
          id: "1",
          subject: "Add retries",
          description: "Do: Add retries",
          activeForm: "Adding retries",
          status: "pending",
          blocks: [],
          blockedBy: [],
          metadata: { pr: 12 },
          createdAt: 0,
          updatedAt: 0
        }
      )
      assert.strictEqual(fs.statSync(s.boardFile).mode & 0o777, 0o600)
    }))

  it.effect("a declined task_create writes nothing", () =>
    Effect.gen(function*() {
      const s = yield* setup(Approver.layerFixed({ _tag: "cancel", reason: "not this one" }))
      const result = yield* s.call("task_create", create("Refactor everything"))
      assert.strictEqual(result._tag, "Cancelled")
      assert.isFalse(fs.existsSync(s.boardFile))
    }))

  it.effect("limits: subject 200, description 10 000, activeForm 200 characters; a blank subject is refused", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const subject = "s".repeat(MAX_SUBJECT_CHARS)
      const description = "d".repeat(MAX_DESCRIPTION_CHARS)
      assert.strictEqual(
        textOf(yield* s.call("task_create", { subject, description, active_form: "a".repeat(MAX_SUBJECT_CHARS) })),
        `Task #1 created: "${subject}"`
      )
      const tooLong = yield* s.call("task_create", { subject: `${subject}s`, description: `${description}d`, active_form: "a".repeat(201) })
      assert.strictEqual(codeOf(tooLong), "invalid_tool_params")
      assert.include(textOf(tooLong), "params.subject: Expected a value with a length of at most 200")
      assert.include(textOf(tooLong), "params.description: Expected a value with a length of at most 10000")
      assert.include(textOf(tooLong), "params.active_form: Expected a value with a length of at most 200")
      assert.include(textOf(yield* s.call("task_create", create("   "))), "params.subject: The subject must not be empty.")
      assert.include(textOf(yield* s.call("task_create", { subject: "x" })), "params.description: Missing key")
      assert.strictEqual(s.board().tasks.length, 1)
    }))

  it.effect("declares the reference's kinds and defaults", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const registry = Context.get(s.context, ToolRegistry)
      const created = yield* registry.ensure("task_create")
      const updated = yield* registry.ensure("task_update")
      const listed = yield* registry.ensure("task_list")
      assert.deepStrictEqual([created.kind, updated.kind, listed.kind], ["other", "other", "read"])
      assert.deepStrictEqual([created.displayName, updated.displayName, listed.displayName], ["TaskCreate", "TaskUpdate", "TaskList"])
      assert.strictEqual(yield* (yield* created.build(create("a"))).defaultPermission, "ask")
      assert.strictEqual(yield* (yield* updated.build({ task_id: "1" })).defaultPermission, "ask")
      const list = yield* listed.build({})
      assert.strictEqual(yield* list.defaultPermission, "allow")
      assert.isTrue(list.concurrencySafe)
      assert.strictEqual(
        created.toAutoClassifierInput({ subject: "a", description: "b", active_form: "c" }),
        `{"subject":"a","description":"b"}`
      )
    }))
})

describe("task_update", () => {
  it.effect("rejects ids that are not positive integers with the reference message", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      for (const [args, bad] of [
        [{ task_id: "0" }, "0"],
        [{ task_id: "abc" }, "abc"],
        [{ task_id: "01" }, "01"],
        [{ task_id: "-3" }, "-3"],
        [{ task_id: "1", add_blocks: ["2", "x"] }, "x"],
        [{ task_id: "1", add_blocked_by: ["1.5"] }, "1.5"]
      ] as const) {
        const result = yield* s.call("task_update", args)
        assert.strictEqual(codeOf(result), "invalid_tool_params")
        assert.strictEqual(textOf(result), `Invalid task ID "${bad}". Task IDs must be positive integers.`)
      }
    }))

  it.effect("updates, claims, deletes; refuses missing tasks, self edges, unknown references and cycles with the path", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      const sessionId = Context.get(s.context, Session).id
      for (const subject of ["Parse", "Check", "Emit"]) yield* s.call("task_create", create(subject))

      assert.strictEqual(textOf(yield* s.call("task_update", { task_id: "1", add_blocks: ["2"] })), "Task #1 updated (status: pending).")
      assert.strictEqual(textOf(yield* s.call("task_update", { task_id: "3", add_blocked_by: ["2"] })), "Task #3 updated (status: pending).")
      const cycle = yield* s.call("task_update", { task_id: "3", add_blocks: ["1"] })
      assert.strictEqual(codeOf(cycle), "execution_failed")
      assert.strictEqual(textOf(cycle), "Cannot update task #3: this would create a dependency cycle (#3 → #1 → #2 → #3).")
      assert.strictEqual(
        textOf(yield* s.call("task_update", { task_id: "2", add_blocked_by: ["2"] })),
        "Cannot update task #2: a task cannot block or be blocked by itself."
      )
      assert.strictEqual(
        textOf(yield* s.call("task_update", { task_id: "2", add_blocks: ["40", "5"] })),
        "Cannot update task #2: referenced task(s) #5, #40 not found."
      )
      assert.strictEqual(textOf(yield* s.call("task_update", { task_id: "9", status: "completed" })), "Task #9 not found.")

      const claimed = yield* s.call("task_update", { task_id: "1", status: "in_progress" })
      assert.strictEqual(textOf(claimed), `Task #1 updated (status: in_progress, owner: session-${sessionId.slice(0, 8)}).`)
      assert.strictEqual(
        textOf(yield* s.call("task_update", { task_id: "2", status: "in_progress", owner: "" })),
        `Cannot move task #2 to in_progress without an owner. Specify the "owner" parameter.`
      )
      assert.strictEqual(
        textOf(yield* s.call("task_update", { task_id: "2", status: "in_progress", owner: "alice", subject: "Check types", metadata: { a: 1, b: 2 } })),
        "Task #2 updated (status: in_progress, owner: alice)."
      )
      yield* s.call("task_update", { task_id: "2", metadata: { a: null, c: "x" }, description: "Check the types", active_form: "Checking" })
      const two = s.board().tasks.find((t: { id: string }) => t.id === "2")
      assert.deepStrictEqual(
        [two.subject, two.description, two.activeForm, two.owner, two.metadata],
        ["Check types", "Check the types", "Checking", "alice", { b: 2, c: "x" }]
      )
      assert.deepStrictEqual([two.blocks, two.blockedBy], [["3"], ["1"]])

      assert.strictEqual(textOf(yield* s.call("task_update", { task_id: "2", status: "deleted" })), "Task #2 deleted.")
      assert.strictEqual(codeOf(yield* s.call("task_update", { task_id: "2", status: "deleted" })), "execution_failed")
      assert.strictEqual(textOf(yield* s.call("task_update", { task_id: "2", status: "deleted" })), "Task #2 not found.")
      assert.deepStrictEqual(
        s.board().tasks.map((t: { id: string; blocks: Array<string>; blockedBy: Array<string> }) => [t.id, t.blocks, t.blockedBy]),
        [["1", [], []], ["3", [], []]]
      )
      // a refused call leaves the board byte for byte as it was
      const before = fs.readFileSync(s.boardFile, "utf8")
      yield* s.call("task_update", { task_id: "1", subject: "renamed", add_blocks: ["1"] })
      assert.strictEqual(fs.readFileSync(s.boardFile, "utf8"), before)
    }))

  it.effect("a completed task does not take new addBlocks edges, and says so", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      yield* s.call("task_create", create("a"))
      yield* s.call("task_create", create("b"))
      assert.strictEqual(
        textOf(yield* s.call("task_update", { task_id: "1", status: "completed", add_blocks: ["2"] })),
        "Task #1 updated (status: completed). Not linked as blocked by it: #2 (a completed task blocks nothing)."
      )
      assert.deepStrictEqual(s.board().tasks.map((t: { blocks: Array<string> }) => t.blocks), [[], []])
    }))

  it.effect("the confirmation lists every change", () =>
    Effect.gen(function*() {
      const recording = yield* makeRecordingApprover([], { _tag: "proceed_once" })
      const s = yield* setup(Layer.succeed(Approver, recording.approver))
      yield* s.call("task_create", create("a"))
      yield* s.call("task_create", create("b"))
      yield* s.call("task_update", { task_id: "1", status: "completed", owner: "", metadata: { k: null }, add_blocked_by: ["2"] })
      const request = (yield* recording.requests)[2]!
      assert.strictEqual(request.description, "Task #1 → completed owner: (none)")
      assert.deepStrictEqual(request.details, {
        type: "info",
        title: "Confirm TaskUpdate",
        prompt: `Update task #1:\n- status → completed\n- unassign the owner\n- metadata ← {"k":null}\n- blocked by #2`
      })
    }))
})

describe("task_list", () => {
  it.effect("lists tasks by id with owner and open blockers, filters, and says when there are none", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      assert.strictEqual(textOf(yield* s.call("task_list", {})), "No tasks found.")
      for (const subject of ["Design", "Build", "Ship"]) yield* s.call("task_create", create(subject))
      yield* s.call("task_update", { task_id: "3", add_blocked_by: ["1", "2"] })
      yield* s.call("task_update", { task_id: "1", status: "in_progress", owner: "ana" })
      assert.strictEqual(
        textOf(yield* s.call("task_list", {})),
        "#1 [in_progress] @ana — Design\n#2 [pending] — Build\n#3 [pending] — Ship (blocked by #1, #2)"
      )
      yield* s.call("task_update", { task_id: "1", status: "completed" })
      assert.strictEqual(textOf(yield* s.call("task_list", { blocked_by: "1" })), "#3 [pending] — Ship (blocked by #2)")
      assert.strictEqual(textOf(yield* s.call("task_list", { status: "completed" })), "#1 [completed] @ana — Design")
      assert.strictEqual(textOf(yield* s.call("task_list", { owner: "ana", status: "pending" })), "No tasks found.")
      assert.strictEqual(textOf(yield* s.call("task_list", { blocked_by: "x1" })), `Invalid task ID "x1". Task IDs must be positive integers.`)
      assert.strictEqual(codeOf(yield* s.call("task_list", { status: "deleted" })), "invalid_tool_params")
    }))

  it.effect("a board file that does not decode is reported and never overwritten", () =>
    Effect.gen(function*() {
      const s = yield* setup()
      fs.mkdirSync(path.dirname(s.boardFile), { recursive: true })
      fs.writeFileSync(s.boardFile, `{"version":1,"nextId":"seven","tasks":[]}`)
      const listed = yield* s.call("task_list", {})
      assert.strictEqual(codeOf(listed), "read_content_failure")
      assert.include(textOf(listed), `The task board ${s.boardFile} is not a valid task board`)
      const created = yield* s.call("task_create", create("x"))
      assert.strictEqual(codeOf(created), "read_content_failure")
      assert.strictEqual(fs.readFileSync(s.boardFile, "utf8"), `{"version":1,"nextId":"seven","tasks":[]}`)
    }))
})

describe("the board is durable and shared", () => {
  it.effect("survives a restart: a new session on the same workspace sees the tasks and continues the ids", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const stateDir = yield* tempDir()
      yield* Effect.gen(function*() {
        yield* run("task_create", create("first"))
        yield* run("task_create", create("second"))
        yield* run("task_update", { taskId: "2", status: "deleted" })
      }).pipe(Effect.provide(planSession({ root, stateDir })))
      const [listed, created] = yield* Effect.all([
        run("task_list", {}),
        run("task_create", create("third"))
      ]).pipe(Effect.provide(planSession({ root, stateDir })))
      assert.strictEqual(textOf(listed), "#1 [pending] — first")
      assert.strictEqual(textOf(created), `Task #3 created: "third"`)
    }))

  it.live("two sessions writing at once lose nothing: every create gets its own id", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const stateDir = yield* tempDir()
      const a = yield* Layer.build(planSession({ root, stateDir }))
      const b = yield* Layer.build(planSession({ root, stateDir }))
      const n = 15
      const calls = Array.from({ length: n }, (_, i) => [
        Effect.provideContext(run("task_create", create(`a${i}`)), a),
        Effect.provideContext(run("task_create", create(`b${i}`)), b)
      ]).flat()
      const results = yield* Effect.all(calls, { concurrency: "unbounded" })
      assert.isTrue(results.every((r) => r._tag === "Success"), results.map(textOf).join("\n"))
      const board = JSON.parse(fs.readFileSync(path.join(stateDir, "tasks", BOARD_FILE), "utf8"))
      assert.strictEqual(board.nextId, 2 * n + 1)
      assert.deepStrictEqual(
        board.tasks.map((t: { id: string }) => Number(t.id)).sort((x: number, y: number) => x - y),
        Array.from({ length: 2 * n }, (_, i) => i + 1)
      )
      assert.deepStrictEqual(
        board.tasks.map((t: { subject: string }) => t.subject).sort(),
        Array.from({ length: n }, (_, i) => [`a${i}`, `b${i}`]).flat().sort()
      )
      assert.deepStrictEqual(fs.readdirSync(path.join(stateDir, "tasks")), [BOARD_FILE])
    }), 60_000)
})
