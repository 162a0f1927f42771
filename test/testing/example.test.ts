/**
 * docs/testing.md stays true: its code blocks are the type-checked code of examples/testing.ts,
 * they import only what `toolwright/testing` exports, and the example runs: the exact edit
 * function is never wrong, the loose first-match one is caught.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Testing from "../../src/testing/index.js"
import { exactEdit, firstLooseEdit, neverWrong, score } from "../../examples/testing.js"

const repoRoot = path.resolve(import.meta.dirname, "..", "..")

describe("docs/testing.md", () => {
  const text = fs.readFileSync(path.join(repoRoot, "docs", "testing.md"), "utf8")
  const blocks = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!)
  const withoutImports = (code: string) => code.split("\n").filter((l) => !l.startsWith("import ")).join("\n").trim()

  it("every code block is type-checked code of examples/testing.ts", () => {
    const example = fs.readFileSync(path.join(repoRoot, "examples", "testing.ts"), "utf8")
    assert.isAtLeast(blocks.length, 4)
    for (const block of blocks) assert.include(example, withoutImports(block))
  })

  it("imports only what toolwright/testing exports", () => {
    for (const block of blocks) {
      for (const m of block.matchAll(/^import \{ (.+) \} from "toolwright\/testing"$/gm)) {
        for (const name of m[1]!.split(",").map((s) => s.trim().replace(/^type /, ""))) {
          if (/^[a-z]/.test(name) || /^[A-Z_]+$/.test(name)) assert.property(Testing, name, `toolwright/testing exports ${name}`)
        }
      }
    }
  })
})

describe("the example", () => {
  it("the exact edit function is correct or refused on every family", () => {
    for (const family of Testing.FAMILIES) fc.assert(neverWrong(exactEdit, family), { seed: 1, numRuns: 50 })
  })

  it("the first-match loose edit function is caught applying a duplicated needle", () => {
    const run = fc.check(neverWrong(firstLooseEdit, "ambiguous_duplicates"), { seed: 1, numRuns: 200 })
    assert.isTrue(run.failed)
    assert.match(String(run.errorInstance), /applied WRONG although it had to refuse/)
    const rows = score(firstLooseEdit, 50)
    const ambiguous = rows.find((r) => r.family === "ambiguous_duplicates")!
    assert.isAbove(ambiguous.wrong, 0)
    assert.match(ambiguous.firstWrong, /^ambiguous_duplicates\//)
    assert.deepStrictEqual(score(exactEdit, 50).map((r) => r.wrong), Testing.FAMILIES.map(() => 0))
  })
})
