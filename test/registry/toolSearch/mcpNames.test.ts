import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  generateLegacyMcpToolName,
  generateValidName,
  isProviderSafeToolName,
  MAX_TOOL_NAME_LENGTH,
  mcpToolName,
  normalizeMcpToolName,
  normalizeToolNameForProvider,
  rawMcpToolName,
  sanitizeToolNameForProvider,
  toolNameHash
} from "../../../src/registry/toolSearch/index.js"

const longMcp = `mcp__${"s".repeat(40)}__${"t".repeat(53)}`

// Reference §13.2 table: input, generateValidName, legacy.
const vectors: ReadonlyArray<readonly [string, string, string]> = [
  ["myFunction", "myFunction", "myFunction"],
  ["mcp__github__create_issue", "mcp__github__create_issue", "mcp__github__create_issue"],
  ["invalid-name with spaces", "invalid-name_with_spaces_1dmjtub", "invalid-name_with_spaces"],
  [
    "mcp__zybio__literature.search_pubmed",
    "mcp__zybio__literature_search_pubmed_0bhdeaz",
    "mcp__zybio__literature.search_pubmed"
  ],
  ["mcp__zybio__literature_search_pubmed", "mcp__zybio__literature_search_pubmed", "mcp__zybio__literature_search_pubmed"],
  ["!@#$%^&*()", "tool____________0hwugtj", "__________"],
  ["a".repeat(63), "a".repeat(63), "a".repeat(63)],
  ["a".repeat(64), `${"a".repeat(55)}_1obvw5h`, `${"a".repeat(28)}___${"a".repeat(32)}`],
  ["a".repeat(100), `${"a".repeat(55)}_02scd7d`, `${"a".repeat(28)}___${"a".repeat(32)}`],
  [longMcp, `mcp__${"s".repeat(40)}__${"t".repeat(8)}_0x4v2c9`, `mcp__${"s".repeat(23)}___${"t".repeat(32)}`],
  ["1tool", "tool_1tool_11g4vxi", "1tool"]
]

describe("MCP tool names — reference §13.2 vectors", () => {
  for (const [input, valid, legacy] of vectors) {
    const label = input.length > 40 ? `${input.slice(0, 20)}… (${input.length} chars)` : input
    it(`${label}`, () => {
      assert.strictEqual(generateValidName(input), valid)
      assert.strictEqual(normalizeToolNameForProvider(input), valid)
      assert.isAtMost(valid.length, MAX_TOOL_NAME_LENGTH)
      assert.strictEqual(generateLegacyMcpToolName(input), legacy)
    })
  }

  it("the two zybio names stay distinct", () => {
    assert.notStrictEqual(
      generateValidName("mcp__zybio__literature.search_pubmed"),
      generateValidName("mcp__zybio__literature_search_pubmed")
    )
  })
})

describe("MCP tool names — helpers", () => {
  it("limit, safety check, hash and sanitising", () => {
    assert.strictEqual(MAX_TOOL_NAME_LENGTH, 63)
    assert.isTrue(isProviderSafeToolName("a-b_C9"))
    assert.isFalse(isProviderSafeToolName("_a"))
    assert.isFalse(isProviderSafeToolName("a.b"))
    assert.isFalse(isProviderSafeToolName("a".repeat(64)))
    assert.strictEqual(toolNameHash("1tool"), "11g4vxi")
    assert.strictEqual(toolNameHash(""), (2166136261).toString(36).padStart(7, "0"))
    assert.strictEqual(sanitizeToolNameForProvider("-x.y"), "tool_-x_y")
  })

  it("normalizeMcpToolName only touches names starting with mcp__", () => {
    assert.strictEqual(normalizeMcpToolName("mcp__zybio__literature.search_pubmed"), "mcp__zybio__literature_search_pubmed_0bhdeaz")
    assert.strictEqual(normalizeMcpToolName("some.tool"), "some.tool")
    assert.strictEqual(normalizeMcpToolName("MCP__a.b"), "MCP__a.b")
  })

  it("fully qualified form mcp__<server>__<tool>", () => {
    assert.strictEqual(rawMcpToolName("github", "create_issue"), "mcp__github__create_issue")
    assert.strictEqual(mcpToolName("github", "create_issue"), "mcp__github__create_issue")
    assert.strictEqual(mcpToolName("zybio", "literature.search_pubmed"), "mcp__zybio__literature_search_pubmed_0bhdeaz")
    assert.strictEqual(mcpToolName("s".repeat(40), "t".repeat(53)), `mcp__${"s".repeat(40)}__${"t".repeat(8)}_0x4v2c9`)
  })

  it("is idempotent, deterministic, safe, and separates x from x+'y'", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 120 }), (x) => {
        const once = generateValidName(x)
        assert.strictEqual(generateValidName(once), once)
        assert.strictEqual(generateValidName(x), once)
        assert.isTrue(isProviderSafeToolName(once))
        assert.notStrictEqual(generateValidName(`${x}y`), once)
      }),
      { seed: 1302, numRuns: 500 }
    )
  })
})
