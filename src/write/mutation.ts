/**
 * The one mutation path, shared by edit, write_file, notebook_edit and the shell's `sed -i`: load
 * the current bytes between two prior-read checks (size cap, then decoding with the codec: legacy
 * encodings, BOM, line endings), then commit new bytes — before-image to the history, the final
 * prior-read check, parent directories, the atomic compare-and-swap write, and the read-cache
 * record. OS failures map to tool errors through writeErrors.ts (tool/errno.ts underneath).
 *
 * Both the load and the write resolve the path without following a link out of the workspace
 * roots (text/beneath.ts). The write holds the file's lock from its check to its rename; when the
 * check finds that another writer got there first, a tool that can (edit) re-plans against the new
 * content under the same lock, and one that cannot (write_file, notebook_edit, sed) is refused with
 * `file_changed_since_read`: never two successes with one of them lost.
 *
 * A room of its own (`write/`, above `text/` and `session/`, below the tool rooms) because it
 * needs the session's services (workspace, read cache, session id) and the file tools' settings,
 * which `text/` (pure text and byte-level writes) does not know, and because tool rooms may not
 * import each other: the shell's sed reaches it here.
 *
 * @since 0.1.0
 */
import type { Stats } from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import {
  FileReadCache,
  type FileReadCacheService,
  Session,
  Workspace,
  type WorkspaceService
} from "../session/index.js"
import type { DiskError } from "../disk/index.js"
import {
  type DecodedText,
  decodeText,
  type FileHistory,
  type HeldFile,
  makeFileHistory,
  awaitWriters,
  type Location,
  readForChangeHeld,
  sessionHistoryDir,
  withWriteTarget,
  type WriteBytes
} from "../text/index.js"
import { FileChangedSinceRead, FileTooLarge, hasCode } from "../tool/index.js"
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
  /**
   * Where the file was found, open while the scope of {@link loadSnapshot} lasts: a commit in that
   * scope writes there instead of walking the path again (while the directory is still where it was).
   */
  readonly location?: Location | undefined
  /** The file read, open while that scope lasts: the commit's compare-and-swap reads through it (`expectedIn`). */
  readonly held?: HeldFile | undefined
}

/** A prior-read check at one of its three call sites (`expectExisting` as the reference passes it). @category models */
export type PriorGuard<E> = (expectExisting: boolean | undefined) => Effect.Effect<void, E>

/** What the mutating tools share in a session. @category models */
export interface MutationContext {
  readonly cache: FileReadCacheService
  readonly workspace: WorkspaceService
  readonly sessionId: string
  readonly settings: FileToolsSettings
  /** The session's file history (one per context, so what it learns of the directory is kept between calls). */
  readonly history: FileHistory
  /** Creates `<stateDir>/history` (mode 0700) until that has once succeeded; then does nothing. */
  readonly prepareHistory: Effect.Effect<void, { readonly message: string }>
}

/** `effect`, run until it first succeeds; afterwards nothing (a failure is retried by the next run). */
const untilSucceeded = <E>(effect: Effect.Effect<unknown, E>): Effect.Effect<void, E> => {
  let succeeded = false
  return Effect.suspend(() =>
    succeeded ? Effect.void : Effect.asVoid(Effect.tap(effect, () => Effect.sync(() => void (succeeded = true))))
  )
}

