/**
 * Locks that serialize writes to one file, so a compare-and-swap's check and its rename are one
 * step for every toolwright writer.
 *
 * Inside a process: one semaphore per real path ({@link WriteLocks}, a reference whose default is
 * shared by every session of the process). Across processes: an advisory lock file next to the
 * target, `.<name>.tw-lock`, created with `O_EXCL` in the already-opened directory and holding the
 * owner's pid and start time. A lock whose owner is gone (no such pid, or a pid reused by a later
 * process) is taken over; a live owner is waited for, up to a bound, then the write fails with a
 * typed error. Writers that are not toolwright take no lock: the compare-and-swap still catches them.
 *
 * @since 0.2.0
 */
import * as fs from "node:fs"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import { createSmallFile, type DiskError, errnoCode, lstat, readText, removeFileIfInode } from "../disk/index.js"

/** How long a writer waits for another process's lock by default (ms). @category constants */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000

/** A lock file with no owner written yet is taken over after this long (its creator died mid-way). */
const EMPTY_LOCK_GRACE_MS = 5_000

/** The in-process locks: one semaphore per key, dropped when nobody holds or waits for it. @category models */
export interface WriteLocksService {
  readonly withLock: <A, E, R>(key: string, use: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** Waits until no writer of this process holds or waits for `key`'s lock (at once when none does). */
  readonly whenIdle: (key: string) => Effect.Effect<void>
  /** What this process writes into a lock file it takes: `<pid> <start time>\n` (read from /proc once). */
  readonly ownerLine: Effect.Effect<string>
}

const makeWriteLocks = (): WriteLocksService => {
  const entries = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  // This process's pid and start time never change: read once, not on every lock taken.
  let owner: string | undefined
  return {
    ownerLine: Effect.suspend(() =>
      owner !== undefined
        ? Effect.succeed(owner)
        : Effect.map(startTimeOf(process.pid), (start) => (owner = `${process.pid} ${Option.getOrElse(start, () => "")}\n`))
    ),
    withLock: (key, use) =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          const found = entries.get(key)
          const entry = found ?? { semaphore: Semaphore.makeUnsafe(1), users: 0 }
          entry.users += 1
          if (found === undefined) entries.set(key, entry)
          return entry
        }),
        (entry) => entry.semaphore.withPermits(1)(use),
        (entry) =>
          Effect.sync(() => {
            entry.users -= 1
            if (entry.users === 0) entries.delete(key)
          })
      ),
    whenIdle: (key) =>
      Effect.suspend(() => {
        const entry = entries.get(key)
        return entry === undefined ? Effect.void : entry.semaphore.withPermits(1)(Effect.void)
      })
  }
}

/**
 * The per-file write locks of this process. A reference: its default (created on first use) is
 * shared by every session in the process, which is what serializing one file needs; a test may
 * provide its own.
 * @category services
 */
export const WriteLocks = Context.Reference<WriteLocksService>("toolwright/text/WriteLocks", {
  defaultValue: makeWriteLocks
})

/** Waiting for another process's lock took longer than allowed. @category errors */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{
  readonly path: string
  readonly owner: string
  readonly waitedMs: number
}> {}

/** Creating or reading the lock file failed with something other than "it exists". @category errors */
export class LockFileError extends Data.TaggedError("LockFileError")<{
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** The start time of a process (clock ticks since boot, from `/proc/<pid>/stat`), if it can be read. */
const startTimeOf = (pid: number): Effect.Effect<Option.Option<string>> =>
  readText(`/proc/${pid}/stat`).pipe(
    // The command name (field 2) may hold spaces and parentheses: fields count from the last ')'.
    Effect.map((stat) => Option.fromNullishOr(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19])),
    Effect.orElseSucceed(() => Option.none<string>())
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return errnoCode(e) === "EPERM"
  }
}

