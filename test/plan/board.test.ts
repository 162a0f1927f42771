import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import fc from "fast-check"
import {
  type Board,
  createTask,
  emptyBoard,
  listTasks,
  mergeMetadata,
  shortestCycleThrough,
  type TaskPatch,
  taskLine,
  updateTask
} from "../../src/plan/board.js"

const boardWith = (n: number): Board => {
  let board = emptyBoard
  for (let i = 1; i <= n; i++) board = createTask(board, { subject: `task ${i}`, description: `do ${i}` }, i).board
  return board
}

const apply = (board: Board, id: string, patch: TaskPatch, caller = "me") => {
  const outcome = updateTask(board, id, patch, caller, 100)
  if (Result.isFailure(outcome)) throw new Error(outcome.failure.message)
  return outcome.success
}

const refusal = (board: Board, id: string, patch: TaskPatch) => {
  const outcome = updateTask(board, id, patch, "me", 100)
  return Result.isFailure(outcome) ? outcome.failure : undefined
}

const task = (board: Board, id: string) => board.tasks.find((t) => t.id === id)!

describe("board: create", () => {
  it("hands out ids 1, 2, 3 … and never reuses one", () => {
    const board = boardWith(3)
    assert.deepStrictEqual(board.tasks.map((t) => t.id), ["1", "2", "3"])
    const afterDelete = apply(board, "3", { status: "deleted" }).board
    assert.strictEqual(createTask(afterDelete, { subject: "s", description: "d" }, 5).task.id, "4")
  })
})

describe("board: update rules, in the reference's order", () => {
  it("deletes a task and removes it from every edge; deleting or updating a missing task is refused", () => {
    let board = boardWith(3)
    board = apply(board, "1", { addBlocks: ["2"], addBlockedBy: ["3"] }).board
    const deleted = apply(board, "1", { status: "deleted" })
    assert.strictEqual(deleted._tag, "Deleted")
    assert.deepStrictEqual(deleted.board.tasks.map((t) => [t.id, t.blocks, t.blockedBy]), [["2", [], []], ["3", [], []]])
    assert.strictEqual(refusal(deleted.board, "1", { status: "deleted" })?.message, "Task #1 not found.")
    assert.strictEqual(refusal(deleted.board, "9", { subject: "x" })?.message, "Task #9 not found.")
  })

  it("refuses a self edge, then missing references (sorted), then cycles with their path", () => {
    const board = boardWith(3)
    assert.strictEqual(
      refusal(board, "2", { addBlocks: ["2"] })?.message,
      "Cannot update task #2: a task cannot block or be blocked by itself."
    )
    assert.strictEqual(
      refusal(board, "2", { addBlockedBy: ["2", "99"] })?.message,
      "Cannot update task #2: a task cannot block or be blocked by itself."
    )
    assert.strictEqual(
      refusal(board, "1", { addBlocks: ["12", "2"], addBlockedBy: ["7", "12"] })?.message,
      "Cannot update task #1: referenced task(s) #7, #12 not found."
    )
    let chain = apply(board, "1", { addBlocks: ["2"] }).board
    chain = apply(chain, "2", { addBlocks: ["3"] }).board
    const viaBlocks = refusal(chain, "3", { addBlocks: ["1"] })
    assert.strictEqual(viaBlocks?._tag, "Cycle")
    assert.strictEqual(viaBlocks?.message, "Cannot update task #3: this would create a dependency cycle (#3 → #1 → #2 → #3).")
    assert.strictEqual(
      refusal(chain, "1", { addBlockedBy: ["3"] })?.message,
      "Cannot update task #1: this would create a dependency cycle (#1 → #2 → #3 → #1)."
    )
    assert.strictEqual(
      refusal(chain, "2", { addBlocks: ["1"] })?.message,
      "Cannot update task #2: this would create a dependency cycle (#2 → #1 → #2)."
    )
    // a refused update changes nothing, even the fields it also carried
    assert.strictEqual(refusal(chain, "3", { subject: "renamed", addBlocks: ["1"] })?._tag, "Cycle")
    assert.strictEqual(task(chain, "3").subject, "task 3")
  })

  it("in_progress without an owner assigns the caller; an explicit empty owner is refused", () => {
    const board = boardWith(2)
    const claimed = apply(board, "1", { status: "in_progress" }, "session-ab12cd34")
    assert.strictEqual(claimed._tag === "Updated" && claimed.task.owner, "session-ab12cd34")
    assert.strictEqual(
      refusal(board, "2", { status: "in_progress", owner: "" })?.message,
      `Cannot move task #2 to in_progress without an owner. Specify the "owner" parameter.`
    )
    const named = apply(board, "2", { status: "in_progress", owner: "alice" })
    assert.strictEqual(named._tag === "Updated" && named.task.owner, "alice")
    const unassigned = apply(named.board, "2", { owner: "" })
    assert.isTrue(unassigned._tag === "Updated" && unassigned.task.owner === undefined)
  })

  it("merges metadata; null removes a key; an empty result removes the field", () => {
    assert.deepStrictEqual(mergeMetadata({ a: 1, b: 2 }, { b: null, c: { d: 3 } }), { a: 1, c: { d: 3 } })
    assert.isUndefined(mergeMetadata({ a: 1 }, { a: null }))
    let board = createTask(emptyBoard, { subject: "s", description: "d", metadata: { keep: true, drop: null } }, 1).board
    assert.deepStrictEqual(task(board, "1").metadata, { keep: true })
    board = apply(board, "1", { metadata: { keep: null, pr: 42 } }).board
    assert.deepStrictEqual(task(board, "1").metadata, { pr: 42 })
  })

  it("writes reciprocal edges once, and does not link addBlocks for a completed task", () => {
    let board = boardWith(4)
    board = apply(board, "1", { addBlocks: ["2", "2"], addBlockedBy: ["3"] }).board
    board = apply(board, "1", { addBlocks: ["2"] }).board
    assert.deepStrictEqual([task(board, "1").blocks, task(board, "1").blockedBy], [["2"], ["3"]])
    assert.deepStrictEqual([task(board, "2").blockedBy, task(board, "3").blocks], [["1"], ["1"]])
    const completed = apply(board, "1", { status: "completed", addBlocks: ["4"] })
    assert.isTrue(completed._tag === "Updated" && completed.skippedBlocks.includes("4"))
    assert.deepStrictEqual(task(completed.board, "4").blockedBy, [])
  })
})