/** The mutation context of the current session's services. @category constructors */
export const makeMutationContext = Effect.gen(function*() {
  const workspace = yield* Workspace
  const cache = yield* FileReadCache
  const session = yield* Session
  const settings = yield* loadFileToolsSettings
  // The history directory under `<stateDir>/history` (what ensureStateSubdir("history") returns);
  // the history creates its own directory when a write finds it missing.
  const history = makeFileHistory({
    dir: sessionHistoryDir(path.join(workspace.stateDir, "history"), session.id),
    maxEntries: settings.historyMaxEntries,
    maxBytes: settings.historyMaxBytes,
    maxFileBytes: settings.historyMaxFileBytes
  })
  const prepareHistory = untilSucceeded(workspace.ensureStateSubdir("history"))
  return { cache, workspace, sessionId: session.id, settings, history, prepareHistory } satisfies MutationContext
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

const tooLarge = (abs: string, size: number, limit: number) =>
  new FileTooLarge({
    message: `File ${abs} is ${size} bytes, over the ${limit}-byte limit for changing files with this tool. ` +
      `Use a different mechanism (e.g. the shell tool with sed or a script) for a file this large.`,
    display: `File too large to change (${size} bytes).`
  })

/** A snapshot of bytes read under the write lock (for a re-plan), decoded like {@link loadSnapshot}'s. @category mutation */
export const snapshotOf = (
  ctx: MutationContext,
  abs: string,
  current: Option.Option<{ readonly bytes: Uint8Array; readonly stats: Stats }>
): Effect.Effect<FileSnapshot, FileTooLarge> => {
  if (Option.isNone(current)) return Effect.succeed({ abs, exists: false, bytes: null, decoded: null, stats: null })
  const { bytes, stats } = current.value
  if (bytes.length > ctx.settings.maxEditFileBytes) return Effect.fail(tooLarge(abs, bytes.length, ctx.settings.maxEditFileBytes))
  const decoded = decodeText(bytes, { legacyEncoding: ctx.settings.legacyEncoding })
  return Effect.succeed({ abs, exists: true, bytes, decoded, stats })
}

/**
 * Loads the file for a mutation: prior-read check before any content is read (so error codes
 * never leak content to a model that has not read the file), the bytes, the check again after
 * reading (TOCTOU), then decoding. The directory the file was found in stays open for the scope
 * (the snapshot's `location`), so that a commit in the same scope does not walk the path again.
 * @category mutation
 */
export const loadSnapshot = <E>(
  ctx: MutationContext,
  abs: string,
  guard: PriorGuard<E>
): Effect.Effect<FileSnapshot, E | DiskError | FileTooLarge | FileChangedSinceRead, Scope.Scope> =>
  Effect.gen(function*() {
    const check = settled(abs, guard)
    yield* check(undefined)
    const max = ctx.settings.maxEditFileBytes
    // The same walk as the write: a link swapped in to lead out of the workspace is not read through.
    const loaded = yield* readForChangeHeld(abs, ctx.workspace.roots, max)
    const found = loaded.found
    const location = Option.getOrUndefined(loaded.location)
    if (Option.isNone(found)) return { abs, exists: false, bytes: null, decoded: null, stats: null, location }
    const { stats, bytes: read, held } = found.value
    if (Option.isNone(read)) return yield* tooLarge(abs, stats.size, max)
    const bytes = read.value
    yield* check(true)
    const decoded = decodeText(bytes, { legacyEncoding: ctx.settings.legacyEncoding })
    return { abs, exists: true, bytes, decoded, stats, location, held }
  })

/**
 * A prior-read check that does not trip over this process's own write in flight: between another
 * call's rename and its read-cache record, the file is a new inode this session has no record of
 * yet, so a failed check looks again once the file's writers are done (a failure costs that wait,
 * a pass costs nothing).
 */
const settled = <E>(abs: string, guard: PriorGuard<E>): PriorGuard<E> => (expectExisting) =>
  guard(expectExisting).pipe(Effect.catch(() => awaitWriters(abs).pipe(Effect.andThen(guard(expectExisting)))))

/** Records the before-image; a failure is logged and reported, never fatal. */
const backup = (ctx: MutationContext, snapshot: FileSnapshot, tool: string) =>
  Effect.gen(function*() {
    yield* ctx.prepareHistory
    const entry = yield* ctx.history.record(snapshot.abs, snapshot.bytes, tool)
    return { historyId: entry.id }
  }).pipe(
    Effect.catch((e) =>
      Effect.logWarning(`toolwright: before-image of ${snapshot.abs} not recorded`, e).pipe(
        Effect.as({ historyError: e.message })
      )
    )
  )

/** A plan a mutation commits: the snapshot it was computed from and the bytes to write. @category models */
export interface CommitPlan {
  readonly snapshot: FileSnapshot
  readonly newBytes: WriteBytes
}

/** Options of {@link commitPlan}. @category models */
export interface CommitOptions<P, E, E2> {
  readonly tool: string
  readonly guard: PriorGuard<E>
  readonly cacheable?: boolean
  /**
   * Re-plans the change against the file as it is now (read under the write lock) when another
   * writer changed it after the plan was made; without it such a change is refused.
   */
  readonly replan?: ((current: FileSnapshot) => Effect.Effect<P, E2>) | undefined
}

/**
 * Commits a plan: the before-image (recorded while the temp file is written, finished before the
 * file changes), the final prior-read check, then — under the file's write lock — the
 * compare-and-swap write against the plan's snapshot (parent directories created
 * for a new file, inside the roots). When the file changed since the plan and `replan` is given,
 * the change is planned again on the current bytes and written under the same lock. Finally the
 * read-cache record (`cacheable` as the tool says). Returns the plan that was written.
 * @category mutation
 */
export const commitPlan = <P extends CommitPlan, E, E2 = never>(
  ctx: MutationContext,
  plan: P,
  options: CommitOptions<P, E, E2>
): Effect.Effect<CommitResult & { readonly plan: P }, E | E2 | FileTooLarge | DiskError | FileChangedSinceRead> =>
  Effect.gen(function*() {
    const abs = plan.snapshot.abs
    // The before-image is recorded while the new bytes are written and fsync'ed, and joined before
    // the file changes (the final check and the rename). The backup never fails: a failure to
    // record is reported as `historyError`, and the write goes on.
    const recording = yield* Effect.forkChild(backup(ctx, plan.snapshot, options.tool))
    const recorded = Fiber.join(recording)
    // Whatever ends the commit, the record is finished, not cut off half-written.
    yield* Effect.addFinalizer(() => Effect.asVoid(Fiber.await(recording)))
    yield* settled(abs, options.guard)(plan.snapshot.exists)
    const target = { within: ctx.workspace.roots, createParents: !plan.snapshot.exists, reuse: plan.snapshot.location }
    // The read-cache record is made under the lock too, so a writer that waited for it sees it.
    const cached = <X extends { readonly written: { readonly stats: Stats } }>(result: X) =>
      Effect.as(ctx.cache.recordWrite(abs, result.written.stats, { cacheable: options.cacheable ?? true }), result)
    const done = yield* withWriteTarget(abs, target, (file) =>
      Effect.gen(function*() {
        const first = yield* Effect.result(file.write(plan.newBytes, {
          expectedBytes: plan.snapshot.bytes,
          expectedIn: plan.snapshot.held,
          beforeReplace: Effect.asVoid(recorded)
        }))
        if (first._tag === "Success") return yield* cached({ written: first.success, plan, history: yield* recorded })
        const replan = options.replan
        if (!hasCode(first.failure, FileChangedSinceRead) || replan === undefined) return yield* first.failure
        const snapshot = yield* snapshotOf(ctx, abs, yield* file.current)
        const next = yield* replan(snapshot)
        const again = yield* backup(ctx, next.snapshot, options.tool)
        const written = yield* file.write(next.newBytes, { expectedBytes: next.snapshot.bytes })
        return yield* cached({ written, plan: next, history: again })
      }))
    const { written } = done
    return { path: written.path, bytes: written.bytes, method: written.method, stats: written.stats, ...done.history, plan: done.plan }
  }).pipe(Effect.scoped)

/**
 * Commits new bytes computed from `snapshot` ({@link commitPlan} without a re-plan: a change by
 * another writer is refused with `file_changed_since_read`).
 * @category mutation
 */
export const commitSnapshot = <E>(
  ctx: MutationContext,
  snapshot: FileSnapshot,
  bytes: WriteBytes,
  options: { readonly tool: string; readonly guard: PriorGuard<E>; readonly cacheable?: boolean }
): Effect.Effect<CommitResult, E | DiskError | FileChangedSinceRead> =>
  commitPlan<CommitPlan, E>(ctx, { snapshot, newBytes: bytes }, options).pipe(
    // Without a re-plan nothing is decoded again, so the size limit cannot be met here.
    Effect.catchTag("FileTooLarge", Effect.die)
  )
