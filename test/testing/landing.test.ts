/**
 * "Correct or refused, never wrong", per perturbation family: a seeded run over the matching ladder
 * (the edit tool's text pipeline without the disk) and a few cases through the real `edit` tool on
 * real files. Kinds listed in knownWrong.ts are tolerated; landing.slow.test.ts runs 10,000 per family.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect } from "effect"
import { editCaseArb, FAMILIES } from "../../src/testing/index.js"
import { landWithEdit, withWorld } from "./harness.js"
import { emptyTally, judge, ladderProperty } from "./properties.js"

const LADDER_RUNS = 100
const TOOL_RUNS = 5

describe("landing: never wrong, per family", () => {
  for (const family of FAMILIES) {
    it(`${family}: ${LADDER_RUNS} cases over the ladder`, () => {
      const tally = emptyTally()
      fc.assert(ladderProperty(family, tally), { seed: 20261205, numRuns: LADDER_RUNS })
      assert.strictEqual(tally.wrong, 0)
      assert.strictEqual(tally.correct + tally.refused + tally.toleratedWrong, LADDER_RUNS)
    })
  }

  it(`every family, ${TOOL_RUNS} cases each through the real edit tool`, async () => {
    const tally = emptyTally()
    await withWorld((w) =>
      Effect.gen(function*() {
        for (const family of FAMILIES) {
          for (const c of fc.sample(editCaseArb(family), { seed: 7, numRuns: TOOL_RUNS })) {
            judge(tally, c, yield* landWithEdit(w, c))
          }
        }
      })
    )
    assert.strictEqual(tally.wrong, 0)
    assert.strictEqual(tally.correct + tally.refused + tally.toleratedWrong, TOOL_RUNS * FAMILIES.length)
    assert.isAbove(tally.correct, 0)
  }, 120_000)
})
