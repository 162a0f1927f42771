/**
 * `calculateEdit` (reference §3.3): what an edit would write, or the reference's error for why it
 * cannot. It runs twice per call — for the confirmation and again at execution — and does no writing.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { checkPriorRead, type PriorReadError } from "../session/index.js"
import {
  changedOldLinesOf,
  ChangeView,
  type EditMatch,
  type EditSnippet,
  encodeChange,
  encodeText,
  extractChangeSnippet,
  extractEditSnippet,
  findUnrepresentable,
  type NearMiss,
  NEW_FILE_FORMAT,
  resolveEdit,
  rungRow,
  type TextFormat,
  toLf,
  utf8HasNoLookalikes,
  type WriteBytes
} from "../text/index.js"
import {
  AttemptToCreateExistingFile,
  EditExpectedOccurrenceMismatch,
  EditNoChange,
  EditNoOccurrenceFound,
  EditPreparationFailure,
  type EditRequiresPriorRead,
  FileNotFound,
  type FileTooLarge,
  type PermissionDenied
} from "../tool/index.js"
import type { FileToolsSettings } from "../write/index.js"
import { requireSeenLines } from "./evidence.js"
import { type FileSnapshot, loadSnapshot, type MutationContext, type PriorGuard } from "../write/index.js"
import { snapshotReadFailure } from "../write/index.js"

/** An edit as the model asked for it. @category models */
export interface EditRequest {
  readonly oldString: string
  readonly newString: string
  readonly replaceAll: boolean
}

/** A computed edit, ready to confirm and write. @category models */
export interface EditPlan {
  readonly snapshot: FileSnapshot
  readonly isNewFile: boolean
  /** The current text (LF for a CRLF file), `null` for a new file. */
  readonly currentText: string | null
  readonly newText: string
  /** The change of the current text (`null` for a new file): diffs and snippets look only around it. */
  readonly change: ChangeView | null
  /** The bytes to write, in order. */
  readonly newBytes: WriteBytes
  readonly format: TextFormat
  /** Where the edit landed and by which rung (`null` for a new file). */
  readonly match: EditMatch | null
  readonly snippet: EditSnippet | null
}

/** Every error {@link computeEdit} can fail with. @category errors */
export type EditPlanError =
  | PriorReadError
  | EditRequiresPriorRead
  | FileNotFound
  | AttemptToCreateExistingFile
  | EditNoOccurrenceFound
  | EditExpectedOccurrenceMismatch
  | EditNoChange
  | EditPreparationFailure
  | FileTooLarge
  | PermissionDenied

/** The guard of the edit tool: the reference's prior-read check for `editing`. @category enforcement */
export const editGuard = (ctx: MutationContext, abs: string): PriorGuard<PriorReadError> => (expectExisting) =>
  checkPriorRead(ctx.cache, abs, "editing", expectExisting === undefined ? {} : { expectExisting })

const newFileFormat = (settings: FileToolsSettings): TextFormat => ({
  ...NEW_FILE_FORMAT,
  bom: settings.newFileEncoding === "utf-8-bom"
})

const placeLines = (lines: ReadonlyArray<number>, occurrences: number): string =>
  `${lines.length === 1 ? "line" : "lines"} ${lines.join(", ")}${occurrences > lines.length ? ", …" : ""}`

const nearMissText = (nearMiss: NearMiss | undefined): string =>
  nearMiss === undefined
    ? ""
    : `\n\nThe closest text in the file is at line ${nearMiss.line}:\n${nearMiss.actual}\n` +
      `Difference ([-in old_string-]{+in the file+}): ${nearMiss.diff}`

const noOccurrence = (abs: string, nearMiss: NearMiss | undefined) =>
  new EditNoOccurrenceFound({
    message: `Failed to edit, 0 occurrences found for old_string in ${abs}. No edits made. The exact text in ` +
      `old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, ` +
      `indentation, and context. Use read_file tool to verify.${nearMissText(nearMiss)}`,
    display: "Failed to edit, could not find the string to replace."
  })

const unrepresentable = (abs: string, format: TextFormat, text: string) => {
  const bad = findUnrepresentable(text, format.encoding)
  if (bad === undefined) return undefined
  return new EditPreparationFailure({
    message: `Error preparing edit: new_string contains '${bad.char}' (${bad.codePoint}), which the file's encoding ` +
      `${format.encoding.toUpperCase()} cannot represent; writing it would corrupt the character. Use only ` +
      `characters ${format.encoding.toUpperCase()} can encode (e.g. an escape sequence of the file's language).`,
    display: `Error preparing edit: '${bad.char}' cannot be written in ${format.encoding.toUpperCase()}.`
  })
}

/**
 * Computes an edit: prior-read checks around the read, the reference's decision table (with the
 * ladder's match as data and a near-miss on failure), the stricter line evidence when enabled,
 * and the new bytes in the file's own encoding, BOM and line endings.
 * @category editing
 */
