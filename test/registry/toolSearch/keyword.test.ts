import { assert, describe, it } from "@effect/vitest"
import {
  keywordSearch,
  type KeywordSearchResult,
  NO_SEARCH_TERMS,
  type SearchableTool
} from "../../../src/registry/toolSearch/index.js"
import { deferredBuiltins, mcpTool, ownDescriptions, tool } from "./fixtures.js"

const names = (result: KeywordSearchResult): ReadonlyArray<string> => {
  assert.strictEqual(result._tag, "Matches")
  return result._tag === "Matches" ? result.names : []
}

const registries: ReadonlyArray<readonly [string, ReadonlyArray<SearchableTool>]> = [
  ["hints only (the reference gives no descriptions)", deferredBuiltins()],
  ["hints + own one-line descriptions + MCP tools", [
    ...deferredBuiltins((n) => ownDescriptions[n] ?? ""),
    mcpTool("github", "create_issue", "Create a GitHub issue"),
    mcpTool("slack", "send_message", "Send a Slack message")
  ]]
]

describe("keywordSearch — reference §2.3 behavioural vectors", () => {
  for (const [label, candidates] of registries) {
    describe(label, () => {
      it("'how do I stop this cron or loop wakeup?' max 1 → cron_delete", () => {
        assert.deepStrictEqual(names(keywordSearch(candidates, "how do I stop this cron or loop wakeup?", 1)), [
          "cron_delete"
        ])
      })
      it("'+stop cron' max 1 → cron_delete (required term met through alias 'delete')", () => {
        assert.deepStrictEqual(names(keywordSearch(candidates, "+stop cron", 1)), ["cron_delete"])
      })
      it("'show active loop tasks' max 1 → cron_list", () => {
        assert.deepStrictEqual(names(keywordSearch(candidates, "show active loop tasks", 1)), ["cron_list"])
      })
      it("'schedule loop wakeup' max 1 → loop_wakeup", () => {
        assert.deepStrictEqual(names(keywordSearch(candidates, "schedule loop wakeup", 1)), ["loop_wakeup"])
      })
    })
  }
})

describe("keywordSearch — rules", () => {
  it("ranks by score desc, then name, and caps at maxResults", () => {
    const candidates = [tool("b_grep"), tool("a_grep"), tool("grep_x"), tool("grep"), tool("other")]
    // grep 10; a_grep, b_grep 10 (suffix); grep_x 5.
    assert.deepStrictEqual(names(keywordSearch(candidates, "grep", 20)), ["a_grep", "b_grep", "grep", "grep_x"])
    assert.deepStrictEqual(names(keywordSearch(candidates, "grep", 2)), ["a_grep", "b_grep"])
  })

  it("excludes candidates missing a required term in the name, even with a high score", () => {
    const candidates = [tool("cron_list", "stop stop", "stop"), tool("task_stop")]
    assert.deepStrictEqual(names(keywordSearch(candidates, "+stop", 5)), ["task_stop"])
    assert.strictEqual(keywordSearch(candidates, "+kill stop", 5)._tag, "NoMatches")
  })

  it("no search terms → the error message", () => {
    const result = keywordSearch(deferredBuiltins(), "how do I", 5)
    assert.deepStrictEqual(result, { _tag: "NoSearchTerms", message: NO_SEARCH_TERMS })
    assert.strictEqual(
      NO_SEARCH_TERMS.llmContent,
      "Error: no search terms extracted from query. Use `select:ToolName` or include keywords."
    )
  })

  it("no match → the no-match text with the trimmed query, not an error", () => {
    const result = keywordSearch([tool("cron_list")], "  zebra  ", 5)
    assert.deepStrictEqual(result, {
      _tag: "NoMatches",
      message: {
        llmContent: "No tools found matching 'zebra'. Try broader keywords or use `select:ToolName`.",
        returnDisplay: "No matches for 'zebra'"
      }
    })
  })

  it("a revealed tool left out of the candidates is no longer found", () => {
    const all = deferredBuiltins()
    assert.deepStrictEqual(names(keywordSearch(all, "loop_wakeup", 1)), ["loop_wakeup"])
    const hidden = all.filter((t) => t.name !== "loop_wakeup")
    assert.deepStrictEqual(keywordSearch(hidden, "continuation", 5)._tag, "NoMatches")
  })
})
