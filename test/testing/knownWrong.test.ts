/**
 * Every entry of knownWrong.ts still lands wrong at its seed and path. When one no longer does (the
 * ladder was fixed, or the generators changed), this fails: delete the entry, and the "never wrong"
 * properties then hold that kind to the rule too.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { Family } from "../../src/testing/index.js"
import { KNOWN_WRONG } from "./knownWrong.js"
import { wrongOfKind } from "./properties.js"

describe("known wrong landings of today's ladder", () => {
  it("the list names each kind once", () => {
    assert.strictEqual(new Set(KNOWN_WRONG.map((k) => k.kind)).size, KNOWN_WRONG.length)
  })
  for (const known of KNOWN_WRONG) {
    it(`${known.kind} still lands wrong at seed ${known.seed}`, () => {
      const family = known.kind.split("/")[0] as Family
      const run = fc.check(wrongOfKind(family, known.kind), { seed: known.seed, path: known.path, numRuns: 10_000 })
      assert.isTrue(run.failed, `${known.kind} no longer lands wrong at seed ${known.seed} (path ${known.path}): remove it from test/testing/knownWrong.ts`)
    })
  }
})
