/**
 * Amended approvals: the person asked rewrote the call's amendable parameter (`new_string`,
 * `content`, `command`) before approving it. What the model is told about it, and the person's
 * share of the change as diff stats (the reference's `user_*` counts: the proposal → what was
 * applied). The scheduler loads this module only when a person amended a call (it needs the text
 * room's diffs, which a session that only lists tools never loads).
 *
 * @since 0.1.0
 */
import { createPatchSmart, getDiffStat } from "../text/index.js"
import type { AppliedAmendment, CallResult, UserModification } from "../tool/index.js"

/** At most this much of the proposal → applied diff goes into the model-facing note. @category constants */
export const AMENDMENT_DIFF_MAX_CHARS = 4_000

/** What the person changed, with their added and removed lines and characters. @category amendments */
export const userModificationOf = (applied: AppliedAmendment): UserModification => {
  const stat = getDiffStat(applied.param, applied.proposal, applied.proposal, applied.value)
  return {
    param: applied.param,
    proposal: applied.proposal,
    applied: applied.value,
    diffStat: {
      user_added_lines: stat.user_added_lines,
      user_removed_lines: stat.user_removed_lines,
      user_added_chars: stat.user_added_chars,
      user_removed_chars: stat.user_removed_chars
    }
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The hunks of the proposal → applied diff (no file headers), cut at {@link AMENDMENT_DIFF_MAX_CHARS}. */
const amendmentDiff = (applied: AppliedAmendment): string => {
  const patch = createPatchSmart(applied.param, applied.proposal, applied.value, "proposed", "applied")
  // Without the file headers and the "\ No newline at end of file" markers (noise for a one-line value).
  const hunks = patch.slice(Math.max(0, patch.indexOf("@@"))).split("\n").filter((line) => !line.startsWith("\\")).join("\n").trimEnd()
  return hunks.length > AMENDMENT_DIFF_MAX_CHARS
    ? `${hunks.slice(0, AMENDMENT_DIFF_MAX_CHARS)}\n… (diff cut at ${AMENDMENT_DIFF_MAX_CHARS} characters)`
    : hunks
}

/**
 * The model-facing note about an amendment: that the person changed the proposal, by how much,
 * and the diff from the proposal to their version. `ran` says whether the amended call ran.
 *
 * @category amendments
 */
export const amendmentNote = (applied: AppliedAmendment, ran: boolean): string => {
  const { diffStat } = userModificationOf(applied)
  const counts = `${plural(diffStat.user_added_lines, "line")} added, ${plural(diffStat.user_removed_lines, "line")} removed by the user`
  const head = ran
    ? `The user modified your proposal before applying it: the ${applied.param} that was applied is theirs, not yours (${counts}).`
    : `The user modified your proposal before approving it: the ${applied.param} above is theirs, not yours (${counts}).`
  return `${head} Their ${applied.param}, as a diff from your proposal:\n${amendmentDiff(applied)}\n` +
    `Build on the user's version from here on; do not put your original back.`
}

/** A result of an amended call with the note added last and the person's changes recorded. @category amendments */
export const withAmendment = (result: CallResult, applied: AppliedAmendment): CallResult => {
  const userModified = userModificationOf(applied)
  switch (result._tag) {
    case "Success":
      return { ...result, userModified, llmContent: [...result.llmContent, { type: "text", text: amendmentNote(applied, true) }] }
    case "Failure":
      return { ...result, userModified, message: `${result.message}\n\n${amendmentNote(applied, false)}` }
    case "Cancelled":
      return result
  }
}
