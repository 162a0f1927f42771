/**
 * The `write_file` tool (reference §6): writes a whole file. An existing file keeps its encoding,
 * BOM and line endings; a new one is UTF-8 without BOM (configurable). The write is atomic and
 * compare-and-swap, like every mutation here.
 *
 * @since 0.1.0
 */
import { lstat as lstatOf } from "../disk/index.js"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { checkPriorRead, displayPath, type PriorReadError, realLocation, unescapePath } from "../session/index.js"
import {
  createPatchSmart,
  describeFormat,
  encodeText,
  findUnrepresentable,
  getDiffStat,
  NEW_FILE_FORMAT,
  type TextFormat,
  toLf
} from "../text/index.js"
import {
  defineTool,
  type EditRequiresPriorRead,
  type FileTooLarge,
  FileWriteFailure,
  InvalidToolParams,
  isMissing,
  type PermissionDenied,
  text
} from "../tool/index.js"
import { countTextLines, requireSeenWholeFile } from "./evidence.js"
import { commitSnapshot, type FileSnapshot, loadSnapshot, makeMutationContext, unchangedSinceApproval, type MutationContext, type PriorGuard } from "../write/index.js"
import { snapshotReadFailure, writeFailure } from "../write/index.js"
import { WriteFileParams, writeFileDeclaration } from "./writeFile.decl.js"

export { WriteFileParams } from "./writeFile.decl.js"

/** The typed result of a successful write. @category models */
export interface WriteFileData {
  readonly filePath: string
  readonly writtenPath: string
  readonly created: boolean
  readonly bytes: number
  readonly encoding: string
  readonly bom: boolean
  readonly lineEnding: string
  readonly diffStat: ReturnType<typeof getDiffStat>
  readonly method: "atomic" | "in-place"
  readonly historyId?: string
}

interface WritePlan {
  readonly snapshot: FileSnapshot
  readonly currentText: string | null
  readonly newText: string
  readonly newBytes: Uint8Array
  readonly format: TextFormat
}

const writeGuard = (ctx: MutationContext, abs: string): PriorGuard<PriorReadError> => (expectExisting) =>
  checkPriorRead(ctx.cache, abs, "overwriting", expectExisting === undefined ? {} : { expectExisting })

const computeWrite = (
  ctx: MutationContext,
  abs: string,
  content: string
): Effect.Effect<WritePlan, PriorReadError | EditRequiresPriorRead | FileTooLarge | PermissionDenied | FileWriteFailure, Scope.Scope> =>
  Effect.gen(function*() {
    const snapshot = yield* loadSnapshot(ctx, abs, writeGuard(ctx, abs)).pipe(
      Effect.catchTag("DiskError", (e) =>
        Effect.fail(snapshotReadFailure(e, (reason) => {
          const message = `Error checking existing file '${abs}' (${reason}). Nothing was written; retry once, and tell the user if it fails again.`
          return new FileWriteFailure({ message, display: message })
        })))
    )
    if (snapshot.decoded === null) {
      const format = { ...NEW_FILE_FORMAT, bom: ctx.settings.newFileEncoding === "utf-8-bom" }
      return { snapshot, currentText: null, newText: content, newBytes: encodeText(content, format), format }
    }
    const { format } = snapshot.decoded
    if (snapshot.stats !== null) {
      yield* requireSeenWholeFile(ctx.cache, abs, snapshot.stats, countTextLines(snapshot.decoded.text))
    }
    const newText = format.lineEnding === "crlf" ? toLf(content) : content
    const bad = findUnrepresentable(newText, format.encoding)
    if (bad !== undefined) {
      const name = format.encoding.toUpperCase()
      return yield* new FileWriteFailure({
        message: `Error writing to file '${abs}': content contains '${bad.char}' (${bad.codePoint}), which the file's ` +
          `encoding ${name} cannot represent; nothing was written. Use only characters ${name} can encode.`,
        display: `'${bad.char}' cannot be written in ${name}.`
      })
    }
    return { snapshot, currentText: snapshot.decoded.text, newText, newBytes: encodeText(newText, format), format }
  })

