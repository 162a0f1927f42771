/**
 * A cross-process lock on a file path, for read-modify-write of shared state (the task board of a
 * workspace, which several sessions and processes may change at once).
 *
 * The lock is a file created with `O_EXCL` holding `{ pid, host, process, since, token }`. A waiter
 * retries with jittered backoff until a timeout. A lock is stale when its holder is gone: on the
 * same host, its pid is not alive (or it is our pid but written by an earlier process that had it);
 * on another host, or when the content is unreadable, when the file is older than `staleMs`.
 * Breaking a stale lock is itself serialised by a second `O_EXCL` file (`<lock>.break`), and the
 * breaker removes the lock only if it still holds the very bytes it judged stale, so two waiters
 * never both break and a fresh lock is never removed by mistake. Release removes the lock only if
 * it still carries our token.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as os from "node:os"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import { createExclusive as createExclusiveWith, type DiskError, errnoCode, ifExists, readText, remove, stat } from "../disk/index.js"

/** Mode of every file the planning tools write (locks, the board, todo lists): owner only. @category constants */
export const PLAN_FILE_MODE = 0o600

const createExclusive = (path: string, data: string) => createExclusiveWith(path, data, PLAN_FILE_MODE)
const readTextIfExists = (path: string) => ifExists(readText(path))

/** How long a waiter tries before giving up (ms). @category constants */
export const LOCK_TIMEOUT_MS = 10_000

/** Age after which a lock whose holder cannot be checked is considered abandoned (ms). @category constants */
export const LOCK_STALE_MS = 30_000

/** Age after which an abandoned `<lock>.break` file is removed (ms). @category constants */
export const BREAK_STALE_MS = 5_000

/** Longest pause between two attempts (ms). @category constants */
export const LOCK_MAX_BACKOFF_MS = 50

/** Identifies this process incarnation, so a lock left by an earlier process with our pid is stale. */
const PROCESS_TOKEN = randomBytes(8).toString("hex")

/** Who holds a lock, as written in the lock file. @category models */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  /** The holder process's random incarnation token. */
  readonly process: string
  /** When it was taken (ms since the epoch). */
  readonly since: number
  /** This acquisition's random token. */
  readonly token: string
}

/** Options of {@link withFileLock}. @category models */
export interface LockOptions {
  readonly timeoutMs?: number | undefined
  readonly staleMs?: number | undefined
}

/** The lock stayed taken for the whole timeout. @category errors */
export class LockTimeout extends Data.TaggedError("LockTimeout")<{
  readonly path: string
  readonly holder: LockHolder | undefined
  readonly waitedMs: number
}> {}

const parseHolder = (raw: string): LockHolder | undefined => {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder>
    return typeof value.pid === "number" && typeof value.host === "string" && typeof value.token === "string" &&
        typeof value.process === "string" && typeof value.since === "number"
      ? (value as LockHolder)
      : undefined
  } catch {
    return undefined
  }
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). @category predicates */
export const isPidAlive = (pid: number): Effect.Effect<boolean> =>
  Effect.try({ try: () => process.kill(pid, 0), catch: (cause) => errnoCode(cause) }).pipe(
    Effect.as(true),
    Effect.catch((code) => Effect.succeed(code === "EPERM"))
  )

/**
 * Whether a lock is abandoned: its holder is known dead, or it is older than `staleMs` and its
 * holder cannot be checked (another host, unreadable content).
 *
 * @category predicates
 */
export const isStale = Effect.fnUntraced(function*(raw: string, ageMs: number, staleMs: number) {
  const holder = parseHolder(raw)
  if (holder !== undefined && holder.host === os.hostname()) {
    if (holder.pid === process.pid) return holder.process !== PROCESS_TOKEN
    return !(yield* isPidAlive(holder.pid))
  }
  return ageMs > staleMs
})

/** Removes the lock if it still holds `raw`, under the break lock. True when this call removed it. */
const breakStale = Effect.fnUntraced(function*(lockPath: string, raw: string) {
  const breakPath = `${lockPath}.break`
  const mine = JSON.stringify({ pid: process.pid, since: Date.now() })
  if (!(yield* createExclusive(breakPath, mine))) {
    const info = yield* ifExists(stat(breakPath))
    if (info !== undefined && Date.now() - info.mtimeMs > BREAK_STALE_MS) yield* remove(breakPath)
    return false
  }
  return yield* Effect.gen(function*() {
    const current = yield* readTextIfExists(lockPath)
    if (current !== raw) return false
    yield* remove(lockPath)
    yield* Effect.logWarning(`toolwright: removed an abandoned lock ${lockPath} (${raw || "empty"})`)
    return true
  }).pipe(Effect.ensuring(remove(breakPath).pipe(Effect.ignore)))
})

const acquire = Effect.fnUntraced(function*(lockPath: string, options: LockOptions) {
  const timeoutMs = options.timeoutMs ?? LOCK_TIMEOUT_MS
  const staleMs = options.staleMs ?? LOCK_STALE_MS
  const token = randomBytes(8).toString("hex")
  const start = yield* Clock.currentTimeMillis
  let backoff = 1
  while (true) {
    const holder: LockHolder = { pid: process.pid, host: os.hostname(), process: PROCESS_TOKEN, since: Date.now(), token }
    if (yield* createExclusive(lockPath, JSON.stringify(holder))) return token
    const raw = yield* readTextIfExists(lockPath)
    if (raw === undefined) continue // released between our attempt and our look
    const info = yield* ifExists(stat(lockPath))
    const ageMs = info === undefined ? 0 : Date.now() - info.mtimeMs
    if ((yield* isStale(raw, ageMs, staleMs)) && (yield* breakStale(lockPath, raw))) continue
    const waited = (yield* Clock.currentTimeMillis) - start
    if (waited >= timeoutMs) return yield* new LockTimeout({ path: lockPath, holder: parseHolder(raw), waitedMs: waited })
    yield* Effect.sleep(yield* Random.nextIntBetween(backoff, backoff * 2))
    backoff = Math.min(backoff * 2, LOCK_MAX_BACKOFF_MS)
  }
})

const release = (lockPath: string, token: string): Effect.Effect<void> =>
  readTextIfExists(lockPath).pipe(
    Effect.flatMap((raw) => (raw !== undefined && parseHolder(raw)?.token === token ? remove(lockPath) : Effect.void)),
    Effect.catch((error) => Effect.logWarning(`toolwright: could not release the lock ${lockPath}: ${error.code ?? "?"}`))
  )

/**
 * Runs `effect` while holding the lock at `lockPath` (created next to the state it guards). Fails
 * with {@link LockTimeout} when the lock stays taken, or with the file-system error that prevented
 * taking it. The lock is released however `effect` ends, interruption included.
 *
 * @category combinators
 */
export const withFileLock = <A, E, R>(
  lockPath: string,
  effect: Effect.Effect<A, E, R>,
  options: LockOptions = {}
): Effect.Effect<A, E | LockTimeout | DiskError, R> =>
  Effect.acquireUseRelease(acquire(lockPath, options), () => effect, (token) => release(lockPath, token))
