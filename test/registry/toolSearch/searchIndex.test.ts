import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import {
  buildSearchIndex,
  keywordSearch,
  type KeywordSearchResult,
  NO_SEARCH_TERMS,
  type SearchableTool
} from "../../../src/registry/toolSearch/index.js"
import { sortTools } from "../../../src/tool/declarations.js"
import { deferredBuiltins, mcpTool, ownDescriptions, tool } from "./fixtures.js"

const SEED = 20261202

/** The reference ranking over the candidates the index would consider, in the index's order. */
const reference = (
  tools: ReadonlyArray<SearchableTool>,
  query: string,
  max: number,
  isCandidate: (t: SearchableTool) => boolean = () => true
): KeywordSearchResult => keywordSearch(tools.filter(isCandidate), query, max)

const names = (result: KeywordSearchResult): ReadonlyArray<string> => (result._tag === "Matches" ? result.names : [])

describe("buildSearchIndex", () => {
  const registry = sortTools([
    ...deferredBuiltins((n) => ownDescriptions[n] ?? ""),
    mcpTool("github", "create_issue", "Create a GitHub issue"),
    mcpTool("slack", "send_message", "Send a Slack message")
  ])
  const index = buildSearchIndex(registry)

  it("answers the reference §2.3 vectors as keywordSearch does", () => {
    const vectors: ReadonlyArray<readonly [string, number, ReadonlyArray<string>]> = [
      ["how do I stop this cron or loop wakeup?", 1, ["cron_delete"]],
      ["+stop cron", 1, ["cron_delete"]],
      ["show active loop tasks", 1, ["cron_list"]],
      ["schedule loop wakeup", 1, ["loop_wakeup"]]
    ]
    for (const [query, max, expected] of vectors) {
      assert.deepStrictEqual(names(index.search(query, max)), expected, query)
      assert.deepStrictEqual(index.search(query, max), reference(registry, query, max), query)
    }
  })

  it("gives the same messages for no terms and no matches", () => {
    assert.deepStrictEqual(index.search("how do I", 5), { _tag: "NoSearchTerms", message: NO_SEARCH_TERMS })
    assert.deepStrictEqual(index.search("  zebra  ", 5), reference(registry, "  zebra  ", 5))
    assert.strictEqual(index.search("  zebra  ", 5)._tag, "NoMatches")
  })

  it("leaves out the tools isCandidate rejects, as if they were not indexed", () => {
    assert.deepStrictEqual(names(index.search("loop_wakeup", 1)), ["loop_wakeup"])
    const hidden = (t: SearchableTool) => t.name !== "loop_wakeup"
    assert.strictEqual(index.search("continuation", 5, hidden)._tag, "NoMatches")
    assert.deepStrictEqual(index.search("loop", 20, hidden), reference(registry, "loop", 20, hidden))
    assert.notInclude(names(index.search("loop", 20, hidden)), "loop_wakeup")
  })

  it("matches terms with separators (node.js, c++, list_files) by a plain scan", () => {
    const tools = sortTools([
      tool("list_files", "Lists the files of a node.js project"),
      tool("compile_cpp", "Builds c++ sources"),
      tool("files", "x", "list_files")
    ])
    const idx = buildSearchIndex(tools)
    for (const query of ["list_files", "node.js", "c++ build", "+list_files", "s.js", "st_fi"]) {
      assert.deepStrictEqual(idx.search(query, 20), reference(tools, query, 20), query)
    }
    assert.deepStrictEqual(names(idx.search("list_files", 20)), ["list_files", "files"])
  })

  it("an empty index finds nothing", () => {
    assert.strictEqual(buildSearchIndex([]).search("cron", 5)._tag, "NoMatches")
  })

  it("keeps no state between queries (the same query twice, then another, then the first again)", () => {
    const first = index.search("delete cron", 20)
    assert.deepStrictEqual(index.search("delete cron", 20), first)
    assert.deepStrictEqual(index.search("+send message", 20), reference(registry, "+send message", 20))
    assert.deepStrictEqual(index.search("delete cron", 20), first)
  })

  it("a candidate filter that throws leaves the index usable", () => {
    assert.throws(() => index.search("cron", 5, () => {
      throw new Error("boom")
    }))
    assert.deepStrictEqual(index.search("cron", 5), reference(registry, "cron", 5))
  })
})

// Words that collide often: aliases, their substrings, separators, case and non-ASCII letters.
const WORDS = [
  "cron", "delete", "remove", "cancel", "stop", "clear", "list", "send", "message", "task", "git",
  "de", "ete", "op", "on", "st", "Cron", "DELETE", "café", "cafe\u0301", "İstanbul", "straße", "日本", "😀",
  "1", "12", "v2", "node.js", "c++", "a-b", "x_y"
]
const SEPARATORS = ["_", ".", "-", " ", "", "__", "/", "\u00a0"]

const word = fc.constantFrom(...WORDS)
const phrase = (max: number) =>
  fc.array(fc.tuple(word, fc.constantFrom(...SEPARATORS)), { minLength: 0, maxLength: max })
    .map((parts) => parts.map(([w, s]) => w + s).join(""))

const toolArb = fc.record({
  name: phrase(4).filter((s) => s.length > 0),
  description: phrase(6),
  searchHint: fc.option(fc.array(word, { maxLength: 4 }).map((ws) => ws.join(" ")), { nil: undefined }),
  serverName: fc.option(fc.constantFrom("gh", "slack", ""), { nil: undefined })
}).map((t): SearchableTool => ({ ...t, displayName: t.name }))

const queryArb = fc.array(
  fc.tuple(fc.constantFrom("", "+", "  ", "?"), word, fc.constantFrom(" ", "  ", "! ", "\t")),
  { minLength: 0, maxLength: 4 }
).map((parts) => parts.map(([pre, w, post]) => pre + w + post).join(""))

describe("buildSearchIndex — properties", () => {
  it("ranks exactly as keywordSearch over the same candidates, for any tools, query, limit and hidden set", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(toolArb, { selector: (t) => t.name, maxLength: 30 }),
        fc.array(queryArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: -1, max: 25 }),
        fc.func(fc.boolean()),
        (raw, queries, max, hiddenOf) => {
          const tools = sortTools(raw)
          const index = buildSearchIndex(tools)
          const isCandidate = (t: SearchableTool) => hiddenOf(t.name)
          for (const query of queries) {
            assert.deepStrictEqual(index.search(query, max), reference(tools, query, max), query)
            assert.deepStrictEqual(index.search(query, max, isCandidate), reference(tools, query, max, isCandidate), query)
          }
        }
      ),
      { seed: SEED, numRuns: 400 }
    )
  })
})
