/**
 * The second of two overlapping edits: when another writer changed the file after this edit was
 * planned, the edit is planned again, under the file's write lock, on the bytes now there. Its
 * `old_string` still matching one place applies it on top of the other change; anything else is
 * refused with `file_changed_since_read`, showing the current text where the edit was aimed, so a
 * model can redo it without another read.
 *
 * @since 0.2.0
 */
import * as Effect from "effect/Effect"
import { FileChangedSinceRead } from "../tool/index.js"
import { editGuard, type EditPlan, type EditPlanError, type EditRequest, planEdit } from "./editPlan.js"
import type { FileSnapshot, MutationContext } from "../write/index.js"

/** Lines shown around the region an edit aimed at, and at most this many in all. */
const CONTEXT_LINES = 2
const MAX_REGION_LINES = 40

/** Every error of {@link replanEdit}. @category errors */
export type ReplanError = EditPlanError | FileChangedSinceRead

/** Lines `from`..`to` (1-based, clamped) of `text`, numbered as read_file numbers them. */
const regionOf = (text: string, from: number, to: number): { readonly shown: string; readonly from: number; readonly to: number } => {
  const lines = text.split("\n")
  const first = Math.max(1, from - CONTEXT_LINES)
  const last = Math.min(lines.length, to + CONTEXT_LINES, first + MAX_REGION_LINES - 1)
  const shown = lines.slice(first - 1, last).map((line, i) => `${first + i}\t${line}`).join("\n")
  return { shown, from: first, to: last }
}

/**
 * Plans `request` again on `current` (the file as another writer left it, read under the lock).
 * `original` is the plan that lost the race: where it matched is the region shown on refusal.
 * `fuzzyNeedsApproval`: an approximate match is refused, as at the first planning.
 * @category editing
 */
export const replanEdit = (
  ctx: MutationContext,
  abs: string,
  request: EditRequest,
  original: EditPlan,
  fuzzyNeedsApproval: boolean
) =>
(current: FileSnapshot): Effect.Effect<EditPlan, ReplanError> =>
  Effect.gen(function*() {
    yield* editGuard(ctx, abs)(current.exists)
    const changed = (why: string) => {
      const text = current.decoded?.text
      const at = original.match
      const region = text === undefined || at === null ? undefined : regionOf(text, at.startLine, at.endLine)
      const shown = region === undefined
        ? ""
        : ` The file's current lines ${region.from}-${region.to} (where the edit was aimed) are:\n${region.shown}`
      return new FileChangedSinceRead({
        message: `File ${abs} was changed by another write while this edit was in flight, and ${why}, so nothing ` +
          `was written.${shown}\nRedo the edit against the current content (re-read the file with read_file if ` +
          `you need more of it).`,
        display: "file changed by another write during the edit; nothing written."
      })
    }
    const plan = yield* planEdit(ctx, abs, current, request).pipe(
      Effect.catchTags({
        EditNoOccurrenceFound: () => Effect.fail(changed("old_string no longer occurs in it")),
        EditExpectedOccurrenceMismatch: () => Effect.fail(changed("old_string no longer matches exactly one place in it")),
        EditNoChange: () => Effect.fail(changed("the text it would write is already there"))
      })
    )
    if (fuzzyNeedsApproval && plan.match !== null && plan.match.rung !== "exact") {
      return yield* changed(`old_string now matches only approximately (rung: ${plan.match.rung}), which needs a person's approval`)
    }
    return plan
  })
