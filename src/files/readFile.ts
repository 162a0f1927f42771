/**
 * The `read_file` tool (reference §5): text in pages of lines, images/audio/video as media parts,
 * PDFs as embedded binary, SVG as text, notebooks as cells with outputs, and the "unchanged since
 * last read" placeholder. Every read is recorded in the session's read cache (with the lines shown,
 * for `readEvidence: "ranges"`).
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { CurrentOutputLimits } from "../output/index.js"
import { displayPath, FileReadCache, unescapePath, Workspace } from "../session/index.js"
import { defineTool, progress, type ProgressPart, type ToolResult } from "../tool/index.js"
import { loadFileToolsSettings } from "../write/index.js"
import { parsePages } from "./pdf.js"
import { type OpenedFile, openVerified, readFailure } from "./readHandle.js"
import { HEAD_BYTES, type ReadFileData, readByKind, type ReadOutcome, type ReadRecord } from "./readKinds.js"
import { fileKind, SNIFF_BYTES } from "./sniff.js"
import { ReadFileParams, readFileDeclaration } from "./readFile.decl.js"

const MIB = 1024 * 1024

/** The live progress of a large read (every `READ_PROGRESS_BYTES`). */
const readProgress = (rel: string, done: number, size: number): ProgressPart =>
  progress(`read_file ${rel}: ${Math.round(done / MIB)} MiB of ${Math.round(size / MIB)} MiB read`, { progress: done, total: size })

export { ReadFileParams } from "./readFile.decl.js"

const isNotebook = (file: string) => path.extname(unescapePath(file)).toLowerCase() === ".ipynb"

const validate = (p: typeof ReadFileParams.Type): string | undefined => {
  if (unescapePath(p.file_path) === "") return "The 'file_path' parameter must be non-empty."
  const pages = p.pages !== undefined && p.pages.trim() !== "" ? p.pages : undefined
  if (isNotebook(p.file_path)) {
    if (p.offset !== undefined || p.limit !== undefined) {
      return "offset and limit are not supported for Jupyter notebook (.ipynb) files. Notebooks are always read in full with structured cell output."
    }
    if (pages !== undefined) {
      return "pages is not supported for Jupyter notebook (.ipynb) files. Notebooks are always read in full with structured cell output."
    }
  }
  if (pages !== undefined) {
    if (path.extname(unescapePath(p.file_path)).toLowerCase() !== ".pdf") {
      return `pages applies only to PDF files, and ${p.file_path} is not one. Use offset and limit to page through other files.`
    }
    const parsed = parsePages(pages)
    if (parsed._tag === "Invalid") return parsed.message
  }
  return undefined
}

const describe = (rel: string, p: typeof ReadFileParams.Type): string => {
  if (p.pages !== undefined && p.pages.trim() !== "") return `${rel} (pages ${p.pages.trim()})`
  if (p.offset !== undefined && p.limit !== undefined) return `${rel} (lines ${p.offset + 1}-${p.offset + p.limit})`
  if (p.offset !== undefined) return `${rel} (from line ${p.offset + 1})`
  if (p.limit !== undefined) return `${rel} (first ${p.limit} lines)`
  return rel
}

const placeholder = (rel: string) =>
  `[File ${rel} unchanged since last read in this session — the full content was provided earlier in this ` +
  `conversation. If you cannot retrieve that prior content (e.g. after context compaction) or you suspect the ` +
  `file was modified outside the read/edit tools (shell command, MCP tool, another process), re-read with explicit ` +
  `offset/limit to fetch current content.]`

/** The file's first bytes (up to {@link HEAD_BYTES}), read from the open handle: sniffed for its kind, and reused by the text reader. */
const readHead = (abs: string, { handle, stats }: OpenedFile) =>
  Effect.tryPromise({
    try: async () => {
      const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, stats.size))
      const { bytesRead } = await handle.read(head, 0, head.length, 0)
      return head.subarray(0, bytesRead)
    },
    catch: readFailure(abs)
  })

