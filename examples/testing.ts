/**
 * The code of docs/testing.md, type-checked (`npm run check`) and run by
 * test/testing/example.test.ts. A test checks that every code block of the doc appears here
 * verbatim (import lines aside: the doc imports from `toolwright/testing`, this file from ../src).
 */
import fc from "fast-check"
import {
  applied,
  assertNeverWrong,
  beforeBytes,
  describeLanding,
  type EditCase,
  editCaseArb,
  expectLanding,
  FAMILIES,
  type Family,
  type ToolOutcome,
  refused
} from "../src/testing/index.js"

// --- the edit function under test ---
// Text in, text out; `undefined` means "refused". This one is exact: old_string must occur once.
export const exactEdit = (text: string, oldString: string, newString: string): string | undefined => {
  const at = text.indexOf(oldString)
  if (at === -1 || text.indexOf(oldString, at + 1) !== -1) return undefined
  return text.slice(0, at) + newString + text.slice(at + oldString.length)
}

// A looser one: trailing whitespace of old_string's lines is ignored, and the first place wins.
export const firstLooseEdit = (text: string, oldString: string, newString: string): string | undefined => {
  const needle = oldString.split("\n").map((line) => line.trimEnd()).join("\n")
  const at = text.indexOf(needle)
  return at === -1 ? undefined : text.slice(0, at) + newString + text.slice(at + needle.length)
}

type EditFunction = (text: string, oldString: string, newString: string) => string | undefined

// What the edit function did with one case, as the oracle wants it.
const outcomeOf = (edit: EditFunction, c: EditCase): ToolOutcome => {
  const after = edit(c.before, c.request.old_string, c.request.new_string)
  return after === undefined ? refused() : applied(after)
}

// --- the property: correct or refused, never wrong ---
export const neverWrong = (edit: EditFunction, family: Family) =>
  fc.property(editCaseArb(family), (c) => {
    assertNeverWrong(c, outcomeOf(edit, c))
  })

// fc.assert(neverWrong(exactEdit, "ambiguous_duplicates"), { seed: 1, numRuns: 200 })

// --- a score per family ---
export const score = (edit: EditFunction, runs = 200) =>
  FAMILIES.map((family) => {
    const counts = { family, correct: 0, refused: 0, wrong: 0, firstWrong: "" }
    for (const c of fc.sample(editCaseArb(family), { seed: 1, numRuns: runs })) {
      const landing = expectLanding(c, outcomeOf(edit, c))
      if (landing.verdict === "applied-correct") counts.correct++
      else if (landing.verdict === "refused") counts.refused++
      else {
        counts.wrong++
        counts.firstWrong ||= describeLanding(c, landing)
      }
    }
    return counts
  })

// --- your own texts, and a tool that works on files ---
export const casesFromMyRepo = (texts: ReadonlyArray<string>) => editCaseArb("indentation_drift", { sources: texts })

// Write beforeBytes(c) to a file, run the tool, and hand the oracle the bytes it left:
// expectLanding(c, applied(fs.readFileSync(file))), or refused() when it failed and wrote nothing.
export const fileBytesFor = (c: EditCase): Uint8Array => beforeBytes(c)
