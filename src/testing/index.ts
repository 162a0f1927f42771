/**
 * `toolwright/testing`: property-test an edit tool (or a matcher, or a normalizer) the way
 * toolwright tests its own. Perturbation generators as fast-check arbitraries produce edit cases
 * (a file, the `old_string`/`new_string` a model got wrong in one of eleven ways, and the intended
 * file after, or "must refuse"); the landing oracle says whether what your tool did was correct,
 * a refusal, or a wrong edit, and where. fast-check is an optional peer dependency: install it to
 * use this entry. See docs/testing.md.
 *
 * @since 0.1.0
 */
/** The case model, the families and the byte forms of a case. */
export {
  beforeBytes,
  caseKind,
  type CaseEncoding,
  type EditCase,
  type EditRequest,
  encodeText,
  FAMILIES,
  type Family,
  type Intended,
  intendedBytes,
  representable
} from "./case.js"
/** The landing oracle. */
export {
  applied,
  assertNeverWrong,
  describeLanding,
  expectLanding,
  type Landing,
  refused,
  type ToolOutcome,
  type WrongSpan
} from "./oracle.js"
/** The arbitraries. */
export { anyEditCaseArb, choiceArb, codeTextArb, editCaseArb, type EditCaseOptions } from "./arbitraries.js"
/** The family builders, for drawing cases without fast-check's runner (e.g. `fc.sample`). */
export { type Builder, BUILDERS, type Choice } from "./families.js"
/** The text perturbations as plain functions. */
export {
  addTrailingWhitespace,
  commonIndent,
  curlyQuotes,
  dashes,
  type DashVariant,
  dashVariants,
  dropTrailingWhitespace,
  escapeKinds,
  EXOTIC_SPACES,
  exoticSpaces,
  overEscape,
  plainSpaces,
  reindentLines,
  straightQuotes
} from "./perturb.js"
/** Sources and windows. */
export { type EditShape, foldLookalikes, makeSource, type Source, type Window } from "./window.js"
