/**
 * The "correct or refused, never wrong" property of one family, over the ladder (fast) or the real
 * edit tool, tolerating only the kinds listed in knownWrong.ts.
 */
import fc from "fast-check"
import { caseKind, describeLanding, type EditCase, editCaseArb, expectLanding, type Family, type Landing, type ToolOutcome } from "../../src/testing/index.js"
import { isKnownWrong } from "./knownWrong.js"
import { landWithLadder } from "./harness.js"

/** Verdict counts of one run. */
export interface Tally {
  correct: number
  refused: number
  wrong: number
  toleratedWrong: number
}

export const emptyTally = (): Tally => ({ correct: 0, refused: 0, wrong: 0, toleratedWrong: 0 })

/** Counts a landing; throws (failing the property) on a wrong landing of a kind not known to be wrong. */
export const judge = (tally: Tally, c: EditCase, outcome: ToolOutcome): Landing => {
  const landing = expectLanding(c, outcome)
  if (landing.verdict === "applied-correct") tally.correct++
  else if (landing.verdict === "refused") tally.refused++
  else if (isKnownWrong(caseKind(c))) tally.toleratedWrong++
  else {
    tally.wrong++
    throw new Error(describeLanding(c, landing))
  }
  return landing
}

/** The never-wrong property of a family over the ladder. */
export const ladderProperty = (family: Family, tally: Tally) =>
  fc.property(editCaseArb(family), (c) => {
    judge(tally, c, landWithLadder(c))
  })

/** Fails exactly when a case of `kind` lands wrong on the ladder (to replay a known-wrong entry). */
export const wrongOfKind = (family: Family, kind: string) =>
  fc.property(editCaseArb(family), (c) =>
    !(caseKind(c) === kind && expectLanding(c, landWithLadder(c)).verdict === "applied-wrong"))
