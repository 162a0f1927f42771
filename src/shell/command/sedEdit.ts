/**
 * A recognised `sed -i` (see `sed.ts`) is not run: it is simulated on the file's decoded text,
 * previewed as an edit (`Confirm Sed Edit: <path>`), checked against the prior-read rule, and
 * written through the same atomic compare-and-swap write as `edit` (encoding, BOM and line
 * endings kept). When it cannot be simulated (a symlink, a file outside the workspace), the real
 * command runs instead.
 *
 * @since 0.1.0
 */
import * as fsp from "node:fs/promises"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { lstat, stat } from "../../session/fsEffect.js"
import { checkPriorRead, type PriorReadError } from "../../session/priorRead.js"
import type { FileReadCacheService } from "../../session/readCache.js"
import type { WorkspaceService } from "../../session/workspace.js"
import { atomicWrite, type AtomicWriteError, hashFile, sha256Hex } from "../../text/atomicWrite.js"
import { decodeText, encodeText, findUnrepresentable, type TextFormat } from "../../text/codec.js"
import { createPatchSmart } from "../../text/diff.js"
import {
  EditPreparationFailure,
  FileChangedSinceRead,
  FileNotFound,
  FileWriteFailure,
  type NoSpaceLeft,
  type PermissionDenied,
  ReadContentFailure,
  type TargetIsDirectory
} from "../../tool/errors.js"
import { directoryTarget, failureReason, isMissing, readRefusal, writeRefusal } from "../../tool/errno.js"
import type { EditConfirmation } from "../../tool/permission.js"
import { textResult, type ToolResult } from "../../tool/result.js"
import type { InvocationSpec } from "../../tool/tool.js"
import { applySedSubstitution, type SedEditInfo } from "./sed.js"

/** What a simulated sed edit returns to programs. @category models */
export interface SedEditData {
  readonly kind: "sed-edit"
  readonly filePath: string
  readonly changed: boolean
  readonly sed: SedEditInfo
}

/** Every error of the sed path. @category errors */
export type SedEditError =
  | PriorReadError
  | FileNotFound
  | ReadContentFailure
  | EditPreparationFailure
  | FileChangedSinceRead
  | PermissionDenied
  | NoSpaceLeft
  | TargetIsDirectory
  | FileWriteFailure

interface Simulation {
  readonly hash: string
  readonly oldText: string
  readonly newText: string
  readonly format: TextFormat
  readonly diff: string
}

const readFailure = (file: string, cause: unknown): FileNotFound | PermissionDenied | ReadContentFailure => {
  const message = `Error reading file for sed edit '${file}': ${failureReason(cause)}`
  if (isMissing(cause)) return new FileNotFound({ message: `${message}. Check the path; nothing was changed.` })
  return readRefusal(cause, file) ?? new ReadContentFailure({ message: `${message}. Retry once; if it fails again, tell the user.` })
}

const writeFailure = (file: string, e: AtomicWriteError): PermissionDenied | NoSpaceLeft | TargetIsDirectory | FileWriteFailure =>
  writeRefusal(e.code, file) ?? directoryTarget(e.code, file) ??
    new FileWriteFailure({ message: `Error writing sed edit to '${file}': ${e.message}. Nothing was written; retry once, and tell the user if it fails again.` })

const simulate = Effect.fnUntraced(function*(file: string, rel: string, info: SedEditInfo) {
  const bytes = yield* Effect.tryPromise({ try: () => fsp.readFile(file), catch: (cause) => readFailure(file, cause) })
  const decoded = decodeText(bytes)
  const prepared = (message: string) => new EditPreparationFailure({ message: `Error simulating sed edit for file '${file}': ${message}` })
  const newText = yield* Effect.try({
    try: () => applySedSubstitution(decoded.text, info),
    catch: (cause) => prepared(cause instanceof Error ? cause.message : String(cause))
  })
  const lost = findUnrepresentable(newText, decoded.format.encoding)
  if (lost) return yield* prepared(`the result contains ${lost.codePoint}, which the file's encoding (${decoded.format.encoding}) cannot represent.`)
  return { hash: sha256Hex(bytes), oldText: decoded.text, newText, format: decoded.format, diff: createPatchSmart(rel, decoded.text, newText) } satisfies Simulation
})

/** What planning needs from the session. @category models */
export interface SedPlanInput {
  /** The command's `sed -i` as the call's analysis recognised it (null: not one). */
  readonly sed: SedEditInfo | null
  /** The command's working directory (absolute). */
  readonly cwd: string
  readonly description: string
  readonly workspace: WorkspaceService
  readonly cache: FileReadCacheService
}

/**
 * The invocation of a simulated `sed -i`, or `undefined` when the command is not one (or cannot
 * be simulated) and must run for real.
 *
 * @category planning
 */
export const planSedEdit = Effect.fnUntraced(function*(input: SedPlanInput) {
  const info = input.sed
  if (!info) return undefined
  const requested = nodePath.resolve(input.cwd, info.filePath)
  const inside = yield* Effect.result(input.workspace.resolve(requested))
  if (inside._tag === "Failure") return undefined
  const file = inside.success
  const link = yield* Effect.option(lstat(file))
  if (Option.isSome(link) && link.value.isSymbolicLink()) return undefined
  const rel = nodePath.relative(input.workspace.primaryRoot, file) || nodePath.basename(file)
  let confirmed: Simulation | undefined
  const prepare = Effect.gen(function*() {
    yield* checkPriorRead(input.cache, file, "editing")
    return yield* simulate(file, rel, info)
  })

  const confirmation = Effect.gen(function*() {
    const sim = yield* prepare
    confirmed = sim
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

  const changedSinceConfirmation = new FileChangedSinceRead({
    message: `File changed since sed edit confirmation: ${file}. Please re-read the file and retry.`,
    display: "file changed after the sed edit was confirmed; nothing written."
  })

  const execute = () =>
    Effect.gen(function*() {
      if (confirmed !== undefined) {
        const now = yield* hashFile(file).pipe(Effect.catch(() => Effect.succeed(null)))
        if (now !== confirmed.hash) return yield* changedSinceConfirmation
      }
      const sim = yield* prepare
      if (confirmed !== undefined && confirmed.hash !== sim.hash) return yield* changedSinceConfirmation
      const data: SedEditData = { kind: "sed-edit", filePath: file, changed: sim.newText !== sim.oldText, sed: info }
      if (!data.changed) return textResult(`sed edit made no changes to ${file}.`, { data })
      // The same walk and lock as edit: no link followed out of the roots, no lost concurrent edit.
      yield* atomicWrite(file, encodeText(sim.newText, sim.format), { expectedHash: sim.hash, within: input.workspace.roots }).pipe(
        Effect.catchTag("AtomicWriteError", (e) => Effect.fail(writeFailure(file, e)))
      )
      const after = yield* Effect.option(stat(file))
      if (Option.isSome(after)) yield* input.cache.recordWrite(file, after.value)
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
