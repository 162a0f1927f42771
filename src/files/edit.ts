/**
 * The `edit` tool (reference §3): replaces text in a file, or creates a file when `old_string` is
 * empty. The model's `old_string` goes through the matching ladder; the file's real bytes are
 * replaced and everything else is written back byte for byte in the file's own encoding, BOM and
 * line endings, atomically and only if the file still holds the bytes the edit was computed from.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { createChangePatch, createPatchSmart, getChangeDiffStat, getDiffStat, type Rung, rungRow } from "../text/index.js"
import {
  defineTool,
  ExecutionDenied,
  FileWriteFailure,
  text
} from "../tool/index.js"
import { computeEdit, editGuard, type EditPlan } from "./editPlan.js"
import { replanEdit } from "./editReplan.js"
import { commitPlan, makeMutationContext, unchangedSinceApproval } from "../write/index.js"
import { writeFailure } from "../write/index.js"
import { displayPath, unescapePath } from "../session/index.js"
import { EditParams, editDeclaration } from "./edit.decl.js"

export { EditParams } from "./edit.decl.js"

/** The typed result of a successful edit. @category models */
export interface EditData {
  readonly filePath: string
  /** The path really written (a symlink's target). */
  readonly writtenPath: string
  readonly created: boolean
  /** Where the edit landed and which rung of the ladder matched (`null` for a new file). */
  readonly match: {
    readonly rung: Rung
    readonly occurrences: number
    readonly startLine: number
    readonly endLine: number
    /** The file's real text that was replaced (first place). */
    readonly replaced: string
    /** The text written there. */
    readonly inserted: string
  } | null
  readonly encoding: string
  readonly bom: boolean
  readonly lineEnding: string
  readonly diffStat: ReturnType<typeof getDiffStat>
  readonly method: "atomic" | "in-place"
  readonly historyId?: string
}

const preview = (s: string) => ({ text: s.slice(0, 300), truncated: s.length > 300 })

const approximateNote = (plan: EditPlan): string | undefined => {
  const match = plan.match
  if (match === null || match.rung === "exact") return undefined
  const where = match.startLine === match.endLine ? `line ${match.startLine}` : `lines ${match.startLine}-${match.endLine}`
  return `old_string matched ${where} approximately: ${rungRow(match.rung).explanation} (rung: ${match.rung}). ` +
    `The file's own text there was replaced.`
}

const titleSuffix = (plan: EditPlan): string => {
  const match = plan.match
  if (match === null || match.rung === "exact") return ""
  return ` (approximate match: ${match.rung}, lines ${match.startLine}-${match.endLine})`
}

