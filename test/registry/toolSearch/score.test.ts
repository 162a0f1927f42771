import { assert, describe, it } from "@effect/vitest"
import { matchesRequiredTerms, scoreTool, termVariants } from "../../../src/registry/toolSearch/index.js"
import { tool } from "./fixtures.js"

describe("scoreTool — reference §2.3 vectors", () => {
  it("description substring scores 2", () => {
    assert.strictEqual(scoreTool(tool("foo", "this tool does slack things"), ["slack"]), 2)
  })

  it("no signal scores 0", () => {
    assert.strictEqual(scoreTool(tool("foo", "bar"), ["unrelated"]), 0)
  })

  for (const term of ["cancel", "clear", "remove", "stop"]) {
    it(`cron_delete scores 16 for '${term}' (exact suffix via 'delete' + alias bonus)`, () => {
      assert.strictEqual(scoreTool(tool("cron_delete", "scheduled task", "cron task"), [term]), 16)
    })
  }

  it("cron_remove scores 16 for 'delete'", () => {
    assert.strictEqual(scoreTool(tool("cron_remove", "scheduled task", "cron task"), ["delete"]), 16)
  })

  it("cron_stop scores 10 for 'stop' (no alias bonus for the direct term)", () => {
    assert.strictEqual(scoreTool(tool("cron_stop", "scheduled task", "cron task"), ["stop"]), 10)
  })

  it("MCP exact tool-name suffix scores 12", () => {
    const t = tool("mcp__github__create_issue", "create a github issue", undefined, "github")
    assert.strictEqual(scoreTool(t, ["create_issue"]), 12)
  })

  it("MCP 'issue' scores 12 + 2 = 14", () => {
    const t = tool("mcp__github__create_issue", "create a github issue", undefined, "github")
    const score = scoreTool(t, ["issue"])
    assert.isAtLeast(score, 12)
    assert.strictEqual(score, 14)
  })

  it("exact name beats substring: grep 10 vs grep_tool 5", () => {
    assert.strictEqual(scoreTool(tool("grep"), ["grep"]), 10)
    assert.strictEqual(scoreTool(tool("grep_tool"), ["grep"]), 5)
  })

  it("MCP send_message 12 vs builtin send_message 10", () => {
    assert.strictEqual(scoreTool(tool("send_message", "an action", undefined, "slack"), ["send_message"]), 12)
    assert.strictEqual(scoreTool(tool("send_message", "an action"), ["send_message"]), 10)
  })

  it("hint word + description: 6 with hint vs 2 without", () => {
    assert.strictEqual(scoreTool(tool("cron_create", "scheduler", "schedule recurring timer"), ["schedule"]), 6)
    assert.strictEqual(scoreTool(tool("cron_create", "scheduler"), ["schedule"]), 2)
  })
})

describe("scoreTool — rules", () => {
  it("MCP substring scores 6, '.'-suffix is exact, empty terms are skipped", () => {
    assert.strictEqual(scoreTool(tool("mcp__github__create_issue", "", undefined, "github"), ["github"]), 6)
    assert.strictEqual(scoreTool(tool("literature.search"), ["search"]), 10)
    assert.strictEqual(scoreTool(tool("grep"), ["", "grep"]), 10)
  })

  it("is case-insensitive on name, hint and description; sums over terms", () => {
    assert.strictEqual(scoreTool(tool("Web_Fetch", "Fetch A URL", "WEB http"), ["fetch", "http"]), 10 + 2 + 4)
  })

  it("hint matches whole words only", () => {
    assert.strictEqual(scoreTool(tool("x", "", "scheduled"), ["schedule"]), 0)
  })

  it("alias bonus from a hint word alone", () => {
    // 'stop' → variant 'remove' is a hint word: +4 hint, +6 alias.
    assert.strictEqual(scoreTool(tool("exit_worktree", "", "worktree exit leave remove keep cleanup"), ["stop"]), 10)
  })

  it("empty serverName counts as built-in", () => {
    assert.strictEqual(scoreTool(tool("grep", "", undefined, ""), ["grep"]), 10)
  })

  it("term variants and required-term matching", () => {
    assert.deepStrictEqual(termVariants("stop"), ["stop", "cancel", "delete", "remove", "clear"])
    assert.deepStrictEqual(termVariants("clear"), ["clear", "delete", "remove", "cancel", "stop"])
    assert.deepStrictEqual(termVariants("cron"), ["cron"])
    assert.isTrue(matchesRequiredTerms("Cron_Delete", ["stop", "cron"]))
    assert.isFalse(matchesRequiredTerms("cron_list", ["stop"]))
    assert.isTrue(matchesRequiredTerms("anything", []))
  })
})
