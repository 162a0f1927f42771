/**
 * A recognised `sed -i` (see `sed.ts`) is not run: it is simulated on the file's decoded text,
 * previewed as an edit (`Confirm Sed Edit: <path>`), and written through the same mutation path
 * as `edit` (write/mutation.ts): the prior-read check, the edit size cap (`file_too_large`), the
 * codec (legacy encodings, BOM and line endings kept), a before-image in the session's history,
 * the compare-and-swap atomic write under the file's lock, and one errno → error mapping. When it
 * cannot be simulated (a symlink, a file outside the workspace), the real command runs instead.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import { lstat } from "../../disk/index.js"
import { checkPriorRead, type PriorReadError } from "../../session/index.js"
import { createPatchSmart, encodeText, findUnrepresentable, type TextFormat } from "../../text/index.js"
import {
  type EditConfirmation,
  EditPreparationFailure,
  type FileChangedSinceRead,
  FileNotFound,
  FileTooLarge,
  FileWriteFailure,
  type InvocationSpec,
  isMissing,
  type NoSpaceLeft,
  type PermissionDenied,
  ReadContentFailure,
  type TargetIsDirectory,
  textResult,
  type ToolResult
} from "../../tool/index.js"
import {
  commitSnapshot,
  type FileSnapshot,
  loadSnapshot,
  type MutationContext,
  type PriorGuard,
  snapshotReadFailure,
  unchangedSinceApproval,
  writeFailure
} from "../../write/index.js"
import { applySedSubstitution, type SedEditInfo } from "./sed.js"

/** What a simulated sed edit returns to programs. @category models */
export interface SedEditData {
  readonly kind: "sed-edit"
  readonly filePath: string
  readonly changed: boolean
  readonly sed: SedEditInfo
  /** The history entry of the before-image (when the file changed and it was recorded). */
  readonly historyId?: string
}

/** Every error of the sed path. @category errors */
export type SedEditError =
  | PriorReadError
  | FileNotFound
  | FileTooLarge
  | ReadContentFailure
  | EditPreparationFailure
  | FileChangedSinceRead
  | PermissionDenied
  | NoSpaceLeft
  | TargetIsDirectory
  | FileWriteFailure

/** The simulated edit: the snapshot it was computed from, the texts and the bytes to write. */
interface SedPlan {
  readonly snapshot: FileSnapshot
  readonly oldText: string
  readonly newText: string
  readonly format: TextFormat
  readonly newBytes: Uint8Array
  readonly diff: string
}

/** What planning needs from the session. @category models */
export interface SedPlanInput {
  /** The command's `sed -i` as the call's analysis recognised it (null: not one). */
  readonly sed: SedEditInfo | null
  /** The command's working directory (absolute). */
  readonly cwd: string
  readonly description: string
  /** The session's mutation context (workspace, read cache, file-tool settings): edit's own. */
  readonly mutation: MutationContext
}

const readFailure = (file: string) => (reason: string) => {
  const message = `Error reading file for sed edit '${file}': ${reason}`
  return isMissing(reason)
    ? new FileNotFound({ message: `${message}. Check the path; nothing was changed.` })
    : new ReadContentFailure({ message: `${message}. Retry once; if it fails again, tell the user.` })
}

/** Loads the file through the mutation path and simulates the substitution on its decoded text. */
const simulate = (ctx: MutationContext, file: string, rel: string, info: SedEditInfo, guard: PriorGuard<PriorReadError>) =>
  Effect.gen(function*() {
    const snapshot = yield* Effect.scoped(loadSnapshot(ctx, file, guard)).pipe(
      Effect.catchTag("DiskError", (e) => Effect.fail(snapshotReadFailure(e, readFailure(file))))
    )
    if (snapshot.decoded === null) return yield* readFailure(file)("ENOENT")
    const { text: oldText, format } = snapshot.decoded
    const prepared = (message: string) => new EditPreparationFailure({ message: `Error simulating sed edit for file '${file}': ${message}` })
    const newText = yield* Effect.try({
      try: () => applySedSubstitution(oldText, info),
      catch: (cause) => prepared(cause instanceof Error ? cause.message : String(cause))
    })
    const lost = findUnrepresentable(newText, format.encoding)
    if (lost) return yield* prepared(`the result contains ${lost.codePoint}, which the file's encoding (${format.encoding}) cannot represent.`)
    const diff = createPatchSmart(rel, oldText, newText)
    return { snapshot, oldText, newText, format, newBytes: encodeText(newText, format), diff } satisfies SedPlan
  })

/**
 * The invocation of a simulated `sed -i`, or `undefined` when the command is not one (or cannot
 * be simulated) and must run for real.
 *
 * @category planning
 */
export const planSedEdit = Effect.fnUntraced(function*(input: SedPlanInput) {
  const info = input.sed
  if (!info) return undefined
  const ctx = input.mutation
  const requested = nodePath.resolve(input.cwd, info.filePath)
  const inside = yield* Effect.result(ctx.workspace.resolve(requested))
  if (inside._tag === "Failure") return undefined
  const file = inside.success
  const link = yield* Effect.option(lstat(file))
  if (Option.isSome(link) && link.value.isSymbolicLink()) return undefined
  const rel = nodePath.relative(ctx.workspace.primaryRoot, file) || nodePath.basename(file)
  const guard: PriorGuard<PriorReadError> = (expectExisting) =>
    checkPriorRead(ctx.cache, file, "editing", expectExisting === undefined ? {} : { expectExisting })
  // The plan a person approved, held for execute to compare with (none when nobody was asked).
  const shown = yield* Ref.make(Option.none<SedPlan>())
  const plan = simulate(ctx, file, rel, info, guard)

  const confirmation = Effect.gen(function*() {
    const sim = yield* plan
    yield* Ref.set(shown, Option.some(sim))
    return {
      type: "edit",
      title: `Confirm Sed Edit: ${rel}`,
      fileName: rel,
      filePath: file,
      fileDiff: sim.diff,
      originalContent: sim.oldText,
      newContent: sim.newText
    } satisfies EditConfirmation
  })

  const execute = () =>
    Effect.gen(function*() {
      const sim = yield* plan
      yield* unchangedSinceApproval(yield* Ref.get(shown), sim, {
        subject: `File ${file}`,
        action: "sed edit",
        next: "redo the sed edit against the current content"
      })
      const changed = sim.newText !== sim.oldText
      const base: SedEditData = { kind: "sed-edit", filePath: file, changed, sed: info }
      if (!changed) return textResult(`sed edit made no changes to ${file}.`, { data: base })
      const committed = yield* commitSnapshot(ctx, sim.snapshot, sim.newBytes, { tool: "run_shell_command", guard }).pipe(
        Effect.catchTag("DiskError", (e) =>
          Effect.fail(writeFailure(file, e, () =>
            new FileWriteFailure({
              message: `Error writing sed edit to '${file}': ${e.message}. Nothing was written; retry once, and tell the user if it fails again.`
            }))))
      )
      const data: SedEditData = committed.historyId === undefined ? base : { ...base, historyId: committed.historyId }
      return textResult(`sed edit applied to ${file}.`, {
        display: { _tag: "FileDiff", fileName: rel, diff: sim.diff, originalContent: sim.oldText, newContent: sim.newText },
        data,
        resultFilePaths: [file]
      }) as ToolResult<SedEditData>
    })

  const spec: InvocationSpec<SedEditData, SedEditError> = {
    description: input.description,
    locations: [file],
    defaultPermission: Effect.succeed("ask"),
    confirmation,
    concurrencySafe: false,
    execute
  }
  return spec
})