export const computeEdit = (
  ctx: MutationContext,
  abs: string,
  request: EditRequest
): Effect.Effect<EditPlan, EditPlanError, Scope.Scope> =>
  loadSnapshot(ctx, abs, editGuard(ctx, abs)).pipe(
    Effect.catchTag("DiskError", (e) =>
      Effect.fail(snapshotReadFailure(e, (reason) =>
        new EditPreparationFailure({
          message: `Error preparing edit: could not read ${abs} (${reason}). Retry once; if it fails again, tell the user.`,
          display: `Error preparing edit: ${reason}`
        })))),
    Effect.flatMap((snapshot) => planEdit(ctx, abs, snapshot, request))
  )

/**
 * The edit of {@link computeEdit} on a snapshot already loaded (the decision table, evidence and
 * new bytes); also what a re-plan under the write lock runs on the file's current bytes.
 * @category editing
 */
export const planEdit = (
  ctx: MutationContext,
  abs: string,
  snapshot: FileSnapshot,
  request: EditRequest
): Effect.Effect<EditPlan, EditPlanError> =>
  Effect.gen(function*() {
    if (snapshot.decoded === null) {
      if (request.oldString !== "") {
        return yield* new FileNotFound({
          message: `File not found: ${abs}`,
          display: "File not found. Cannot apply edit. Use an empty old_string to create a new file."
        })
      }
      const format = newFileFormat(ctx.settings)
      const newText = request.newString
      return {
        snapshot,
        isNewFile: true,
        currentText: null,
        newText,
        change: null,
        newBytes: encodeText(newText, format),
        format,
        match: null,
        snippet: extractEditSnippet(null, newText)
      } satisfies EditPlan
    }
    if (request.oldString === "") {
      return yield* new AttemptToCreateExistingFile({
        message: `File already exists, cannot create: ${abs}`,
        display: "Failed to edit. Attempted to create a file that already exists."
      })
    }
    const { text, format } = snapshot.decoded
    const crlf = format.lineEnding === "crlf"
    const oldString = crlf ? toLf(request.oldString) : request.oldString
    const newString = crlf ? toLf(request.newString) : request.newString
    const noLookalikes = format.encoding === "utf-8" && snapshot.bytes !== null && utf8HasNoLookalikes(snapshot.bytes)
    const resolved = resolveEdit(text, oldString, newString, { replaceAll: request.replaceAll, noLookalikes })
    switch (resolved._tag) {
      case "NoMatch":
        return yield* noOccurrence(abs, resolved.nearMiss)
      case "OccurrenceMismatch":
        return yield* new EditExpectedOccurrenceMismatch({
          message: `Failed to edit. Found ${resolved.occurrences} occurrences for old_string in ${abs} but replace_all was not enabled.`,
          display: "Failed to edit because the text matches multiple locations. Provide more context or set replace_all to true."
        })
      case "Ambiguous":
        return yield* new EditExpectedOccurrenceMismatch({
          message: `Failed to edit. old_string matches ${resolved.occurrences > resolved.lines.length ? `more than ${resolved.lines.length}` : resolved.occurrences} places in ${abs} only approximately ` +
            `(${placeLines(resolved.lines, resolved.occurrences)}; ${rungRow(resolved.rung).explanation}), and an approximate ` +
            `match is applied only when it is unique. Copy the exact text from read_file output and add surrounding ` +
            `lines so old_string matches one place.`,
          display: "Failed to edit because the text matches multiple locations approximately. Provide exact text with more context."
        })
    }
    const match = resolved
    const change = new ChangeView(text, match.change, match.startLine - 1)
    if (match.oldString === match.newString) {
      return yield* new EditNoChange({
        message: `No changes to apply. The old_string and new_string are identical in file: ${abs}`,
        display: "No changes to apply. The old_string and new_string are identical."
      })
    }
    if (change.isNoop) {
      return yield* new EditNoChange({
        message: `No changes to apply. The new content is identical to the current content in file: ${abs}`,
        display: "No changes to apply. The new content is identical to the current content."
      })
    }
    if (snapshot.stats !== null && ctx.cache.readEvidence === "ranges" && !ctx.cache.disabled) {
      yield* requireSeenLines(ctx.cache, abs, snapshot.stats, changedOldLinesOf(change))
    }
    const bad = unrepresentable(abs, format, match.newString)
    if (bad !== undefined) return yield* bad
    return {
      snapshot,
      isNewFile: false,
      currentText: text,
      newText: match.newContent,
      change,
      newBytes: snapshot.bytes === null ? encodeText(match.newContent, format) : encodeChange(snapshot.bytes, change, format),
      format,
      match,
      snippet: extractChangeSnippet(change)
    } satisfies EditPlan
  })
