import { assert, describe, it } from "@effect/vitest"
import { parseKeywordQuery, STOP_WORDS, tokenize } from "../../../src/registry/toolSearch/index.js"

describe("tokenize", () => {
  const vectors: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
    ["SlACK Send Message", ["slack", "send", "message"]],
    ["   foo    bar  ", ["foo", "bar"]],
    ["How do I stop this cron?", ["stop", "cron"]],
    ["please +cron, tasks!", ["+cron", "tasks"]],
    ["C++ C# search", ["c++", "c#", "search"]],
    ["a b x", []]
  ]
  for (const [input, expected] of vectors) {
    it(`reference vector ${JSON.stringify(input)}`, () => {
      assert.deepStrictEqual(tokenize(input), expected)
    })
  }

  it("drops every stop word, also when required", () => {
    assert.strictEqual(STOP_WORDS.size, 38)
    assert.deepStrictEqual(tokenize([...STOP_WORDS].join(" ")), [])
    assert.deepStrictEqual(tokenize("+the +cron"), ["+cron"])
  })

  it("strips edge punctuation but keeps inner characters and unicode letters", () => {
    assert.deepStrictEqual(tokenize("(mcp__github__create_issue) «größe» 'v1.2'"), [
      "mcp__github__create_issue",
      "größe",
      "v1.2"
    ])
    assert.deepStrictEqual(tokenize("+ !! +x"), [])
  })

  it("splits required and search terms", () => {
    assert.deepStrictEqual(parseKeywordQuery("+stop cron"), { required: ["stop"], search: ["stop", "cron"] })
    assert.deepStrictEqual(parseKeywordQuery("how is it"), { required: [], search: [] })
  })
})