/** The `edit` tool, bound to the session's workspace, read cache and history. @category constructors */
export const makeEdit = Effect.gen(function*() {
  const ctx = yield* makeMutationContext
  const { cache, workspace, settings } = ctx

  return defineTool({
    ...editDeclaration,
    resolvesOwnPaths: true,
    toAutoClassifierInput: (p) => {
      const oldPreview = preview(p.old_string)
      const newPreview = preview(p.new_string)
      const breaks = (s: string) => s.split("\n").length - 1
      return JSON.stringify({
        file_path: p.file_path,
        old_string_preview: oldPreview.text,
        new_string_preview: newPreview.text,
        old_string_truncated: oldPreview.truncated,
        new_string_truncated: newPreview.truncated,
        lines_changed: breaks(p.new_string) - breaks(p.old_string)
      })
    },
    validate: (p) => (unescapePath(p.file_path) === "" ? "The 'file_path' parameter must be non-empty." : undefined),
    invoke: (params) =>
      Effect.gen(function*() {
        // The path and the call's location from one resolution.
        const { path: abs, location } = yield* workspace.resolveLocated(unescapePath(params.file_path))
        const rel = displayPath(workspace.primaryRoot, abs)
        const request = { oldString: params.old_string, newString: params.new_string, replaceAll: params.replace_all ?? false }
        const shown = yield* Ref.make(Option.none<EditPlan>())
        const plan = computeEdit(ctx, abs, request)
        const diffOf = (p: EditPlan) =>
          p.change === null
            ? createPatchSmart(path.basename(abs), p.currentText ?? "", p.newText, "Current", "Proposed")
            : createChangePatch(path.basename(abs), p.change, "Current", "Proposed")
        return {
          description: params.old_string === ""
            ? `Create ${rel}`
            : params.old_string === params.new_string
            ? `No file changes to ${rel}`
            : rel,
          locations: [location],
          defaultPermission: Effect.succeed("ask" as const),
          confirmation: Effect.gen(function*() {
            const p = yield* Effect.scoped(plan)
            yield* Ref.set(shown, Option.some(p))
            return {
              type: "edit" as const,
              title: `Confirm Edit: ${rel}${titleSuffix(p)}`,
              fileName: path.basename(abs),
              filePath: abs,
              fileDiff: diffOf(p),
              originalContent: p.currentText,
              newContent: p.newText,
              amendable: { param: "new_string" as const, proposal: params.new_string }
            }
          }),
          // One scope for the plan and its commit: the write lands where the plan read the file (no second walk).
          execute: ({ amendment }) =>
            Effect.scoped(Effect.gen(function*() {
              const planned = yield* plan
              const approved = yield* Ref.get(shown)
              yield* unchangedSinceApproval(approved, planned, { subject: `File ${abs}`, action: "edit", next: "redo the edit against the current content" })
              const fuzzyNeedsApproval = settings.fuzzyEditApproval === "ask"
              if (fuzzyNeedsApproval && planned.match !== null && planned.match.rung !== "exact" && Option.isNone(approved)) {
                return yield* new ExecutionDenied({
                  message: `old_string matched ${abs} only approximately (rung: ${planned.match.rung}), and this session ` +
                    `requires a person to approve approximate edits, which did not happen. Nothing was written. Retry ` +
                    `with old_string copied exactly from the file; the text there is:\n${planned.match.oldString}`,
                  display: "approximate edit needs approval; nothing written."
                })
              }
              // Another writer may land between this plan and the write: the edit is then planned again
              // on what it left (only when no person approved this exact diff).
              const replan = Option.isNone(approved) ? replanEdit(ctx, abs, request, planned, fuzzyNeedsApproval) : undefined
              const committed = yield* commitPlan(ctx, planned, { tool: "edit", guard: editGuard(ctx, abs), replan }).pipe(
                Effect.catchTag("DiskError", (e) =>
                  Effect.fail(writeFailure(abs, e, () =>
                    new FileWriteFailure({
                      message: `Error executing edit: ${e.message}. Nothing was written; retry once, and tell the user if it fails again.`,
                      display: `Error writing file: ${e.message}`
                    }))))
              )
              const p = committed.plan
              const first = p.isNewFile
                ? `Created new file: ${abs} with provided content.`
                : `The file: ${abs} has been updated.`
              const snippet = p.snippet === null
                ? undefined
                : `Showing lines ${p.snippet.startLine}-${p.snippet.endLine} of ${p.snippet.totalLines} from the edited file:\n\n---\n\n${p.snippet.content}`
              const llm = [first, approximateNote(p), snippet].filter((s): s is string => s !== undefined).join(" ")
              const fileDiff = diffOf(p)
              const data: EditData = {
                filePath: abs,
                writtenPath: committed.path,
                created: p.isNewFile,
                match: p.match === null ? null : {
                  rung: p.match.rung,
                  occurrences: p.match.occurrences,
                  startLine: p.match.startLine,
                  endLine: p.match.endLine,
                  replaced: p.match.oldString,
                  inserted: p.match.newString
                },
                encoding: p.format.encoding,
                bom: p.format.bom,
                lineEnding: p.format.lineEnding,
                // amended by the person: the model's lines are the proposal's, theirs what changed from it
                diffStat: amendment?.proposedContent !== undefined
                  ? getDiffStat(path.basename(abs), p.currentText ?? "", amendment.proposedContent, p.newText)
                  : p.change === null
                  ? getDiffStat(path.basename(abs), p.currentText ?? "", p.newText, p.newText)
                  : getChangeDiffStat(p.change),
                method: committed.method,
                ...(committed.historyId !== undefined ? { historyId: committed.historyId } : {})
              }
              return {
                llmContent: [text(llm)],
                display: { _tag: "FileDiff" as const, fileName: path.basename(abs), diff: fileDiff, originalContent: p.currentText, newContent: p.newText },
                data
              }
            }))
        }
      })
  })
})
