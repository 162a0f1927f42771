/**
 * The write path every mutating file tool shares: load the current bytes between two prior-read
 * checks, then commit new bytes — before-image to the history, the final prior-read check, parent
 * directories, the atomic compare-and-swap write, and the read-cache record.
 *
 * @since 0.1.0
 */
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { errnoCode } from "../session/fsEffect.js"
import { FileReadCache, type FileReadCacheService } from "../session/readCache.js"
import { Session } from "../session/session.js"
import { Workspace, type WorkspaceService } from "../session/workspace.js"
import { atomicWrite, AtomicWriteError } from "../text/atomicWrite.js"
import { type DecodedText, decodeText } from "../text/codec.js"
import { readUpTo, type WriteBytes } from "../text/fileIo.js"
import { makeFileHistory, sessionHistoryDir } from "../text/history.js"
import { FileChangedSinceRead, FileTooLarge } from "../tool/errors.js"
import { type FileToolsSettings, loadFileToolsSettings } from "./config.js"

/** The file as a mutation found it. @category models */
export interface FileSnapshot {
  readonly abs: string
  readonly exists: boolean
  /** The bytes read (`null` when the file did not exist): the compare-and-swap key, compared byte for byte. */
  readonly bytes: Uint8Array | null
  /** The decoded text (LF when the file is uniformly CRLF) and its format; `null` when absent. */
  readonly decoded: DecodedText | null
  /** The stats taken before reading (`null` when the file did not exist). */
  readonly stats: Stats | null
}

/** Reading the current file failed with something other than "not found". @category errors */
export class SnapshotReadError extends Data.TaggedError("SnapshotReadError")<{
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** A prior-read check at one of its three call sites (`expectExisting` as the reference passes it). @category models */
export type PriorGuard<E> = (expectExisting: boolean | undefined) => Effect.Effect<void, E>

/** What the mutating tools share in a session. @category models */
export interface MutationContext {
  readonly cache: FileReadCacheService
  readonly workspace: WorkspaceService
  readonly sessionId: string
  readonly settings: FileToolsSettings
}

/** The mutation context of the current session's services. @category constructors */
export const makeMutationContext = Effect.gen(function*() {
  const workspace = yield* Workspace
  const cache = yield* FileReadCache
  const session = yield* Session
  const settings = yield* loadFileToolsSettings
  return { cache, workspace, sessionId: session.id, settings } satisfies MutationContext
})

/**
 * Fails with `file_changed_since_read` when the bytes a call was planned from differ from those of
 * the plan a person approved (the file changed while the confirmation was on screen).
 *
 * @category guards
 */
export const unchangedSinceApproval = (
  approved: Option.Option<{ readonly snapshot: FileSnapshot }>,
  current: { readonly snapshot: FileSnapshot },
  what: { readonly subject: string; readonly action: string; readonly next: string }
): Effect.Effect<void, FileChangedSinceRead> =>
  Option.isSome(approved) && !sameBytes(approved.value.snapshot.bytes, current.snapshot.bytes)
    ? Effect.fail(
      new FileChangedSinceRead({
        message: `${what.subject} changed on disk after this ${what.action} was shown for approval, so nothing was ` +
          `written. Re-read it with the read_file tool and ${what.next}.`,
        display: `${what.subject.split(" ")[0]!.toLowerCase()} changed after approval; nothing written.`
      })
    )
    : Effect.void

const sameBytes = (a: Uint8Array | null, b: Uint8Array | null): boolean =>
  a === null || b === null ? a === b : Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b)

/** What a commit did. @category models */
export interface CommitResult {
  /** The path really written (a symlink's target). */
  readonly path: string
  readonly bytes: number
  readonly method: "atomic" | "in-place"
  readonly stats: Stats
  /** The history entry of the before-image, when it was recorded. */
  readonly historyId?: string
  /** Why no before-image was recorded, when recording failed (the write still happened). */
  readonly historyError?: string
}

const readFailure = (abs: string) => (cause: unknown) =>
  new SnapshotReadError({ path: abs, code: errnoCode(cause), message: cause instanceof Error ? cause.message : String(cause) })

const tooLarge = (abs: string, size: number, limit: number) =>
  new FileTooLarge({
    message: `File ${abs} is ${size} bytes, over the ${limit}-byte limit for changing files with this tool. ` +
      `Use a different mechanism (e.g. the shell tool with sed or a script) for a file this large.`,
    display: `File too large to change (${size} bytes).`
  })

/**
 * A regular file's bytes (the size comes from the open file, so a file that changed since `stats`
 * is read whole); anything else is read as before. Nothing is hashed: the write compares bytes.
 */