describe("board: list", () => {
  it("filters by status, owner and blocking task, sorted by id, and shows open blockers", () => {
    let board = boardWith(11)
    board = apply(board, "2", { addBlockedBy: ["10", "1"] }).board
    board = apply(board, "11", { addBlockedBy: ["1"], status: "in_progress", owner: "bob" }).board
    assert.deepStrictEqual(listTasks(board, { blockedBy: "1" }).map((t) => t.id), ["2", "11"])
    assert.deepStrictEqual(listTasks(board, { owner: "bob" }).map((t) => t.id), ["11"])
    assert.deepStrictEqual(listTasks(board, { status: "in_progress" }).map((t) => t.id), ["11"])
    assert.deepStrictEqual(listTasks(board, {}).map((t) => t.id).slice(0, 3), ["1", "2", "3"])
    assert.strictEqual(taskLine(board, task(board, "2")), "#2 [pending] — task 2 (blocked by #1, #10)")
    board = apply(board, "1", { status: "completed", owner: "alice" }).board
    assert.strictEqual(taskLine(board, task(board, "2")), "#2 [pending] — task 2 (blocked by #10)")
    assert.strictEqual(taskLine(board, task(board, "1")), "#1 [completed] @alice — task 1")
  })
})

describe("board: properties", () => {
  const op = fc.record({
    id: fc.integer({ min: 1, max: 8 }),
    blocks: fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 3 }),
    blockedBy: fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 3 }),
    status: fc.constantFrom(undefined, "pending", "in_progress", "completed", "deleted")
  })

  it("any sequence of updates keeps edges reciprocal and the graph acyclic", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let board = boardWith(8)
        for (const o of ops) {
          const outcome = updateTask(board, String(o.id), {
            status: o.status as TaskPatch["status"],
            addBlocks: o.blocks.map(String),
            addBlockedBy: o.blockedBy.map(String)
          }, "me", 1)
          if (Result.isSuccess(outcome)) board = outcome.success.board
        }
        const ids = new Set(board.tasks.map((t) => t.id))
        const graph = new Map(board.tasks.map((t) => [t.id, new Set(t.blocks)]))
        for (const t of board.tasks) {
          for (const b of t.blocks) {
            assert.isTrue(ids.has(b))
            assert.include(task(board, b).blockedBy, t.id)
          }
          for (const b of t.blockedBy) assert.include(task(board, b).blocks, t.id)
          assert.isUndefined(shortestCycleThrough(graph, t.id))
        }
      }),
      { seed: 7, numRuns: 300 }
    )
  })
})
