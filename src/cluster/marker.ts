/**
 * A session's runner marker: which runner last hosted the session and which background shells
 * were running there (`<state-dir>/cluster/<session>.json`). A session that starts on another
 * runner reads it to tell the model which shells ended with the old runner.
 *
 * @since 0.3.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { diskError, ifExists, open, readText, writeFileAtomic } from "../disk/index.js"
import { ensureStateSubdir } from "../session/index.js"

/** A shell that was running. @category models */
export const RunningShell = Schema.Struct({ id: Schema.String, command: Schema.String })
/** @category models */
export type RunningShell = typeof RunningShell.Type

/** The marker file's content. @category models */
export const RunnerMarker = Schema.Struct({
  version: Schema.Literal(1),
  runner: Schema.String,
  updatedAt: Schema.Number,
  shells: Schema.Array(RunningShell)
})
/** @category models */
export type RunnerMarker = typeof RunnerMarker.Type

const decode = Schema.decodeUnknownEffect(Schema.fromJsonString(RunnerMarker))

const markerPath = (dir: string, sessionId: string) => path.join(dir, `${encodeURIComponent(sessionId)}.json`)

/** The session's marker, if one was written and is readable (an unreadable one is logged and ignored). @category accessors */
export const readMarker = (stateDir: string, sessionId: string): Effect.Effect<RunnerMarker | undefined> =>
  Effect.gen(function*() {
    const dir = yield* ensureStateSubdir(stateDir, "cluster")
    const text = yield* ifExists(readText(markerPath(dir, sessionId)))
    return text === undefined ? undefined : yield* decode(text)
  }).pipe(
    Effect.catch((e) => Effect.as(Effect.logWarning(`toolwright: the runner marker of "${sessionId}" is unreadable: ${e.message}`), undefined))
  )

/** Replaces the session's marker atomically (a failure is logged: the next runner then tells less). @category accessors */
export const writeMarker = (stateDir: string, sessionId: string, marker: RunnerMarker): Effect.Effect<void> =>
  Effect.gen(function*() {
    const dir = yield* ensureStateSubdir(stateDir, "cluster")
    yield* writeFileAtomic(markerPath(dir, sessionId), `${JSON.stringify(marker)}\n`, 0o600)
  }).pipe(
    Effect.catch((e) => Effect.logWarning(`toolwright: the runner marker of "${sessionId}" was not written: ${e.message}`))
  )

const inflightPath = (dir: string, sessionId: string) => path.join(dir, `${encodeURIComponent(sessionId)}.inflight`)

/**
 * The request ids of the batches the session was running when its runner went away (one per
 * line; written before a batch runs, rewritten when one completes), if any. A batch that arrives
 * again with one of those ids is a replay of a message that may already have taken effect.
 * @category accessors
 */
export const readInflight = (stateDir: string, sessionId: string): Effect.Effect<ReadonlySet<string>> =>
  Effect.gen(function*() {
    const dir = yield* ensureStateSubdir(stateDir, "cluster")
    const text = yield* ifExists(readText(inflightPath(dir, sessionId)))
    // Cleared is empty (a file of an earlier version was removed instead).
    return new Set((text ?? "").split("\n").filter((id) => id.length > 0))
  }).pipe(
    Effect.catch((e) => Effect.as(Effect.logWarning(`toolwright: the in-flight record of "${sessionId}" is unreadable: ${e.message}`), new Set<string>()))
  )

/** The session's in-flight record, open for the life of its entity. @category models */
export interface InflightRecord {
  /** Records the batches in flight (one request id per line; none clears it); a failure is logged. */
  readonly set: (requestIds: ReadonlySet<string>) => Effect.Effect<void>
}

/**
 * Opens the session's in-flight record (`<cluster dir>/<session>.inflight`) for the scope. Each
 * `set` is one or two synchronous calls on the open descriptor (`pwrite` + `ftruncate`, or
 * `ftruncate` to clear): a few µs into the page cache, where opening, writing, closing and removing
 * the file per batch took five thread-pool round trips. Not fsynced: it must survive the runner
 * process, which the page cache does; a machine crash may lose it.
 * @category constructors
 */
export const openInflight = (clusterDir: string, sessionId: string): Effect.Effect<InflightRecord, never, Scope.Scope> =>
  Effect.gen(function*() {
    const file = inflightPath(clusterDir, sessionId)
    // Read-write without truncating (what the last runner left is kept until the first batch) and
    // without O_APPEND (under which Linux ignores pwrite's position).
    const handle = yield* Effect.option(open(file, fs.constants.O_RDWR | fs.constants.O_CREAT, { mode: 0o600 }))
    const warn = (message: string) => Effect.logWarning(`toolwright: the in-flight record of "${sessionId}" was not written: ${message}`)
    if (Option.isNone(handle)) {
      return { set: () => warn(`${file} cannot be opened`) }
    }
    const fd = handle.value.fd
    const set = (requestIds: ReadonlySet<string>) =>
      Effect.try({
        try: () => {
          if (requestIds.size === 0) return fs.ftruncateSync(fd, 0)
          const bytes = Buffer.from([...requestIds].join("\n"), "utf8")
          fs.writeSync(fd, bytes, 0, bytes.length, 0)
          fs.ftruncateSync(fd, bytes.length)
        },
        catch: (cause) => diskError("write", file, cause)
      }).pipe(Effect.catch((e) => warn(e.message)))
    return { set }
  })

/** The state dir's `cluster` subdirectory, created if missing. @category accessors */
export const clusterDir = (stateDir: string) => ensureStateSubdir(stateDir, "cluster")