/** The `write_file` tool, bound to the session's workspace, read cache and history. @category constructors */
export const makeWriteFile = Effect.gen(function*() {
  const ctx = yield* makeMutationContext
  const { cache, workspace, settings } = ctx

  return defineTool({
    ...writeFileDeclaration,
    resolvesOwnPaths: true,
    toAutoClassifierInput: (p) =>
      JSON.stringify({
        file_path: p.file_path,
        byte_count: Buffer.byteLength(p.content, "utf8"),
        content_preview: p.content.slice(0, 300),
        content_truncated: p.content.length > 300
      }),
    validate: (p) => (unescapePath(p.file_path) === "" ? `Missing or empty "file_path"` : undefined),
    invoke: (params) =>
      Effect.gen(function*() {
        const abs = yield* workspace.resolve(unescapePath(params.file_path))
        const lstat = yield* lstatOf(abs).pipe(
          Effect.map(Option.some),
          Effect.catch((e) =>
            isMissing(e)
              ? Effect.succeed(Option.none())
              : Effect.fail(new InvalidToolParams({
                message: `Error accessing path properties for validation: ${abs}. Reason: ${e.message}`
              })))
        )
        if (Option.isSome(lstat) && lstat.value.isDirectory()) {
          return yield* new InvalidToolParams({ message: `Path is a directory, not a file: ${abs}` })
        }
        const rel = displayPath(workspace.primaryRoot, abs)
        const shown = yield* Ref.make(Option.none<WritePlan>())
        const plan = computeWrite(ctx, abs, params.content)
        const diffOf = (p: WritePlan, from: string, to: string) =>
          createPatchSmart(path.basename(abs), p.currentText ?? "", p.newText, from, to)
        return {
          description: `Writing to ${rel}`,
          locations: [yield* realLocation(abs)],
          defaultPermission: Effect.succeed("ask" as const),
          confirmation: Effect.gen(function*() {
            const p = yield* Effect.scoped(plan)
            yield* Ref.set(shown, Option.some(p))
            return {
              type: "edit" as const,
              title: `Confirm Write: ${rel}`,
              fileName: path.basename(abs),
              filePath: abs,
              fileDiff: diffOf(p, "Current", "Proposed"),
              originalContent: p.currentText,
              newContent: p.newText,
              amendable: { param: "content" as const, proposal: params.content }
            }
          }),
          // One scope for the plan and its commit: the write lands where the plan read the file (no second walk).
          execute: ({ amendment }) =>
            Effect.scoped(Effect.gen(function*() {
              const p = yield* plan
              const approved = yield* Ref.get(shown)
              yield* unchangedSinceApproval(approved, p, { subject: `File ${abs}`, action: "write", next: "decide again" })
              const committed = yield* commitSnapshot(ctx, p.snapshot, p.newBytes, { tool: "write_file", guard: writeGuard(ctx, abs) }).pipe(
                Effect.catchTag("DiskError", (e) => Effect.fail(writeFailure(abs, e)))
              )
              const created = !p.snapshot.exists
              const kept = !created && describeFormat(p.format) !== "UTF-8"
                ? ` The file keeps its ${describeFormat(p.format)} format.`
                : ""
              const llm = created
                ? `Successfully created and wrote to new file: ${abs}.`
                : `Successfully overwrote file: ${abs}.${kept}`
              const data: WriteFileData = {
                filePath: abs,
                writtenPath: committed.path,
                created,
                bytes: committed.bytes,
                encoding: p.format.encoding,
                bom: p.format.bom,
                lineEnding: p.format.lineEnding,
                diffStat: getDiffStat(path.basename(abs), p.currentText ?? "", amendment?.proposedContent ?? p.newText, p.newText),
                method: committed.method,
                ...(committed.historyId !== undefined ? { historyId: committed.historyId } : {})
              }
              return {
                llmContent: [text(llm)],
                display: {
                  _tag: "FileDiff" as const,
                  fileName: path.basename(abs),
                  diff: diffOf(p, "Original", "Written"),
                  originalContent: p.currentText,
                  newContent: p.newText
                },
                data
              }
            }))
        }
      })
  })
})
