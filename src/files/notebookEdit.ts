/**
 * The `notebook_edit` tool (reference §7): replaces, inserts or deletes one cell of a Jupyter
 * notebook. Only that cell's JSON changes; the rest of the file stays byte-identical. Notebooks
 * need a full (not truncated) read in this session first.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { stat } from "../disk/index.js"
import { createPatchSmart, encodeText, findUnrepresentable } from "../text/index.js"
import {
  defineTool,
  EditRequiresPriorRead,
  FileChangedSinceRead,
  FileNotFound,
  FileWriteFailure,
  InvalidToolParams,
  NotebookCellNotFound,
  NotebookEditFailure,
  NotebookInvalidJson,
  PriorReadVerificationFailed,
  TargetIsDirectory,
  TargetNotRegularFile,
  text
} from "../tool/index.js"
import { commitSnapshot, type FileSnapshot, loadSnapshot, makeMutationContext, unchangedSinceApproval, type MutationContext, type PriorGuard } from "../write/index.js"
import { snapshotReadFailure, writeFailure } from "../write/index.js"
import { applyNotebookEdit, displayIds, hasStableIds, type Notebook, parseNotebook } from "./notebook.js"
import { displayPath, realLocation, unescapePath } from "../session/index.js"
import { NotebookEditParams, notebookEditDeclaration } from "./notebookEdit.decl.js"

export { NotebookEditParams } from "./notebookEdit.decl.js"

/** The typed result of a notebook edit. @category models */
export interface NotebookEditData {
  readonly notebookPath: string
  readonly mode: "replace" | "insert" | "delete"
  readonly cellId: string
  /** The read cache entry was dropped (ids shifted): the notebook must be read again before the next edit. */
  readonly mustReread: boolean
  readonly historyId?: string
}

interface NotebookPlan {
  readonly snapshot: FileSnapshot
  readonly before: Notebook
  readonly currentText: string
  readonly newText: string
  readonly newBytes: Uint8Array
  readonly cellId: string
  readonly after: Notebook
}

type GuardError = EditRequiresPriorRead | FileChangedSinceRead | PriorReadVerificationFailed | TargetIsDirectory | TargetNotRegularFile

/** The notebook's stricter prior-read check: a full, fresh read (reference §7). @category enforcement */
export const notebookGuard = (ctx: Pick<MutationContext, "cache" | "workspace" | "sessionId" | "settings">, p: string): PriorGuard<GuardError> => (expectExisting) =>
  Effect.gen(function*() {
    if (ctx.cache.disabled) return
    const stats = yield* Effect.result(stat(p))
    if (stats._tag === "Failure") {
      if (stats.failure.code === "ENOENT") {
        if (expectExisting !== true) return
        return yield* new FileChangedSinceRead({
          message: `Notebook ${p} disappeared after it was read. Re-read it with the read_file tool — it may have been deleted or moved — before editing it.`,
          display: "notebook disappeared after last read; re-run read_file first."
        })
      }
      return yield* new PriorReadVerificationFailed({
        message: `Could not stat ${p} to verify prior read (${stats.failure.code ?? "unknown error"}). Re-read with the read_file tool, then retry editing it.`,
        display: `cannot verify prior read of ${p}; re-run read_file before editing this file.`
      })
    }
    if (stats.success.isDirectory()) {
      return yield* new TargetIsDirectory({ message: `${p} is a directory, not a notebook.`, display: "path is a directory." })
    }
    if (!stats.success.isFile()) {
      return yield* new TargetNotRegularFile({
        message: `${p} is a FIFO / socket / character or block device, not a notebook file. notebook_edit only edits regular .ipynb files.`,
        display: "special file; cannot edit via this tool."
      })
    }
    const status = yield* ctx.cache.check(stats.success, p)
    if (status.state === "stale") {
      return yield* new FileChangedSinceRead({
        message: `Notebook ${p} has been modified since you last read it. Re-read it with the read_file tool before editing it.`,
        display: "notebook changed since last read; re-run read_file first."
      })
    }
    if (status.state === "fresh" && status.entry.lastReadAt !== undefined) {
      if (status.entry.lastReadWasFull) return
      if (status.entry.lastReadTruncated !== true) {
        return yield* new EditRequiresPriorRead({
          message: `Notebook ${p} has only been seen in part in this session (a grep_search hit shows a few lines, not the cells). ` +
            `Read it with the read_file tool first, without offset or limit, then retry the edit.`,
          display: "only partly seen; read_file the notebook before editing cells."
        })
      }
      return yield* new EditRequiresPriorRead({
        message: `Notebook ${p} is too large for cell-level editing because its rendered output was truncated when read. Reduce the notebook output size or split the notebook before editing cells.`,
        display: "notebook read was truncated; cannot edit cells."
      })
    }
    return yield* new EditRequiresPriorRead({
      message: `Notebook ${p} has not been fully read in this session. Use the read_file tool first, without offset or limit, before editing cells.`,
      display: "read_file (full) required before editing this notebook."
    })
  })

const validate = (p: typeof NotebookEditParams.Type): string | undefined => {
  const file = unescapePath(p.notebook_path)
  if (file === "") return "The 'notebook_path' parameter must be non-empty."
  if (path.extname(file).toLowerCase() !== ".ipynb") return "File must be a Jupyter notebook (.ipynb). Use the edit tool for other file types."
  const mode = p.edit_mode ?? "replace"
  if (mode !== "insert" && (p.cell_id === undefined || p.cell_id === "")) return "cell_id is required for replace and delete operations."
  if (mode !== "delete" && p.new_source === undefined) return `new_source is required when edit_mode is "${mode}".`
  return undefined
}

