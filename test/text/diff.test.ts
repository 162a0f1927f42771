import { assert, describe, it } from "@effect/vitest"
import { applyPatch } from "diff"
import fc from "fast-check"
import { changedOldLines, createPatchSmart, getDiffStat, hasHunks } from "../../src/text/diff.js"

describe("diff helpers (reference §8)", () => {
  it("a unified diff with Current/Proposed headers and 3 lines of context", () => {
    const old = Array.from({ length: 10 }, (_, i) => `l${i + 1}`).join("\n") + "\n"
    const neu = old.replace("l5\n", "L5\n")
    const patch = createPatchSmart("f.txt", old, neu)
    assert.include(patch, "--- f.txt\tCurrent\n+++ f.txt\tProposed\n@@ -2,7 +2,7 @@\n l2\n l3\n l4\n-l5\n+L5\n l6\n l7\n l8\n")
    assert.isTrue(hasHunks(patch))
  })

  it("whitespace changes always show (the diff is exact, unlike the reference's whitespace-blind first try)", () => {
    const patch = createPatchSmart("f.py", "if x:\n  y()\n", "if x:\n    y()\n")
    assert.include(patch, "-  y()\n+    y()")
    assert.isFalse(hasHunks(createPatchSmart("f", "same\n", "same\n")))
  })

  it("getDiffStat splits model and user lines and chars", () => {
    const stat = getDiffStat("f", "a\nb\n", "a\nB!\n", "a\nB!\nc\n")
    assert.deepStrictEqual(stat, {
      model_added_lines: 1,
      model_removed_lines: 1,
      model_added_chars: 2,
      model_removed_chars: 1,
      user_added_lines: 1,
      user_removed_lines: 0,
      user_added_chars: 1,
      user_removed_chars: 0
    })
    assert.strictEqual(getDiffStat("f", "x", "x", "x").model_added_lines, 0)
  })

  it("changedOldLines: replaced ranges, and the line an insertion follows", () => {
    assert.deepStrictEqual(changedOldLines("a\nb\nc\nd\n", "a\nB\nc\nD\n"), [{ start: 2, end: 2 }, { start: 4, end: 4 }])
    assert.deepStrictEqual(changedOldLines("a\nb\nc\n", "a\nb\nX\nc\n"), [{ start: 2, end: 2 }])
    assert.deepStrictEqual(changedOldLines("a\n", "X\na\n"), [{ start: 1, end: 1 }])
    assert.deepStrictEqual(changedOldLines("same", "same"), [])
  })

  it("a one-line change in a 20 MB text is diffed by its middle only (common head and tail set aside)", () => {
    const old = Array.from({ length: 400_000 }, (_, i) => `line number ${i} with some text\n`).join("")
    const neu = old.replace("line number 200000 with", "LINE NUMBER 200000 with")
    const patch = createPatchSmart("big", old, neu)
    assert.include(patch, "@@ -199998,7 +199998,7 @@")
    assert.strictEqual(applyPatch(old, patch), neu)
  })

  it("property: the patch always turns the old text into the new one (seeded)", () => {
    const lineArb = fc.constantFrom("a", "b", "c", "  a", "", "x y")
    const textArb = fc.tuple(fc.array(lineArb, { maxLength: 30 }), fc.boolean()).map(([ls, end]) => ls.join("\n") + (end && ls.length > 0 ? "\n" : ""))
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        const patch = createPatchSmart("p", a, b)
        return hasHunks(patch) ? applyPatch(a, patch) === b : a === b
      }),
      { seed: 77, numRuns: 400 }
    )
  })
})
