/**
 * The batch budget of reference §10.5 as pure functions over plain strings and numbers: a
 * max-min fair ("water filling") allocation of one character budget across the text slots of a
 * batch, and the head/tail fit of an over-budget slot under a header naming its saved file.
 *
 * @since 0.1.0
 */
import { BATCH_TRUNCATED_HEADER } from "./constants.js"
import { takeEnd, takeStart } from "./unicode.js"

const HEADER_SEPARATOR = "\n\n"
const MIDDLE_MARKER = "\n...\n"

/**
 * Max-min fair allocation of `budget` chars across slots of the given lengths: repeatedly give
 * each active slot `floor(remaining / active)`; slots that fit keep their length and leave; when
 * none fit, each gets the share and the leftover units go one each to the earliest slots.
 * A budget below 0 (or NaN) counts as 0; `Infinity` leaves every slot unchanged.
 *
 * @category budget
 */
export const allocateTextBudget = (lengths: ReadonlyArray<number>, budget: number): Array<number> => {
  const allocations = lengths.map(() => 0)
  let remaining = budget > 0 ? Math.floor(budget) : 0
  let active = lengths.map((_, index) => index)
  while (active.length > 0) {
    const share = Math.floor(remaining / active.length)
    const fitting = active.filter((index) => lengths[index]! <= share)
    if (fitting.length === 0) {
      let leftover = remaining - share * active.length
      for (const index of active) {
        allocations[index] = share + (leftover > 0 ? 1 : 0)
        if (leftover > 0) leftover--
      }
      break
    }
    for (const index of fitting) {
      allocations[index] = lengths[index]!
      remaining -= lengths[index]!
    }
    active = active.filter((index) => lengths[index]! > share)
  }
  return allocations
}

/** The header of a fitted slot: plain, one persisted file, or a list of files (§10.5). @category budget */
export const fitHeader = (persistedFiles: ReadonlyArray<string> = []): string => {
  if (persistedFiles.length === 0) return BATCH_TRUNCATED_HEADER
  if (persistedFiles.length === 1) {
    return `${BATCH_TRUNCATED_HEADER} Persisted tool-output artifact: ${persistedFiles[0]}`
  }
  return `${BATCH_TRUNCATED_HEADER} Persisted tool-output artifacts:\n${persistedFiles.map((file) => `- ${file}`).join("\n")}`
}

/**
 * Fits `text` into `maxChars`: unchanged if it fits, else `header + "\n\n" + head + "\n...\n" +
 * tail` with `head = floor(c/5)`, `tail = c − head`, `c = maxChars − header − 2 − 5`. Surrogate
 * pairs are never split (the result may then be one char shorter); budgets too small for that
 * shape return a prefix of the header, or the header plus a prefix of the text.
 *
 * @category budget
 */
export const fitText = (text: string, maxChars: number, persistedFiles: ReadonlyArray<string> = []): string => {
  if (text.length <= maxChars) return text
  if (!(maxChars > 0)) return ""
  const max = Math.floor(maxChars)
  const header = fitHeader(persistedFiles)
  const previewBudget = max - header.length - HEADER_SEPARATOR.length
  if (previewBudget <= 0) return takeStart(header, max)
  if (previewBudget <= MIDDLE_MARKER.length) return header + HEADER_SEPARATOR + takeStart(text, previewBudget)
  const contentBudget = previewBudget - MIDDLE_MARKER.length
  const headBudget = Math.floor(contentBudget / 5)
  return header + HEADER_SEPARATOR + takeStart(text, headBudget) + MIDDLE_MARKER +
    takeEnd(text, contentBudget - headBudget)
}

/** The allocation of one batch and the slots that must be cut (and so persisted first). @category models */
export interface BudgetPlan {
  /** Chars allowed per slot, in slot order. */
  readonly allocations: ReadonlyArray<number>
  /** Indices of the slots longer than their allocation. */
  readonly overBudget: ReadonlyArray<number>
}

/**
 * Plans the batch budget with the §10.1 semantics: a budget ≤0, NaN or `Infinity` disables it,
 * and a batch within budget is left unchanged (empty `overBudget`).
 *
 * @category budget
 */
export const planTextBudget = (lengths: ReadonlyArray<number>, budget: number): BudgetPlan => {
  const total = lengths.reduce((sum, length) => sum + length, 0)
  if (!(budget > 0) || !Number.isFinite(budget) || total <= budget) {
    return { allocations: [...lengths], overBudget: [] }
  }
  const allocations = allocateTextBudget(lengths, budget)
  const overBudget = lengths.flatMap((length, index) => (length > allocations[index]! ? [index] : []))
  return { allocations, overBudget }
}

/** One text slot of a batch and the files its full text was persisted to. @category models */
export interface TextSlot {
  readonly text: string
  readonly persistedFiles?: ReadonlyArray<string> | undefined
}

/**
 * Applies the batch budget to already-persisted slots: plans with {@link planTextBudget} and
 * replaces every over-budget slot by {@link fitText}. Returns the new texts in slot order.
 *
 * @category budget
 */
export const applyTextBudget = (slots: ReadonlyArray<TextSlot>, budget: number): Array<string> => {
  const plan = planTextBudget(slots.map((slot) => slot.text.length), budget)
  return slots.map((slot, index) => fitText(slot.text, plan.allocations[index]!, slot.persistedFiles ?? []))
}