/** Whether the owner written in a lock file is gone (dead, or its pid reused by a younger process). */
const ownerGone = Effect.fnUntraced(function*(content: string, ageMs: number) {
  const [pidText, start] = content.trim().split(" ")
  const pid = Number(pidText)
  if (!Number.isInteger(pid) || pid <= 0) return ageMs > EMPTY_LOCK_GRACE_MS
  if (!isAlive(pid)) return true
  if (start === undefined || start === "") return false
  const now = yield* startTimeOf(pid)
  return Option.isSome(now) && now.value !== start
})

const LOCK_FILE_FLAGS = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW

/** Removes the lock file only while it is the very file `ino` names; a failure leaves it (the next taker judges it). */
const removeIfSame = (lockPath: string, ino: number): Effect.Effect<void> => Effect.ignore(removeFileIfInode(lockPath, ino))

/** Options of {@link acquireLockFile}. @category models */
export interface LockFileOptions {
  /** Give up after this long (ms) while a live process holds the lock. */
  readonly timeoutMs?: number | undefined
}

/**
 * Takes the lock file at `lockPath` (an `O_EXCL` create; `lockPath` may be a descriptor-relative
 * path) for the scope, waiting while a live process holds it and taking it over from a dead one.
 * Fails with {@link LockTimeout} after the bound, {@link LockFileError} when it cannot be created
 * at all (e.g. a read-only directory: the caller decides whether to go on without it).
 * @category locking
 */
export const acquireLockFile = Effect.fnUntraced(function*(
  lockPath: string,
  shownPath: string,
  options: LockFileOptions = {}
): Effect.fn.Return<void, LockTimeout | LockFileError, Scope.Scope> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS
  const own = yield* (yield* WriteLocks).ownerLine
  const started = Date.now()
  let delay = 2
  let owner = ""
  for (;;) {
    // Created and handed to the scope's finalizer in one uninterruptible step: an interruption
    // between the two would leave a lock file nobody removes.
    const created = yield* Effect.uninterruptible(createSmallFile(lockPath, LOCK_FILE_FLAGS, 0o600, own).pipe(
      Effect.mapError((e: DiskError) => new LockFileError({ path: shownPath, code: e.code, message: e.message })),
      Effect.map((stats) => Option.some(stats.ino)),
      Effect.catchIf((e) => e.code === "EEXIST", () => Effect.succeed(Option.none<number>())),
      // Removed only while it is still ours (same inode): a lock taken over by mistake is not freed twice.
      Effect.tap((ino) => Option.isSome(ino) ? Effect.addFinalizer(() => removeIfSame(lockPath, ino.value)) : Effect.void)
    ))
    if (Option.isSome(created)) return
    const held = yield* Effect.all([readText(lockPath), lstat(lockPath)], { concurrency: 2 }).pipe(
      Effect.map(([content, stats]) => ({ content, ino: stats.ino, ageMs: Date.now() - stats.mtimeMs })),
      Effect.option
    )
    if (Option.isSome(held)) {
      owner = held.value.content.trim()
      if (yield* ownerGone(held.value.content, held.value.ageMs)) {
        // Take over only the very file judged stale: another taker may have replaced it meanwhile.
        yield* removeIfSame(lockPath, held.value.ino)
        continue
      }
    }
    const waited = Date.now() - started
    if (waited >= timeoutMs) return yield* new LockTimeout({ path: shownPath, owner, waitedMs: waited })
    yield* Effect.sleep(Math.min(delay, timeoutMs - waited))
    delay = Math.min(delay * 2, 50)
  }
})

/**
 * Waits for this process's writers of `file` (its real path, as the writers lock it) to finish:
 * a check that saw a write half done (renamed, not yet recorded as this session's) can then look
 * again. Never fails: a path that cannot be resolved has no writer to wait for.
 * @category locks
 */
export const awaitWriters = (file: string): Effect.Effect<void> =>
  Effect.gen(function*() {
    const locks = yield* WriteLocks
    const real = yield* Effect.promise(() => fs.promises.realpath(file).catch(() => file))
    yield* locks.whenIdle(real)
  })
