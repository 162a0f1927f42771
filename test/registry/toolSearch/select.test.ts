import { assert, describe, it } from "@effect/vitest"
import {
  clampMaxResults,
  DEFAULT_MAX_RESULTS,
  formatSearchResult,
  HARD_MAX_RESULTS,
  isSelectQuery,
  parseSelect,
  stripMatchingQuotes
} from "../../../src/registry/toolSearch/index.js"

describe("clampMaxResults", () => {
  it("defaults to 5, floors, clamps to 1..20, non-finite → 1", () => {
    assert.strictEqual(DEFAULT_MAX_RESULTS, 5)
    assert.strictEqual(HARD_MAX_RESULTS, 20)
    assert.strictEqual(clampMaxResults(undefined), 5)
    assert.strictEqual(clampMaxResults(3.9), 3)
    assert.strictEqual(clampMaxResults(0), 1)
    assert.strictEqual(clampMaxResults(-4), 1)
    assert.strictEqual(clampMaxResults(21), 20)
    assert.strictEqual(clampMaxResults(20.5), 20)
    assert.strictEqual(clampMaxResults(Number.NaN), 1)
    assert.strictEqual(clampMaxResults(Number.POSITIVE_INFINITY), 1)
    assert.strictEqual(clampMaxResults(Number.NEGATIVE_INFINITY), 1)
  })
})

describe("select: mode", () => {
  it("recognises the prefix case-insensitively", () => {
    assert.isTrue(isSelectQuery("select:a"))
    assert.isTrue(isSelectQuery("SELECT:a"))
    assert.isFalse(isSelectQuery("selection of tools"))
  })

  it("select:\"cron_create\" and select:'cron_create' both name cron_create", () => {
    assert.deepStrictEqual(parseSelect("select:\"cron_create\"", 5), { names: ["cron_create"], truncated: [] })
    assert.deepStrictEqual(parseSelect("select:'cron_create'", 5), { names: ["cron_create"], truncated: [] })
    assert.deepStrictEqual(parseSelect("Select: cron_create ", 5), { names: ["cron_create"], truncated: [] })
  })

  it("strips one layer of matching quotes only; mismatched quotes are left alone", () => {
    assert.strictEqual(stripMatchingQuotes("\"\"a\"\""), "\"a\"")
    assert.strictEqual(stripMatchingQuotes("\"a'"), "\"a'")
    assert.strictEqual(stripMatchingQuotes("'a"), "'a")
    assert.strictEqual(stripMatchingQuotes("\""), "\"")
    assert.deepStrictEqual(parseSelect("select:\"a',b\"", 5).names, ["\"a'", "b\""])
  })

  it("skips empty pieces (also an emptied quote pair) and dedupes case-insensitively, first spelling wins", () => {
    assert.deepStrictEqual(parseSelect("select:, ,Foo,\"\",foo,'FOO',bar,", 5), { names: ["Foo", "bar"], truncated: [] })
    assert.deepStrictEqual(parseSelect("select:", 5), { names: [], truncated: [] })
  })

  it("max_results 3 over tool_0..tool_6 loads 3 and truncates the rest, in order", () => {
    const query = `select:${Array.from({ length: 7 }, (_, i) => `tool_${i}`).join(",")}`
    const selected = parseSelect(query, 3)
    assert.deepStrictEqual(selected, {
      names: ["tool_0", "tool_1", "tool_2"],
      truncated: ["tool_3", "tool_4", "tool_5", "tool_6"]
    })
    const schemas = selected.names.map((name) => ({ name, description: `${name} tool`, parametersJsonSchema: {} }))
    const result = formatSearchResult({ schemas, notFound: [], truncated: selected.truncated })
    assert.strictEqual(result.llmContent.match(/<function>/g)?.length, 3)
    assert.isTrue(result.llmContent.endsWith(
      "\n\nTruncated by max_results — request these in a follow-up call: tool_3, tool_4, tool_5, tool_6"
    ))
    assert.strictEqual(result.returnDisplay, "Loaded 3 tool(s), 4 truncated")
  })

  it("clamps the cap it is given", () => {
    const names = Array.from({ length: 25 }, (_, i) => `t${i}`)
    const selected = parseSelect(`select:${names.join(",")}`, 99)
    assert.strictEqual(selected.names.length, 20)
    assert.strictEqual(selected.truncated.length, 5)
    assert.deepStrictEqual(parseSelect("select:a,b", Number.NaN), { names: ["a"], truncated: ["b"] })
  })
})