/**
 * Runs a read in a scope of its own (the open file): closed when the read ends, or, for a streamed
 * page, when its stream ends.
 */
const handOver = <E, R>(read: Effect.Effect<ToolResult<ReadFileData>, E, R>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const result = yield* read.pipe(Scope.provide(scope), Effect.onExit((exit) =>
      Exit.isSuccess(exit) && exit.value.stream !== undefined ? Effect.void : Scope.close(scope, exit)
    ))
    if (result.stream === undefined) return result
    return { ...result, stream: Stream.ensuring(result.stream, Scope.close(scope, Exit.void)) }
  })

/** The `read_file` tool, bound to the session's workspace and read cache. @category constructors */
export const makeReadFile = Effect.gen(function*() {
  const workspace = yield* Workspace
  const cache = yield* FileReadCache
  const settings = yield* loadFileToolsSettings
  const readable = [...workspace.roots, ...workspace.extraReadableDirs]

  return defineTool({
    ...readFileDeclaration,
    resolvesOwnPaths: true,
    validate,
    invoke: (params) =>
      Effect.gen(function*() {
        // The path and the call's location from one resolution.
        const { path: abs, location } = yield* workspace.resolveLocated(unescapePath(params.file_path), { readable: true })
        const rel = displayPath(workspace.primaryRoot, abs)
        const pages = params.pages !== undefined && params.pages.trim() !== "" ? params.pages.trim() : undefined
        const full = params.offset === undefined && params.limit === undefined && pages === undefined
        return {
          description: describe(rel, params),
          locations: [location],
          defaultPermission: Effect.succeed("allow" as const),
          execute: ({ emit }) =>
            handOver(Effect.gen(function*() {
              // Opened once and verified: every read below is of this descriptor, never the path again.
              const opened = yield* openVerified(abs, readable)
              const stats = opened.stats
              if (full && !cache.disabled) {
                const status = yield* cache.check(stats, abs)
                const e = status.state === "fresh" ? status.entry : undefined
                if (
                  e !== undefined && e.lastReadAt !== undefined && e.lastReadWasFull && e.lastReadCacheable &&
                  e.readResidentInHistory && (e.lastWriteAt === undefined || e.lastReadAt > e.lastWriteAt)
                ) {
                  return {
                    llmContent: [{ type: "text" as const, text: placeholder(rel) }],
                    display: `Unchanged: ${rel}`,
                    data: { path: abs, kind: "unchanged" } satisfies ReadFileData
                  }
                }
              }
              const head = yield* readHead(abs, opened)
              const limits = yield* CurrentOutputLimits
              const outcome: ReadOutcome = yield* readByKind({
                abs,
                rel,
                stats,
                handle: opened.handle,
                head,
                kind: fileKind(abs, head.subarray(0, SNIFF_BYTES)),
                offset: params.offset ?? 0,
                limit: params.limit ?? (Number.isFinite(limits.truncateLines) ? limits.truncateLines : Number.MAX_SAFE_INTEGER),
                charLimit: Number.isFinite(limits.truncateChars) ? limits.truncateChars : Number.MAX_SAFE_INTEGER,
                pages: Option.fromNullishOr(pages),
                legacyEncoding: settings.legacyEncoding,
                lineNumbers: params.line_numbers === true,
                ...(emit ? { onProgress: (done: number, size: number) => emit(readProgress(rel, done, size)) } : {})
              })
              const record = (read: ReadRecord) =>
                cache.recordRead(abs, stats, {
                  full: full && !read.truncated,
                  ...(full && read.truncated ? { truncated: true } : {}),
                  cacheable: read.cacheable,
                  ...(read.lines !== undefined ? { lines: read.lines } : {})
                })
              if (outcome.stream !== undefined) {
                return { llmContent: outcome.parts, stream: outcome.stream(record), display: outcome.display, data: outcome.data }
              }
              yield* record(outcome)
              return { llmContent: outcome.parts, display: outcome.display, data: outcome.data }
            }))
        }
      })
  })
})
