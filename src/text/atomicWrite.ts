/**
 * Atomic, compare-and-swap file writes.
 *
 * The new bytes go to a temp file in the target's own directory, are fsync'ed, get the target's
 * mode (and owner, where permitted), and are renamed over the target; the directory is fsync'ed
 * after. A reader, or a crash at any instant, sees the old file or the new one, never a mix.
 *
 * Compare-and-swap: the caller passes the bytes its new content was computed from, or their
 * sha256 (`null`: the file must not exist). Immediately before the rename the target is read again
 * and compared (or hashed); any difference — even an equal-size rewrite within the same mtime —
 * fails with `file_changed_since_read` and writes nothing.
 *
 * A symlink is followed: its final target is written and the link stays a link. Two cases write in
 * place instead (after the same check), as editors do: a file with several hard links (a rename
 * would split them) and a file whose directory refuses new entries while the file itself is writable.
 *
 * Check and use the same thing: given the workspace roots (`within`), the target is resolved by
 * the descriptor walk of beneath.ts (no link followed out of the roots, each parent opened with
 * `O_NOFOLLOW`), and every later step — the check, the temp file, the rename — names the file
 * relative to the opened directory, whose real path is checked to be inside a root once more just
 * before the rename. Where descriptor paths are missing (not Linux), paths are used and the
 * directory's real path is resolved again before the rename instead: a narrower window, not none.
 *
 * Serialized: the check and the rename run under the file's write lock (writeLock.ts: one per real
 * path in the process, and a lock file next to the target across processes), so two toolwright
 * writers never both pass the check before either renames. {@link withWriteTarget} holds the lock
 * around a caller's own steps, so a caller can re-read and re-plan without losing it.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import type { Stats } from "node:fs"
import type { FileHandle } from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import { access, call, callSteps, DiskError, lstat, open, removeFile, rename, useOpened } from "../disk/index.js"
import { FileChangedSinceRead } from "../tool/index.js"
import { byteLengthOf, hashContents, readUpTo, sameContents, sha256Hex, type WriteBytes, writeChunks } from "./fileIo.js"
import { acquireLockFile, WriteLocks } from "./writeLock.js"
import { locate, type LocateOptions, type Location, resolveWriteTarget } from "./writeLocation.js"

export type { Location }

export { resolveWriteTarget }

/** Options of {@link atomicWrite}. @category models */
export interface AtomicWriteOptions {
  /**
   * sha256 (hex) of the current bytes the new content was computed from; `null` means the file
   * must not exist; omitted means no check.
   */
  readonly expectedHash?: string | null | undefined
  /**
   * The current bytes the new content was computed from, compared byte for byte (cheaper than
   * `expectedHash` when the caller still holds them); `null` means the file must not exist. When
   * both are given, the bytes are used.
   */
  readonly expectedBytes?: Uint8Array | null | undefined
  /**
   * The file `expectedBytes` were read from, still open (`readForChangeHeld`, same scope): while
   * the name still names that very file (an `lstat`: same device and inode), the check reads
   * through this descriptor instead of opening the name again; otherwise it opens the name.
   */
  readonly expectedIn?: HeldFile | undefined
  /** Mode of a new file before the umask (default 0o666). Existing files keep theirs. */
  readonly newFileMode?: number | undefined
  /**
   * Runs once the new bytes are durable in the temp file, before the final check and the rename
   * (before an in-place write: first). A caller overlaps work that must be done before the file
   * changes (e.g. recording the before-image) with the write and fsync, and joins it here.
   */
  readonly beforeReplace?: Effect.Effect<void> | undefined
}

/** Options of {@link withWriteTarget} (and of {@link atomicWrite}). @category models */
export interface WriteTargetOptions extends LocateOptions {
  /** How long to wait for another process's lock on the file (ms, default 10 s). */
  readonly lockTimeoutMs?: number | undefined
  /** Test hook: runs after the target is resolved, before it is locked (e.g. to swap a link in). */
  readonly afterResolve?: Effect.Effect<void> | undefined
  /**
   * Where the read this write follows found the file ({@link readForChangeHeld}, same scope): used
   * instead of walking the path again while {@link Location.reusable} says it still holds.
   */
  readonly reuse?: Location | undefined
}

