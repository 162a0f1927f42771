import { assert, describe, it } from "@effect/vitest"
import { type BudgetState, initialBudget, refusedMessage, release, tryReserve } from "../../src/mcp/budget.js"
import type { McpBudgetConfig } from "../../src/mcp/config.js"

const enforce4: McpBudgetConfig = { maxServers: 4, mode: "enforce" }

describe("workspace MCP budget (reference §13.5)", () => {
  it("the reference vector: warning at 75%, refusal past the cap, re-arm below 37.5%", () => {
    let state: BudgetState = initialBudget
    const reserve = (name: string) => {
      const r = tryReserve(state, name, enforce4)
      state = r.state
      return [r.outcome, r.warning?._tag] as const
    }
    assert.deepStrictEqual(reserve("a"), ["reserved", undefined])
    assert.deepStrictEqual(reserve("b"), ["reserved", undefined])
    assert.deepStrictEqual(reserve("c"), ["reserved", "BudgetWarning"]) // 3/4 = 0.75
    assert.deepStrictEqual(reserve("d"), ["reserved", undefined]) // 1.0, no second warning
    assert.deepStrictEqual(reserve("e"), ["refused", undefined])
    assert.deepStrictEqual(reserve("a"), ["already_held", undefined])
    state = release(state, "a", enforce4) // a still held once
    for (const name of ["c", "d", "b"]) state = release(state, name, enforce4)
    assert.deepStrictEqual([...state.reserved.keys()], ["a"]) // 0.25 < 0.375: re-armed
    assert.isTrue(state.armed)
    assert.deepStrictEqual(reserve("b"), ["reserved", undefined])
    assert.deepStrictEqual(reserve("c"), ["reserved", "BudgetWarning"])
  })

  it("re-arms only below 37.5%, not at it (edge)", () => {
    const budget: McpBudgetConfig = { maxServers: 8, mode: "enforce" }
    let state: BudgetState = initialBudget
    for (const name of ["a", "b", "c", "d", "e", "f"]) state = tryReserve(state, name, budget).state // 6/8 warned
    assert.isFalse(state.armed)
    for (const name of ["f", "e", "d"]) state = release(state, name, budget) // 3/8 = 0.375
    assert.isFalse(state.armed)
    state = release(state, "c", budget) // 2/8 = 0.25
    assert.isTrue(state.armed)
  })

  it("warn mode never refuses; no budget records nothing", () => {
    const warn: McpBudgetConfig = { maxServers: 1, mode: "warn" }
    const first = tryReserve(initialBudget, "a", warn)
    assert.strictEqual(first.warning?._tag, "BudgetWarning")
    assert.strictEqual(tryReserve(first.state, "b", warn).outcome, "reserved")
    const off = tryReserve(initialBudget, "a", undefined)
    assert.strictEqual(off.outcome, "reserved")
    assert.strictEqual(off.state.reserved.size, 0)
  })

  it("names the refused servers and what to do", () => {
    assert.strictEqual(
      refusedMessage(["e", "f"], enforce4),
      `The workspace MCP budget of 4 servers is exhausted, so "e", "f" were not started. Raise "mcpBudget.maxServers" in the MCP config, or disable servers you do not need.`
    )
  })
})