/** The `notebook_edit` tool, bound to the session's workspace, read cache and history. @category constructors */
export const makeNotebookEdit = Effect.gen(function*() {
  const ctx = yield* makeMutationContext
  const { cache, workspace, settings } = ctx

  return defineTool({
    ...notebookEditDeclaration,
    resolvesOwnPaths: true,
    validate,
    invoke: (params) =>
      Effect.gen(function*() {
        const abs = yield* workspace.resolve(unescapePath(params.notebook_path))
        const rel = displayPath(workspace.primaryRoot, abs)
        const mode = params.edit_mode ?? "replace"
        const guard = notebookGuard(ctx, abs)
        const shown = yield* Ref.make(Option.none<NotebookPlan>())
        const plan = Effect.gen(function*() {
          const snapshot = yield* Effect.scoped(loadSnapshot(ctx, abs, guard)).pipe(
            Effect.catchTag("DiskError", (e) =>
              Effect.fail(snapshotReadFailure(e, (reason) =>
                new NotebookEditFailure({ message: `Error reading notebook ${abs} (${reason}). Retry once; if it fails again, tell the user.`, display: "Error reading notebook." }))))
          )
          if (snapshot.decoded === null) {
            return yield* new FileNotFound({
              message: `Notebook not found: ${abs}. notebook_edit edits existing notebooks; create one with write_file.`,
              display: "Notebook not found."
            })
          }
          const parsed = parseNotebook(snapshot.decoded.text)
          if ("error" in parsed) {
            return yield* new NotebookInvalidJson({
              message: `Notebook ${abs} cannot be edited: ${parsed.error}. Fix the file with write_file or the edit tool first.`,
              display: "Notebook is not valid JSON."
            })
          }
          const applied = applyNotebookEdit(snapshot.decoded.text, parsed.notebook, {
            mode,
            cellId: params.cell_id,
            newSource: params.new_source,
            cellType: params.cell_type
          })
          if (applied._tag === "Problem") {
            const problem = applied.problem
            if (problem._tag === "MissingCellId") {
              return yield* new InvalidToolParams({ message: "cell_id is required for replace and delete operations." })
            }
            if (problem._tag === "Ambiguous") {
              return yield* new InvalidToolParams({
                message: `Cell ID "${problem.id}" is ambiguous in the rendered notebook. Re-read the notebook and target a stable real cell ID before editing.`
              })
            }
            return yield* new NotebookCellNotFound({
              message: `Cell with ID "${problem.id}" not found in notebook. Cell ids in ${abs}: ${displayIds(parsed.notebook).join(", ") || "(no cells)"}.`,
              display: `Cell "${problem.id}" not found.`
            })
          }
          const format = snapshot.decoded.format
          const bad = findUnrepresentable(params.new_source ?? "", format.encoding)
          if (bad !== undefined) {
            return yield* new NotebookEditFailure({
              message: `new_source contains '${bad.char}' (${bad.codePoint}), which the notebook's encoding ${format.encoding.toUpperCase()} cannot represent.`,
              display: `'${bad.char}' cannot be written in ${format.encoding.toUpperCase()}.`
            })
          }
          return {
            snapshot,
            before: parsed.notebook,
            currentText: snapshot.decoded.text,
            newText: applied.result.text,
            newBytes: encodeText(applied.result.text, format),
            cellId: applied.result.cellId,
            after: applied.result.notebook
          } satisfies NotebookPlan
        })
        return {
          description: `${mode} cell ${params.cell_id ?? "(top)"} in ${rel}`,
          locations: [yield* realLocation(abs)],
          defaultPermission: Effect.succeed("ask" as const),
          confirmation: Effect.gen(function*() {
            const p = yield* plan
            yield* Ref.set(shown, Option.some(p))
            return {
              type: "edit" as const,
              title: `Confirm Notebook Edit: ${rel}`,
              fileName: path.basename(abs),
              filePath: abs,
              fileDiff: createPatchSmart(path.basename(abs), p.currentText, p.newText, "Current", "Proposed"),
              originalContent: p.currentText,
              newContent: p.newText
            }
          }),
          execute: () =>
            Effect.gen(function*() {
              const p = yield* plan
              const approved = yield* Ref.get(shown)
              yield* unchangedSinceApproval(approved, p, { subject: `Notebook ${abs}`, action: "edit", next: "redo the edit" })
              const committed = yield* commitSnapshot(ctx, p.snapshot, p.newBytes, { tool: "notebook_edit", guard, cacheable: false }).pipe(
                Effect.catchTag("DiskError", (e) =>
                  Effect.fail(writeFailure(abs, e, () =>
                    new FileWriteFailure({
                      message: `Error writing notebook: ${e.message}. Nothing was written; retry once, and tell the user if it fails again.`,
                      display: `Error writing notebook: ${e.message}`
                    }))))
              )
              const mustReread = mode !== "replace" && !(hasStableIds(p.before) && hasStableIds(p.after))
              if (mustReread) yield* cache.invalidate(committed.stats)
              const head = `Notebook ${abs} has been updated. ${mode} cell ${p.cellId}.`
              const llm = mode === "delete" ? head : `${head}\n\nUpdated source:\n\n---\n\n${params.new_source ?? ""}`
              const data: NotebookEditData = {
                notebookPath: abs,
                mode,
                cellId: p.cellId,
                mustReread,
                ...(committed.historyId !== undefined ? { historyId: committed.historyId } : {})
              }
              return {
                llmContent: [text(llm)],
                display: {
                  _tag: "FileDiff" as const,
                  fileName: path.basename(abs),
                  diff: createPatchSmart(path.basename(abs), p.currentText, p.newText, "Original", "Written"),
                  originalContent: p.currentText,
                  newContent: p.newText
                },
                resultFilePaths: [abs],
                data
              }
            })
        }
      })
  })
})