/** The current content of a write target. @category models */
export interface CurrentFile {
  readonly bytes: Uint8Array
  readonly stats: Stats
}

/** A resolved, locked file, for the span of {@link withWriteTarget}. @category models */
export interface WriteTarget {
  /** The real path that will be written. */
  readonly path: string
  /** Its bytes now (`None`: it does not exist). */
  readonly current: Effect.Effect<Option.Option<CurrentFile>, DiskError | FileChangedSinceRead>
  /** The compare-and-swap write (see {@link atomicWrite}). */
  readonly write: (bytes: WriteBytes, options?: AtomicWriteOptions) => Effect.Effect<AtomicWriteResult, DiskError | FileChangedSinceRead>
}

/** What {@link atomicWrite} did. @category models */
export interface AtomicWriteResult {
  /** The path really written (symlinks resolved). */
  readonly path: string
  readonly bytes: number
  /** `atomic` (temp + rename) or `in-place` (hard-linked file, or a directory refusing new entries). */
  readonly method: "atomic" | "in-place"
  /** The file's stats after the write. */
  readonly stats: Stats
}

/** Hex sha256 of `bytes`. @category hashing */
export { sha256Hex }


const { O_RDONLY, O_RDWR, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK } = fs.constants

const lstatOrNone = (file: string, shown: string, dirPath: string): Effect.Effect<Option.Option<Stats>, DiskError> =>
  lstat(file, shown, dirPath).pipe(
    Effect.map(Option.some),
    Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(Option.none<Stats>()))
  )

/** The sha256 of a file's current bytes (read in chunks), or `null` when it does not exist. @category hashing */
export const hashFile = (file: string): Effect.Effect<string | null, DiskError> =>
  Effect.scoped(Effect.flatMap(open(file, "r"), (handle) => call("read", file, (): Promise<string | null> => hashContents(handle)))).pipe(
    Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(null))
  )

/** A file read for a change, still open, and its identity when it was read. @category models */
export interface HeldFile {
  readonly handle: FileHandle
  readonly dev: number
  readonly ino: number
}

/** What the file must still hold for a write to go ahead: nothing (it must not exist), its bytes, or their hash. */
type Expected =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array; readonly held: HeldFile | undefined }
  | { readonly _tag: "Hash"; readonly hash: string }

const expectedOf = ({ expectedBytes, expectedHash, expectedIn }: AtomicWriteOptions): Expected | undefined => {
  const given = expectedBytes !== undefined ? expectedBytes : expectedHash
  if (given === undefined) return undefined
  if (given === null) return { _tag: "Absent" }
  return typeof given === "string" ? { _tag: "Hash", hash: given } : { _tag: "Bytes", bytes: given, held: expectedIn }
}

const changedUnderfoot = (target: string, what: string) =>
  new FileChangedSinceRead({
    message: `File ${target} ${what} after it was read for this change, so nothing was written. Re-read it ` +
      `with the read_file tool and redo the change against the current content.`,
    display: "file changed on disk before the write; nothing written."
  })

/** A link where the file was: someone swapped it in after the target was resolved. */
const linkSwappedIn = (target: string) =>
  changedUnderfoot(target, "was replaced by a symbolic link (not followed, as it may lead out of the workspace)")

/**
 * Opens the file read-only without following a final link (ELOOP: a link was swapped in, refused
 * as such; with `report`, left as the open's DiskError), runs `use` on it and closes it, all in one
 * step (one promise: the descriptor is closed by the promise itself, however the caller's fiber
 * ends). O_NONBLOCK: a FIFO swapped in is not waited on (it changes nothing for a regular file). A
 * failure is op `read` unless `use` names another.
 */
const withCheckHandle = <A>(
  file: string,
  shown: string,
  dirPath: string,
  use: (handle: FileHandle, at: (op: string) => void) => Promise<A>,
  links: "refuse" | "report" = "refuse"
): Effect.Effect<A, DiskError | FileChangedSinceRead> =>
  useOpened(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, use, { op: "read", shownAs: shown, dirPath }).pipe(
    Effect.catchIf((e) => links === "refuse" && isLinkAtOpen(e), () => Effect.fail(linkSwappedIn(shown)))
  )

