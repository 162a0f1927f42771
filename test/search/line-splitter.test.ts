import { assert, describe, it } from "@effect/vitest"
import { makeLineSplitter } from "../../src/search/searchProcess.js"

const split = (chunks: ReadonlyArray<string>, maxLineBytes: number): Array<string> => {
  const lines: Array<string> = []
  const splitter = makeLineSplitter((line) => lines.push(line.toString("utf8")), maxLineBytes)
  for (const chunk of chunks) splitter.push(Buffer.from(chunk))
  splitter.end()
  return lines
}

describe("process line splitter", () => {
  it("joins lines across chunks and flushes an unterminated last line", () => {
    assert.deepStrictEqual(split(["ab", "c\nde", "f\n\ng", "h"], 100), ["abc", "def", "", "gh"])
  })

  it("keeps a line at the cap and drops a longer one as it streams, the next lines intact", () => {
    assert.deepStrictEqual(split(["12345", "6\nok\n"], 6), ["123456", "ok"])
    assert.deepStrictEqual(split(["1234", "567", "89", "0\nok\n", "tail"], 6), ["ok", "tail"])
    assert.deepStrictEqual(split(["short\n", "x".repeat(50)], 6), ["short"])
  })
})
