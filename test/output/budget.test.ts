import { assert, describe, it } from "@effect/vitest"
import { allocateTextBudget, applyTextBudget, fitHeader, fitText, planTextBudget } from "../../src/output/index.js"

describe("allocateTextBudget (§10.5 vectors)", () => {
  it("[10,100,300] / 200 → [10,95,95]", () => {
    assert.deepStrictEqual(allocateTextBudget([10, 100, 300], 200), [10, 95, 95])
  })
  it("[50,60,500] / 300 → [50,60,190]", () => {
    assert.deepStrictEqual(allocateTextBudget([50, 60, 500], 300), [50, 60, 190])
  })
  it("[100,100,100] / 200 → [67,67,66] (leftover units to the earliest slots)", () => {
    assert.deepStrictEqual(allocateTextBudget([100, 100, 100], 200), [67, 67, 66])
  })
  it("total within budget → unchanged", () => {
    assert.deepStrictEqual(allocateTextBudget([10, 20, 30], 60), [10, 20, 30])
    assert.deepStrictEqual(allocateTextBudget([10, 20, 30], 1000), [10, 20, 30])
    assert.deepStrictEqual(allocateTextBudget([], 5), [])
  })
  it("budget 0 or negative gives nothing to non-empty slots; Infinity gives everything", () => {
    assert.deepStrictEqual(allocateTextBudget([0, 5, 7], 0), [0, 0, 0])
    assert.deepStrictEqual(allocateTextBudget([3, 4], -10), [0, 0])
    assert.deepStrictEqual(allocateTextBudget([3, 4], Infinity), [3, 4])
  })
})

describe("fitText (§10.5)", () => {
  it("fitText('a'×1000, 200, none) → header + \\n\\n + 34 a + \\n...\\n + 137 a, exactly 200 chars", () => {
    const out = fitText("a".repeat(1000), 200)
    assert.strictEqual(out, "Tool output truncated.\n\n" + "a".repeat(34) + "\n...\n" + "a".repeat(137))
    assert.strictEqual(out.length, 200)
  })

  it("text that fits is unchanged", () => {
    assert.strictEqual(fitText("short", 5), "short")
  })

  it("headers: none, one file, several files", () => {
    assert.strictEqual(fitHeader(), "Tool output truncated.")
    assert.strictEqual(fitHeader(["/a.txt"]), "Tool output truncated. Persisted tool-output artifact: /a.txt")
    assert.strictEqual(
      fitHeader(["/a.txt", "/b.txt"]),
      "Tool output truncated. Persisted tool-output artifacts:\n- /a.txt\n- /b.txt"
    )
    const out = fitText("q".repeat(500), 300, ["/a.txt", "/b.txt"])
    assert.isTrue(out.startsWith(fitHeader(["/a.txt", "/b.txt"]) + "\n\n"))
    assert.strictEqual(out.length, 300)
  })

  it("degenerate budgets return a prefix of the header (or header + a text prefix)", () => {
    const text = "t".repeat(100)
    assert.strictEqual(fitText(text, 0), "")
    assert.strictEqual(fitText(text, -3), "")
    assert.strictEqual(fitText(text, 10), "Tool outpu")
    assert.strictEqual(fitText(text, 22), "Tool output truncated.")
    assert.strictEqual(fitText(text, 24), "Tool output truncated.")
    assert.strictEqual(fitText(text, 27), "Tool output truncated.\n\nttt")
    assert.strictEqual(fitText(text, 29), "Tool output truncated.\n\nttttt")
    assert.strictEqual(fitText(text, 30), "Tool output truncated.\n\n\n...\nt")
  })

  it("never splits a surrogate pair at either cut", () => {
    const text = "😀".repeat(300)
    const out = fitText(text, 200)
    // c = 200 − 22 − 7 = 171: head 34 units (17 emoji), tail 137 units → 136 (68 emoji)
    assert.strictEqual(out, "Tool output truncated.\n\n" + "😀".repeat(17) + "\n...\n" + "😀".repeat(68))
    assert.isFalse(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(out))
  })
})

describe("planTextBudget / applyTextBudget", () => {
  it("disabled budgets (≤0, Infinity) and batches within budget change nothing", () => {
    for (const budget of [0, -1, Infinity, Number.NaN, 60]) {
      assert.deepStrictEqual(planTextBudget([10, 20, 30], budget), { allocations: [10, 20, 30], overBudget: [] })
    }
  })

  it("names the slots that must be cut", () => {
    assert.deepStrictEqual(planTextBudget([10, 100, 300], 200), { allocations: [10, 95, 95], overBudget: [1, 2] })
  })

  it("reference end-to-end: ten 25 000-char outputs, budget 200 000 → each exactly 20 000 chars naming its file", () => {
    const slots = Array.from({ length: 10 }, (_, i) => ({
      text: `${i}`.repeat(5000) + "m".repeat(15_000) + `${i}`.repeat(5000),
      persistedFiles: [`/work/.toolwright/outputs/read_file_${String(i).padStart(16, "0")}.output`]
    }))
    const plan = planTextBudget(slots.map((s) => s.text.length), 200_000)
    assert.deepStrictEqual(plan.allocations, Array.from({ length: 10 }, () => 20_000))
    assert.deepStrictEqual(plan.overBudget, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    const out = applyTextBudget(slots, 200_000)
    out.forEach((text, i) => {
      const slot = slots[i]!
      const header = `Tool output truncated. Persisted tool-output artifact: ${slot.persistedFiles[0]}`
      const c = 20_000 - header.length - 7
      const head = Math.floor(c / 5)
      assert.strictEqual(text.length, 20_000)
      assert.strictEqual(text, `${header}\n\n${slot.text.slice(0, head)}\n...\n${slot.text.slice(-(c - head))}`)
    })
    assert.strictEqual(out.reduce((sum, t) => sum + t.length, 0), 200_000)
  })
})