/** The open with O_NOFOLLOW met a symbolic link. */
const isLinkAtOpen = (e: DiskError): boolean => e.code === "ELOOP" && e.op === "read"

/** Whether the file now holds what was expected: "same", "absent" (it does not exist) or "differs". */
const currentState = (
  loc: Location,
  expected: Expected
): Effect.Effect<"same" | "absent" | "differs", DiskError | FileChangedSinceRead> => {
  const shown = path.join(loc.dirPath, loc.name)
  const file = loc.at(loc.name)
  if (expected._tag === "Absent") {
    return Effect.map(lstatOrNone(file, shown, loc.dirPath), (found) => (Option.isNone(found) ? "same" : "differs"))
  }
  // Open, compare (or hash) and close in one step.
  const byName = withCheckHandle(file, shown, loc.dirPath, (handle) =>
    expected._tag === "Bytes" ? sameContents(handle, expected.bytes) : hashContents(handle).then((hash) => hash === expected.hash)).pipe(
    Effect.map((same): "same" | "differs" => (same ? "same" : "differs")),
    Effect.catchIf((e) => e._tag === "DiskError" && e.code === "ENOENT", () => Effect.succeed("absent" as const))
  )
  const want = expected._tag === "Bytes" ? expected : undefined
  const held = want?.held
  if (want === undefined || held === undefined || held.handle.fd < 0) return byName
  // The name still names the file the bytes were read from: its bytes now, through the descriptor
  // (an inode cannot be reused while it is open). Another file there is compared by name.
  return Effect.flatMap(lstatOrNone(file, shown, loc.dirPath), (found) => {
    if (Option.isNone(found)) return Effect.succeed("absent" as const)
    if (found.value.isSymbolicLink()) return Effect.fail(linkSwappedIn(shown))
    if (found.value.dev !== held.dev || found.value.ino !== held.ino) return byName
    return Effect.map(
      call("read", shown, () => sameContents(held.handle, want.bytes), loc.dirPath),
      (same): "same" | "differs" => (same ? "same" : "differs")
    )
  })
}

const verify = Effect.fnUntraced(function*(loc: Location, expected: Expected | undefined) {
  if (expected === undefined) return
  const state = yield* currentState(loc, expected)
  if (state === "same") return
  const what = expected._tag === "Absent"
    ? "was created by someone else"
    : state === "absent"
    ? "was deleted"
    : "was modified (its bytes no longer match the ones the change was computed from)"
  return yield* changedUnderfoot(path.join(loc.dirPath, loc.name), what)
})

const tempNameFor = (name: string): string => `.${name}.tw-${randomBytes(6).toString("hex")}.tmp`

const writeInPlace = Effect.fnUntraced(function*(
  loc: Location,
  bytes: WriteBytes,
  expected: Expected | undefined,
  beforeReplace: Effect.Effect<void>
) {
  const shown = path.join(loc.dirPath, loc.name)
  yield* beforeReplace
  yield* verify(loc, expected)
  yield* Effect.scoped(Effect.gen(function*() {
    const handle = yield* open(loc.at(loc.name), O_RDWR | O_NOFOLLOW, { shownAs: shown, dirPath: loc.dirPath }).pipe(
      Effect.catchIf((e) => e.code === "ELOOP", () => Effect.fail(linkSwappedIn(shown)))
    )
    yield* call("write", shown, () => writeChunks(handle, bytes), loc.dirPath)
    yield* call("truncate", shown, () => handle.truncate(byteLengthOf(bytes)), loc.dirPath)
    yield* call("fsync", shown, () => handle.sync(), loc.dirPath)
  }))
})