const readContent = (abs: string, stats: Stats): Effect.Effect<Uint8Array, SnapshotReadError> =>
  stats.isFile()
    ? Effect.acquireUseRelease(
      Effect.tryPromise({ try: () => fsp.open(abs, "r"), catch: readFailure(abs) }),
      (handle) => Effect.tryPromise({ try: async () => readUpTo(handle, (await handle.stat()).size), catch: readFailure(abs) }),
      (handle) => Effect.promise(() => handle.close())
    )
    : Effect.tryPromise({ try: () => fsp.readFile(abs), catch: readFailure(abs) })

/**
 * Loads the file for a mutation: prior-read check before any content is read (so error codes
 * never leak content to a model that has not read the file), the bytes, the check again after
 * reading (TOCTOU), then decoding.
 * @category mutation
 */
export const loadSnapshot = <E>(
  ctx: MutationContext,
  abs: string,
  guard: PriorGuard<E>
): Effect.Effect<FileSnapshot, E | SnapshotReadError | FileTooLarge> =>
  Effect.gen(function*() {
    yield* guard(undefined)
    const stats = yield* Effect.tryPromise({ try: () => fsp.stat(abs), catch: readFailure(abs) }).pipe(
      Effect.map(Option.some),
      Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(Option.none<Stats>()))
    )
    const absent: FileSnapshot = { abs, exists: false, bytes: null, decoded: null, stats: null }
    if (Option.isNone(stats)) return absent
    if (stats.value.size > ctx.settings.maxEditFileBytes) return yield* tooLarge(abs, stats.value.size, ctx.settings.maxEditFileBytes)
    const read = yield* readContent(abs, stats.value).pipe(
      Effect.map(Option.some),
      Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(Option.none<Uint8Array>()))
    )
    if (Option.isNone(read)) return absent
    const bytes = read.value
    if (bytes.length > ctx.settings.maxEditFileBytes) return yield* tooLarge(abs, bytes.length, ctx.settings.maxEditFileBytes)
    yield* guard(true)
    const decoded = decodeText(bytes, { legacyEncoding: ctx.settings.legacyEncoding })
    return { abs, exists: true, bytes, decoded, stats: stats.value }
  })

/** Records the before-image; a failure is logged and reported, never fatal. */
const backup = (ctx: MutationContext, snapshot: FileSnapshot, tool: string) =>
  Effect.gen(function*() {
    const root = yield* ctx.workspace.ensureStateSubdir("history")
    const history = makeFileHistory({
      dir: sessionHistoryDir(root, ctx.sessionId),
      maxEntries: ctx.settings.historyMaxEntries,
      maxBytes: ctx.settings.historyMaxBytes,
      maxFileBytes: ctx.settings.historyMaxFileBytes
    })
    const entry = yield* history.record(snapshot.abs, snapshot.bytes, tool)
    return { historyId: entry.id }
  }).pipe(
    Effect.catch((e) =>
      Effect.logWarning(`toolwright: before-image of ${snapshot.abs} not recorded`, e).pipe(
        Effect.as({ historyError: e.message })
      )
    )
  )

const mkdirParent = (abs: string) =>
  Effect.tryPromise({
    try: () => fsp.mkdir(path.dirname(abs), { recursive: true }),
    catch: (cause) =>
      new AtomicWriteError({
        op: "mkdir",
        path: path.dirname(abs),
        code: errnoCode(cause),
        message: cause instanceof Error ? cause.message : String(cause)
      })
  })

/**
 * Commits new bytes computed from `snapshot`: before-image first, then the final prior-read check,
 * parent directories (new files only, after the check), the atomic compare-and-swap write against
 * the snapshot's bytes, and finally the read-cache record (`cacheable` as the tool says).
 * @category mutation
 */
export const commitSnapshot = <E>(
  ctx: MutationContext,
  snapshot: FileSnapshot,
  bytes: WriteBytes,
  options: { readonly tool: string; readonly guard: PriorGuard<E>; readonly cacheable?: boolean }
): Effect.Effect<CommitResult, E | AtomicWriteError | FileChangedSinceRead> =>
  Effect.gen(function*() {
    const history = yield* backup(ctx, snapshot, options.tool)
    yield* options.guard(snapshot.exists)
    if (!snapshot.exists) yield* mkdirParent(snapshot.abs)
    const written = yield* atomicWrite(snapshot.abs, bytes, { expectedBytes: snapshot.bytes })
    yield* ctx.cache.recordWrite(snapshot.abs, written.stats, { cacheable: options.cacheable ?? true })
    return { path: written.path, bytes: written.bytes, method: written.method, stats: written.stats, ...history }
  })
