/**
 * The long run of "correct or refused, never wrong": 10,000 generated cases per family over the
 * matching ladder, and 100 per family through the real `edit` tool. Kinds listed in knownWrong.ts
 * are tolerated (and counted); anything else that lands wrong fails with the case and its seed.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Effect } from "effect"
import { editCaseArb, FAMILIES } from "../../src/testing/index.js"
import { landWithEdit, withWorld } from "./harness.js"
import { emptyTally, judge, ladderProperty } from "./properties.js"

const LADDER_RUNS = 10_000
const TOOL_RUNS = 100

describe("landing (long run): never wrong, per family", () => {
  for (const family of FAMILIES) {
    it(`${family}: ${LADDER_RUNS} cases over the ladder`, () => {
      const tally = emptyTally()
      fc.assert(ladderProperty(family, tally), { seed: 19, numRuns: LADDER_RUNS })
      assert.strictEqual(tally.wrong, 0)
      assert.strictEqual(tally.correct + tally.refused + tally.toleratedWrong, LADDER_RUNS)
    }, 600_000)
  }

  for (const family of FAMILIES) {
    it(`${family}: ${TOOL_RUNS} cases through the real edit tool`, async () => {
      const tally = emptyTally()
      await withWorld((w) =>
        Effect.gen(function*() {
          for (const c of fc.sample(editCaseArb(family), { seed: 23, numRuns: TOOL_RUNS })) {
            judge(tally, c, yield* landWithEdit(w, c))
          }
        })
      )
      assert.strictEqual(tally.wrong, 0)
      assert.strictEqual(tally.correct + tally.refused + tally.toleratedWrong, TOOL_RUNS)
    }, 600_000)
  }
})