const writeTemp = Effect.fnUntraced(function*(
  loc: Location,
  temp: string,
  bytes: WriteBytes,
  existing: Option.Option<Stats>,
  mode: number
) {
  const shown = path.join(loc.dirPath, temp)
  yield* Effect.scoped(Effect.gen(function*() {
    const flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
    const handle = yield* open(loc.at(temp), flags, { mode: Option.isSome(existing) ? 0o600 : mode, shownAs: shown, dirPath: loc.dirPath })
    // Write, fsync, owner and mode in one step (the handle is closed with the scope, after any call in flight).
    yield* callSteps(shown, async (at) => {
      at("write")
      await writeChunks(handle, bytes)
      at("fsync")
      await handle.sync()
      if (Option.isSome(existing)) {
        const { mode: m, uid, gid } = existing.value
        // Owner first (chown may clear set-id bits; a refusal is ignored), then the exact mode.
        await handle.chown(uid, gid).catch(() => undefined)
        at("chmod")
        await handle.chmod(m & 0o7777)
      }
    }, loc.dirPath)
  }))
})

/** The compare-and-swap write at a resolved location (the caller holds the file's lock). */
const writeAt = Effect.fnUntraced(function*(loc: Location, bytes: WriteBytes, options: AtomicWriteOptions) {
  const target = path.join(loc.dirPath, loc.name)
  const file = loc.at(loc.name)
  const existing = yield* lstatOrNone(file, target, loc.dirPath)
  const length = byteLengthOf(bytes)
  const expected = expectedOf(options)
  const statAfter = lstat(file, target, loc.dirPath)
  // Joined once at most, whichever way the write goes (a refused rename falls back to in place).
  const beforeReplace = yield* Effect.cached(options.beforeReplace ?? Effect.void)
  const inPlace = Effect.gen(function*() {
    yield* writeInPlace(loc, bytes, expected, beforeReplace)
    return { path: target, bytes: length, method: "in-place", stats: yield* statAfter } as const
  })
  if (Option.isSome(existing)) {
    const stats = existing.value
    if (stats.isSymbolicLink()) return yield* linkSwappedIn(target)
    if (stats.isDirectory()) {
      return yield* new DiskError({ op: "open", path: target, code: "EISDIR", message: `${target} is a directory` })
    }
    if (!stats.isFile()) {
      return yield* new DiskError({ op: "open", path: target, code: undefined, message: `${target} is not a regular file` })
    }
    // Temp + rename needs only the directory to be writable; a read-only file must stay refused.
    yield* access(file, fs.constants.W_OK, target, loc.dirPath)
    if (stats.nlink > 1) return yield* inPlace
  }
  const temp = tempNameFor(loc.name)
  // After a successful rename the temp name is gone (nothing to remove: no call is made); on any
  // other ending (failure, interruption) the half-written temp file is removed.
  let renamed = false
  const written = yield* Effect.gen(function*() {
    // Checked before the temp file is created too: no byte lands in a directory moved out of the roots.
    yield* loc.recheck
    const created = yield* Effect.result(writeTemp(loc, temp, bytes, existing, options.newFileMode ?? 0o666))
    if (Result.isFailure(created)) return created.failure
    yield* beforeReplace
    yield* verify(loc, expected)
    yield* loc.recheck
    yield* rename(loc.at(temp), file, target, loc.dirPath)
    renamed = true
    return undefined
  }).pipe(Effect.ensuring(Effect.suspend(() => renamed ? Effect.void : removeFile(loc.at(temp)).pipe(Effect.ignore))))
  if (written !== undefined) {
    const refused = written.code === "EACCES" || written.code === "EPERM"
    if (Option.isSome(existing) && refused) return yield* inPlace
    return yield* written
  }
  yield* loc.syncDirectory
  return { path: target, bytes: length, method: "atomic", stats: yield* statAfter } as const
})

const notRegular = (shown: string) =>
  new DiskError({ op: "read", path: shown, code: undefined, message: `${shown} is not a regular file` })

/** The file's stats and, when it is at most `maxBytes` long, its bytes; `None` when it does not exist. */
/**
 * {@link readCurrent} whose descriptor stays open for the caller's scope (the compare-and-swap of a
 * write in that scope reads through it: {@link AtomicWriteOptions.expectedIn}).
 */
