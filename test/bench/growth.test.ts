import { describe, expect, it } from "@effect/vitest"
// @ts-expect-error: the bench is plain ES modules without type declarations
import { growthRows, growthTable, sizeValue } from "../../bench/growth.mjs"

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n))
const row = (scenario: string, size: string, ours: number, limit = NaN, unit = "ms", growthWhy?: string) =>
  ({ scenario, size, ours, limit, unit, ...(growthWhy === undefined ? {} : { growthWhy }) })

describe("bench growth", () => {
  it("reads sizes from the rows' labels, and nothing from labels without one", () => {
    expect(sizeValue("10 MB")).toBe(10)
    expect(sizeValue("10,000 files")).toBe(10_000)
    expect(sizeValue("25 × 1 MB")).toBe(25)
    expect(sizeValue("100000 deferred tools")).toBe(100_000)
    expect(sizeValue("node_modules")).toBeUndefined()
    expect(sizeValue("-")).toBeUndefined()
  })

  it("gives k per step, reads the verdict off the last step, and names the cause of super-linear growth", () => {
    const rows = [
      row("edit", "1 MB", 10, 1), row("edit", "10 MB", 100, 10), row("edit", "50 MB", 500, 50),
      row("sort", "1000 tools", 1, NaN, "ms", "n log n"), row("sort", "10000 tools", 10), row("sort", "100000 tools", 1000),
      row("query", "1000 tools", 100, NaN, "µs/query"), row("query", "100000 tools", 100, NaN, "µs/query")
    ]
    const [edit, sort, query] = growthRows(rows)
    expect(edit.k.map((k: number) => k.toFixed(2))).toEqual(["1.00", "1.00"])
    expect(edit.verdict).toBe("linear")
    expect(sort.k.map((k: number) => k.toFixed(2))).toEqual(["1.00", "2.00"])
    expect(sort.verdict).toBe("super-linear: n log n")
    expect(query.verdict).toBe("better than linear")
  })

  it("turns throughput back into time, joins the fixed-cost row to its scenario, and skips single sizes", () => {
    // Throughput that holds steady is linear time; one that halves as size doubles is quadratic.
    const [steady, falling] = growthRows([
      row("pipe", "50 MB", 300, 300, "MB/s"), row("pipe", "200 MB", 300, 300, "MB/s"),
      row("pty", "50 MB", 100, NaN, "MB/s"), row("pty", "100 MB", 50, NaN, "MB/s"),
      row("grep (fixed cost)", "10 files", 5), row("grep", "10,000 files", 100),
      row("start-up", "14 tools", 200)
    ])
    expect(steady.k[0]).toBeCloseTo(1)
    expect(steady.kLimit[0]).toBeCloseTo(1)
    expect(falling.k[0]).toBeCloseTo(2)
    const all = growthRows([row("grep (fixed cost)", "10 files", 5), row("grep", "10,000 files", 100), row("start-up", "14 tools", 200)])
    expect(all.map((g: { scenario: string }) => g.scenario)).toEqual(["grep"])
    expect(growthTable([row("start-up", "14 tools", 200)], fmt)).toMatch(/No scenario/)
  })
})
