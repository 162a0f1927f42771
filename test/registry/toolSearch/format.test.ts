import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  EMPTY_QUERY,
  escapeSchemaJson,
  formatSearchResult,
  NO_TOOL_NAMES,
  noMatchesMessage,
  publishFailedMessage
} from "../../../src/registry/toolSearch/index.js"

const schemaA = { name: "a", description: "ends </function> here", parametersJsonSchema: { type: "object" } }
const schemaB = { name: "b", description: "plain", parametersJsonSchema: {} }

describe("formatSearchResult", () => {
  it("wraps schemas in <functions>, escaping every '<' as \\u003c", () => {
    const result = formatSearchResult({ schemas: [schemaA, schemaB], notFound: [], truncated: [] })
    assert.strictEqual(
      result.llmContent,
      "<functions>\n" +
        "<function>{\"name\":\"a\",\"description\":\"ends \\u003c/function> here\",\"parametersJsonSchema\":{\"type\":\"object\"}}</function>\n" +
        "<function>{\"name\":\"b\",\"description\":\"plain\",\"parametersJsonSchema\":{}}</function>\n" +
        "</functions>"
    )
    assert.strictEqual(result.returnDisplay, "Loaded 2 tool(s)")
    assert.isUndefined(result.errorMessage)
  })

  it("joins the sections with a blank line, in order, each only when non-empty", () => {
    const result = formatSearchResult({
      schemas: [schemaB],
      notFound: ["Nope", "gone"],
      unavailable: ["x is not available here.", "y is not available here."],
      truncated: ["t1", "t2"]
    })
    assert.strictEqual(
      result.llmContent,
      "<functions>\n<function>{\"name\":\"b\",\"description\":\"plain\",\"parametersJsonSchema\":{}}</function>\n</functions>" +
        "\n\nNot found: Nope, gone" +
        "\n\nUnavailable: x is not available here.\ny is not available here." +
        "\n\nTruncated by max_results — request these in a follow-up call: t1, t2"
    )
    assert.strictEqual(result.returnDisplay, "Loaded 1 tool(s), 2 missing, 2 unavailable, 2 truncated")
    assert.isUndefined(result.errorMessage)
  })

  it("without schemas: no <functions> block and no leading blank line", () => {
    const result = formatSearchResult({ schemas: [], notFound: ["x"], truncated: [] })
    assert.deepStrictEqual(result, { llmContent: "Not found: x", returnDisplay: "1 missing" })
  })

  it("nothing at all → 'No tools loaded'", () => {
    assert.deepStrictEqual(formatSearchResult({ schemas: [], notFound: [], truncated: [] }), {
      llmContent: "",
      returnDisplay: "No tools loaded"
    })
  })

  it("is an error only when something was unavailable and nothing loaded", () => {
    const result = formatSearchResult({ schemas: [], notFound: [], truncated: [], unavailable: ["m1", "m2"] })
    assert.deepStrictEqual(result, {
      llmContent: "Unavailable: m1\nm2",
      returnDisplay: "2 unavailable",
      errorMessage: "m1\nm2"
    })
  })
})

describe("tool_search messages", () => {
  it("have the exact reference texts", () => {
    assert.deepStrictEqual(EMPTY_QUERY, {
      llmContent: "Error: query is empty. Use `select:ToolName` or free-text keywords.",
      returnDisplay: "Empty query",
      errorMessage: "Empty query"
    })
    assert.deepStrictEqual(NO_TOOL_NAMES, {
      llmContent: "Error: no tool names provided.",
      returnDisplay: "No tool names",
      errorMessage: "No tool names"
    })
    assert.deepStrictEqual(noMatchesMessage("x y"), {
      llmContent: "No tools found matching 'x y'. Try broader keywords or use `select:ToolName`.",
      returnDisplay: "No matches for 'x y'"
    })
  })

  it("publish failure keeps the reference structure with our wording", () => {
    const m = publishFailedMessage("client not ready")
    assert.strictEqual(
      m.llmContent,
      "Error: tools were located but could not be exposed to the API (publishing the tool list failed: client not ready). Retry the search next turn or call tool_search again with select:Name1,Name2."
    )
    assert.strictEqual(m.returnDisplay, "Publishing the tool list failed: client not ready")
    assert.strictEqual(m.errorMessage, "Publishing the tool list failed while revealing deferred tools: client not ready")
  })
})

/** Reverses only the `<` escape, consuming other JSON escapes pairwise so a literal `\\u003c` stays intact. */
const unescapeLt = (text: string): string => text.replace(/\\u003c|\\[\s\S]/g, (m) => (m === "\\u003c" ? "<" : m))

const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: "binary" }),
  fc.constantFrom("</function>", "</functions>", "<function>", "<", "\\u003c", "\\", "</FUNCTION >", "<<//function>>")
)
const schemaArb = fc.record({
  name: hostile,
  description: fc.array(hostile, { maxLength: 6 }).map((parts) => parts.join("")),
  parametersJsonSchema: fc.dictionary(hostile, fc.oneof(hostile, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 4 })
})

describe("formatSearchResult — property", () => {
  it("no schema string can close a <function> block, and each block's JSON round-trips", () => {
    fc.assert(
      fc.property(fc.array(schemaArb, { minLength: 1, maxLength: 4 }), (schemas) => {
        const { llmContent } = formatSearchResult({ schemas, notFound: [], truncated: [] })
        assert.isTrue(llmContent.startsWith("<functions>\n"))
        assert.isTrue(llmContent.endsWith("\n</functions>"))
        const inner = llmContent.slice("<functions>\n".length, -"\n</functions>".length)
        const lines = inner.split("\n")
        assert.strictEqual(lines.length, schemas.length)
        assert.strictEqual(llmContent.split("</function>").length - 1, schemas.length)
        lines.forEach((line, i) => {
          assert.isTrue(line.startsWith("<function>") && line.endsWith("</function>"))
          const json = line.slice("<function>".length, -"</function>".length)
          assert.notInclude(json, "<")
          assert.strictEqual(json, escapeSchemaJson(schemas[i]!))
          assert.strictEqual(unescapeLt(json), JSON.stringify(schemas[i]))
          assert.deepStrictEqual(JSON.parse(json), JSON.parse(JSON.stringify(schemas[i])))
        })
      }),
      { seed: 20260801, numRuns: 300 }
    )
  })
})
