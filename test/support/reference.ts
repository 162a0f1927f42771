/**
 * The reference slice finder (`findMatchedSlice`) and `normalizeEditStrings`, with the
 * reference's exact semantics: literal → folded look-alikes → line passes → line passes without
 * the needle's final empty line. Each step returns the FIRST hit; the richer `resolveEdit`
 * refuses ambiguous fuzzy hits instead. Test support only: the reference behaviour that the
 * ladder's tests compare against, plus the reference's counting and replace-all helpers.
 */
import { LineTable } from "../../src/text/lines.js"
import { LINE_PASSES, lineSpan, scanLines } from "../../src/text/passes.js"
import { removeTrailingNewline } from "../../src/text/replace.js"
import { hasUnicodeEquivalents, normalizeUnicode } from "../../src/text/unicode.js"

/** A real slice of the file standing for the model's needle. */
export interface MatchedSlice {
  readonly slice: string
  readonly removedTrailingFinalEmptyLine: boolean
}

/** Old and new strings after normalisation against the file. */
export interface NormalizedEditStrings {
  readonly oldString: string
  readonly newString: string
}

/**
 * The first window under the first pass that has one. A pass is skipped only when it provably
 * finds nothing new: identity when the needle is already known to be absent literally, and the
 * folded pass when neither side has a look-alike (it is then the trimEnd pass).
 */
const firstWindow = (
  table: LineTable,
  lines: ReadonlyArray<string>,
  literallyAbsent: boolean,
  folds: boolean
): number | undefined => {
  for (const pass of LINE_PASSES) {
    if ((pass === "identity" && literallyAbsent) || (pass === "fold_trim_end" && !folds)) continue
    const [start] = scanLines(table, lines, pass, undefined, 1)
    if (start !== undefined) return start
  }
  return undefined
}

const findLineBasedMatch = (haystack: string, foldedHaystack: string, needle: string): MatchedSlice | null => {
  const table = new LineTable(haystack, () => foldedHaystack)
  const folds = foldedHaystack !== haystack || hasUnicodeEquivalents(needle)
  // The reference keeps the empty string after a final "\n" as a pattern line that must match a file line.
  const lines = needle.split("\n")
  const endsWithBreak = needle.endsWith("\n")
  // The needle was not found literally, so no window equals it line for line.
  const start = firstWindow(table, lines, true, folds)
  if (start !== undefined) {
    const [from, to] = lineSpan(table, start, lines.length - (endsWithBreak ? 1 : 0), endsWithBreak)
    return { slice: haystack.slice(from, to), removedTrailingFinalEmptyLine: false }
  }
  if (lines[lines.length - 1] === "") {
    const shorter = lines.slice(0, -1)
    if (shorter.length === 0) return null
    const again = firstWindow(table, shorter, false, folds)
    if (again !== undefined) {
      const [from, to] = lineSpan(table, again, shorter.length, false)
      return { slice: haystack.slice(from, to), removedTrailingFinalEmptyLine: true }
    }
  }
  return null
}

/** The first real slice of `haystack` that the model's `needle` stands for, or null (reference semantics). */
export const findMatchedSlice = (haystack: string, needle: string): MatchedSlice | null => {
  if (needle === "") return null
  const literal = haystack.indexOf(needle)
  if (literal !== -1) return { slice: needle, removedTrailingFinalEmptyLine: false }
  const foldedHaystack = normalizeUnicode(haystack)
  const folded = foldedHaystack.indexOf(normalizeUnicode(needle))
  if (folded !== -1) {
    return { slice: haystack.slice(folded, folded + needle.length), removedTrailingFinalEmptyLine: false }
  }
  return findLineBasedMatch(haystack, foldedHaystack, needle)
}

/** Replaces old_string by the file's real slice; new_string is kept verbatim (reference semantics). */
export const normalizeEditStrings = (
  fileContent: string | null,
  oldString: string,
  newString: string
): NormalizedEditStrings => {
  if (fileContent === null || oldString === "") return { oldString, newString }
  const found = findMatchedSlice(fileContent, oldString)
  if (found === null) return { oldString, newString }
  return {
    oldString: found.slice,
    newString: found.removedTrailingFinalEmptyLine ? removeTrailingNewline(newString) : newString
  }
}

/** Number of non-overlapping occurrences of `sub` in `source`; 0 when `sub` is empty. */
export const countOccurrences = (source: string, sub: string): number => {
  if (sub === "") return 0
  let count = 0
  for (let i = source.indexOf(sub); i !== -1; i = source.indexOf(sub, i + sub.length)) count++
  return count
}

/** A deletion takes the line break after old_string with it when the file has one (reference semantics). */
export const maybeAugmentOldStringForDeletion = (
  fileContent: string | null,
  oldString: string,
  newString: string
): string => {
  if (fileContent === null || oldString === "" || newString !== "" || oldString.endsWith("\n")) return oldString
  const candidate = `${oldString}\n`
  return fileContent.includes(candidate) ? candidate : oldString
}

/** Replaces every non-overlapping occurrence of `oldString` literally (reference semantics). */
export const applyReplacement = (
  currentContent: string | null,
  oldString: string,
  newString: string,
  isNewFile: boolean
): string => {
  if (isNewFile) return newString
  if (currentContent === null) return oldString === "" ? newString : ""
  if (oldString === "") return currentContent
  return currentContent.split(oldString).join(newString)
}