const readCurrentHeld = (
  loc: Location,
  maxBytes: number,
  links: "refuse" | "report"
): Effect.Effect<Option.Option<{ readonly stats: Stats; readonly bytes: Option.Option<Uint8Array>; readonly held: HeldFile }>, DiskError | FileChangedSinceRead, Scope.Scope> => {
  const shown = path.join(loc.dirPath, loc.name)
  return open(loc.at(loc.name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK, { op: "read", shownAs: shown, dirPath: loc.dirPath }).pipe(
    Effect.catchIf((e) => links === "refuse" && isLinkAtOpen(e), () => Effect.fail(linkSwappedIn(shown))),
    // fstat and read in one step.
    Effect.flatMap((handle) =>
      callSteps(shown, async (at) => {
        at("stat")
        const stats = await handle.stat()
        const held: HeldFile = { handle, dev: stats.dev, ino: stats.ino }
        if (!stats.isFile() || stats.size > maxBytes) return { stats, bytes: Option.none<Uint8Array>(), held }
        at("read")
        return { stats, bytes: Option.some<Uint8Array>(await readUpTo(handle, stats.size)), held }
      }, loc.dirPath)),
    Effect.flatMap((read) => (read.stats.isFile() ? Effect.succeed(read) : Effect.fail(notRegular(shown)))),
    Effect.map(Option.some),
    Effect.catchIf((e) => e._tag === "DiskError" && e.code === "ENOENT", () => Effect.succeed(Option.none()))
  )
}

const readCurrent = (
  loc: Location,
  maxBytes: number,
  links: "refuse" | "report" = "refuse"
): Effect.Effect<Option.Option<{ readonly stats: Stats; readonly bytes: Option.Option<Uint8Array> }>, DiskError | FileChangedSinceRead> => {
  const shown = path.join(loc.dirPath, loc.name)
  // Open, fstat, read and close in one step; a link met by the open is refused, or (`report`) left
  // as the open's DiskError (ELOOP) for a caller that then follows it.
  return withCheckHandle(loc.at(loc.name), shown, loc.dirPath, async (handle, at) => {
    at("stat")
    const stats = await handle.stat()
    if (!stats.isFile() || stats.size > maxBytes) return { stats, bytes: Option.none<Uint8Array>() }
    at("read")
    return { stats, bytes: Option.some<Uint8Array>(await readUpTo(handle, stats.size)) }
  }, links).pipe(
    Effect.flatMap((read) => (read.stats.isFile() ? Effect.succeed(read) : Effect.fail(notRegular(shown)))),
    Effect.map(Option.some),
    Effect.catchIf((e) => e._tag === "DiskError" && e.code === "ENOENT", () => Effect.succeed(Option.none()))
  )
}

const currentOf = (loc: Location): Effect.Effect<Option.Option<CurrentFile>, DiskError | FileChangedSinceRead> =>
  Effect.map(readCurrent(loc, Number.POSITIVE_INFINITY), Option.flatMap(({ bytes, stats }) => Option.map(bytes, (b) => ({ bytes: b, stats }))))

/**
 * Resolves `file` (without following links out of `options.within`), takes its write lock (in
 * the process and across processes) and runs `use` with it: every `current` read and `write` in
 * `use` sees no other toolwright writer in between. Fails with `DiskError` (op `lock`,
 * code `ETIMEDOUT`) when another process holds the lock past the bound.
 * @category writing
 */
export const withWriteTarget = <A, E, R>(
  file: string,
  options: WriteTargetOptions,
  use: (target: WriteTarget) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | DiskError | FileChangedSinceRead, Exclude<R, Scope.Scope>> =>
  Effect.scoped(Effect.gen(function*() {
    const loc = options.reuse !== undefined && options.reuse.reusable() ? options.reuse : yield* locate(file, options)
    if (options.afterResolve !== undefined) yield* options.afterResolve
    const realTarget = path.join(loc.dirPath, loc.name)
    const locks = yield* WriteLocks
    const locked = Effect.scoped(Effect.gen(function*() {
      yield* acquireLockFile(loc.at(`.${loc.name}.tw-lock`), realTarget, { timeoutMs: options.lockTimeoutMs }).pipe(
        Effect.catchTags({
          LockTimeout: (e) =>
            Effect.fail(
              new DiskError({
                op: "lock",
                path: realTarget,
                code: "ETIMEDOUT",
                message: `another process (${e.owner === "" ? "unknown" : `pid ${e.owner.split(" ")[0]}`}) has been ` +
                  `writing ${realTarget} for over ${Math.round(e.waitedMs / 1000)} s, so nothing was written. Wait a ` +
                  `moment, re-read the file and retry`
              })
            ),
          // A directory that refuses new entries gets no lock file; the in-place write still checks.
          LockFileError: (e) =>
            e.code === "EACCES" || e.code === "EPERM" || e.code === "EROFS"
              ? Effect.void
              : Effect.fail(new DiskError({ op: "lock", path: realTarget, code: e.code, message: e.message }))
        })
      )
      return yield* use({
        path: realTarget,
        current: currentOf(loc),
        write: (bytes, writeOptions = {}) => writeAt(loc, bytes, writeOptions)
      })
    }))
    return yield* locks.withLock(realTarget, locked)
  })) as Effect.Effect<A, E | DiskError | FileChangedSinceRead, Exclude<R, Scope.Scope>>

/**
 * Reads `file` for a change without following a link out of `within` (the same walk as the
 * write): its stats and, when at most `maxBytes` long, its bytes; `None` when it does not exist.
 * @category reading
 */
export const readForChange = (
  file: string,
  within: ReadonlyArray<string> | undefined,
  maxBytes: number
): Effect.Effect<Option.Option<{ readonly stats: Stats; readonly bytes: Option.Option<Uint8Array> }>, DiskError | FileChangedSinceRead> =>
  Effect.scoped(Effect.map(readForChangeHeld(file, within, maxBytes), (read) =>
    Option.map(read.found, ({ stats, bytes }) => ({ stats, bytes }))))

/** What {@link readForChangeHeld} read, and where. @category models */
export interface HeldRead {
  /** The file's stats and bytes, and the file itself, open for the scope (a write in it passes this as `expectedIn`). */
  readonly found: Option.Option<{ readonly stats: Stats; readonly bytes: Option.Option<Uint8Array>; readonly held: HeldFile }>
  /** Where the file was found (`None` when a parent directory is missing), open for the scope: a write in it passes this as `reuse`. */
  readonly location: Option.Option<Location>
}

/**
 * {@link readForChange} whose location stays open for the caller's scope, so that a write later in
 * that scope (`reuse`) need not walk the path again.
 * @category reading
 */
export const readForChangeHeld = (
  file: string,
  within: ReadonlyArray<string> | undefined,
  maxBytes: number
): Effect.Effect<HeldRead, DiskError | FileChangedSinceRead, Scope.Scope> => {
  const readAt = (finalUnchecked: boolean) =>
    Effect.flatMap(locate(file, { within, finalUnchecked }), (loc) =>
      Effect.map(readCurrentHeld(loc, maxBytes, finalUnchecked ? "report" : "refuse"), (found): HeldRead => ({ found, location: Option.some(loc) })))
  // The final name is opened with O_NOFOLLOW without an lstat first; when it is a link (the open
  // says ELOOP), the walk is made again with the check, which follows the link inside the roots.
  return readAt(true).pipe(
    Effect.catchIf((e) => e._tag === "DiskError" && isLinkAtOpen(e), () => readAt(false)),
    Effect.catchIf(
      (e) => e._tag === "DiskError" && e.code === "ENOENT" && e.op === "resolve",
      () => Effect.succeed<HeldRead>({ found: Option.none(), location: Option.none() })
    )
  )
}

/**
 * Writes `bytes` (one buffer, or chunks written in order) to `file` atomically, after checking
 * that the file still holds the bytes the change was computed from. Fails with {@link FileChangedSinceRead} (nothing written) when it
 * does not, and with {@link DiskError} (nothing written) when the OS refuses. The temp file
 * never outlives the call, whatever ends it (failure, interruption).
 * @category writing
 */
export const atomicWrite: (
  file: string,
  bytes: WriteBytes,
  options?: AtomicWriteOptions & WriteTargetOptions
) => Effect.Effect<AtomicWriteResult, DiskError | FileChangedSinceRead> = Effect.fn("atomicWrite")(
  function*(file: string, bytes: WriteBytes, options: AtomicWriteOptions & WriteTargetOptions = {}) {
    return yield* withWriteTarget(file, options, (target) => target.write(bytes, options))
  }
)
