/**
 * Named sessions that outlive a process: what a session knows (today: its read evidence) saved
 * under a stable name, so `toolwright call --session NAME` can read a file in one process and edit
 * it in the next.
 *
 * The store keeps {@link SessionRecord}s. Evidence is kept so that it means the same file on another
 * process or machine: workspace root + relative path + size + mtime + SHA-256 of the bytes seen,
 * never an inode number. On resume every entry is checked against the file as it is now (same size,
 * mtime and content hash); evidence of a file that changed is dropped, so the model must read it
 * again, exactly as within one process.
 *
 * Two stores ship: {@link makeMemorySessionStore} (one process: a library embedder that closes and
 * reopens sessions) and {@link makeFileSessionStore} (one JSON file per session under the state
 * directory, written atomically; what the CLI uses).
 *
 * @since 0.2.0
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { describeDiskError, type DiskError, ifExists, readText, writeFileAtomic } from "../disk/index.js"
import { ensureStateSubdir } from "./stateDir.js"

/** A session name: 1–64 letters, digits, `.`, `_` or `-`, not starting with a dot. @category constants */
export const SESSION_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/

/** How long a named session may go unused before resuming it is refused (7 days). @category constants */
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 60 * 60 * 1000

/** The environment variable that overrides {@link DEFAULT_SESSION_TTL_MS}, in hours. @category constants */
export const SESSION_TTL_ENV = "TOOLWRIGHT_SESSION_TTL_HOURS"

/** The environment variable naming the PostgreSQL URL of `--session-store sql`. @category constants */
export const SQL_URL_ENV = "TOOLWRIGHT_SQL_URL"

/** One piece of read evidence, portable across processes. @category models */
export const StoredEvidence = Schema.Struct({
  /** Index into the record's `roots`. */
  root: Schema.Int,
  /** Path relative to that root, `/`-separated. */
  path: Schema.String,
  size: Schema.Number,
  mtimeMs: Schema.Number,
  /** SHA-256 (hex) of the bytes the evidence is for. */
  sha256: Schema.String,
  full: Schema.Boolean,
  cacheable: Schema.Boolean,
  resident: Schema.Boolean,
  /** With `readEvidence: "ranges"`: the line ranges seen. */
  seenLines: Schema.optional(Schema.Array(Schema.Struct({ start: Schema.Int, end: Schema.Number }))),
  /** When the evidence was recorded (ms since the epoch): the newer of two records of one file wins. */
  at: Schema.Number
})
/** @category models */
export type StoredEvidence = typeof StoredEvidence.Type

/**
 * One saved output of the session (the output store's index entry): the bytes stay in their file
 * under the state directory; the record says where and what they are. @category models
 */
export const StoredOutput = Schema.Struct({
  /** The output's id (its resource `toolwright://output/<id>`; the file is `<id>.output`). */
  id: Schema.String,
  /** The tool whose output it is. */
  tool: Schema.String,
  /** Size in bytes (UTF-8). */
  bytes: Schema.Number,
  /** SHA-256 (hex) of the content. */
  sha256: Schema.String,
  lines: Schema.Number,
  /** The file, relative to the state directory, `/`-separated (`outputs/<session>/<id>.output`). */
  path: Schema.String,
  /** When it was saved (ms since the epoch). */
  createdAt: Schema.Number
})
/** @category models */
export type StoredOutput = typeof StoredOutput.Type

/** At most this many saved outputs (the most recent) are listed in a record. @category constants */
export const MAX_CARRIED_OUTPUTS = 1_000

/** What the store keeps of one session. @category models */
export const SessionRecord = Schema.Struct({
  version: Schema.Literal(1),
  name: Schema.String,
  createdAt: Schema.Number,
  lastUsedAt: Schema.Number,
  /** Real paths of the workspace roots the evidence is relative to. */
  roots: Schema.Array(Schema.String),
  evidence: Schema.Array(StoredEvidence),
  /** Deferred tools the session had revealed (`tool_search`); revealed again on resume. */
  revealed: Schema.optionalKey(Schema.Array(Schema.String)),
  /** Reminders still waiting for the model when the session closed; queued again on resume. */
  reminders: Schema.optionalKey(Schema.Array(Schema.String)),
  /** The session's saved outputs; readable again on resume while their files are there. */
  outputs: Schema.optionalKey(Schema.Array(StoredOutput))
})
/** @category models */
export type SessionRecord = typeof SessionRecord.Type

/** `--resume` (or `resume: true`) named a session the store does not hold. @category errors */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "session_not_found"
}

/** The named session was last used longer ago than the time to live allows. @category errors */
export class SessionExpired extends Schema.TaggedError<SessionExpired>()("SessionExpired", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "session_expired"
}

/** The store could not be read or written, or holds a record it cannot decode. @category errors */
export class SessionStoreFailed extends Schema.TaggedError<SessionStoreFailed>()("SessionStoreFailed", {
  message: Schema.String
}) {
  /** The wire code. */
  readonly code = "session_store_failed"
}

/** Where named sessions are kept. @category models */
export interface SessionStoreService {
  /** The record of `name`, if the store holds one. */
  readonly load: (name: string) => Effect.Effect<Option.Option<SessionRecord>, SessionStoreFailed>
  /**
   * Saves `record`, merged with what another process may have saved meanwhile under the same name
   * (per file the newer evidence wins; evidence `dropped` by this process stays dropped).
   */
  readonly save: (
    record: SessionRecord,
    dropped: ReadonlySet<string>
  ) => Effect.Effect<void, SessionStoreFailed>
}

/** The key of a piece of evidence within a record: `root:path`. @category constructors */
export const evidenceKey = (e: Pick<StoredEvidence, "root" | "path">): string => `${e.root}:${e.path}`

/** The key of a saved output in a save's `dropped` set: `output:<id>` (evidence keys start with a number). @category constructors */
export const outputKey = (id: string): string => `output:${id}`

/**
 * Merges `incoming` into `existing` (same name): roots are re-indexed onto the incoming list, per
 * file the newer evidence wins, and keys in `dropped` are removed; revealed tools are the union,
 * waiting reminders the incoming ones (they were handed over when its session started), saved
 * outputs the union by id (the most recent {@link MAX_CARRIED_OUTPUTS}). A pure function.
 * @category combinators
 */
export const mergeRecords = (
  existing: SessionRecord | undefined,
  incoming: SessionRecord,
  dropped: ReadonlySet<string>
): SessionRecord => {
  if (existing === undefined) return incoming
  const roots = [...incoming.roots]
  const byKey = new Map<string, StoredEvidence>()
  for (const e of existing.evidence) {
    const rootPath = existing.roots[e.root]
    if (rootPath === undefined) continue
    let root = roots.indexOf(rootPath)
    if (root < 0) root = roots.push(rootPath) - 1
    const moved = { ...e, root }
    if (!dropped.has(evidenceKey(moved))) byKey.set(evidenceKey(moved), moved)
  }
  for (const e of incoming.evidence) {
    const key = evidenceKey(e)
    const other = byKey.get(key)
    if (other === undefined || other.at <= e.at) byKey.set(key, e)
  }
  const revealed = [...new Set([...(existing.revealed ?? []), ...(incoming.revealed ?? [])])]
  const reminders = incoming.reminders ?? existing.reminders
  const outputs = mergeOutputs((existing.outputs ?? []).filter((o) => !dropped.has(outputKey(o.id))), incoming.outputs ?? [])
  return {
    ...incoming,
    ...(revealed.length > 0 ? { revealed } : {}),
    ...(reminders !== undefined ? { reminders } : {}),
    ...(outputs.length > 0 ? { outputs } : {}),
    createdAt: Math.min(existing.createdAt, incoming.createdAt),
    lastUsedAt: Math.max(existing.lastUsedAt, incoming.lastUsedAt),
    roots,
    evidence: [...byKey.values()]
  }
}

/** Two lists of saved outputs as one: by id (the incoming entry wins), oldest first, the most recent {@link MAX_CARRIED_OUTPUTS}. @category combinators */
export const mergeOutputs = (
  existing: ReadonlyArray<StoredOutput>,
  incoming: ReadonlyArray<StoredOutput>
): ReadonlyArray<StoredOutput> => {
  if (existing.length === 0 && incoming.length <= MAX_CARRIED_OUTPUTS) return incoming
  const byId = new Map<string, StoredOutput>()
  for (const o of [...existing, ...incoming]) byId.set(o.id, o)
  return [...byId.values()].sort((a, b) => a.createdAt - b.createdAt).slice(-MAX_CARRIED_OUTPUTS)
}

/** A store in this process's memory: sessions survive being closed and reopened, not a restart. @category constructors */
export const makeMemorySessionStore = (): SessionStoreService => {
  const records = new Map<string, SessionRecord>()
  return {
    load: (name) => Effect.sync(() => Option.fromNullishOr(records.get(name))),
    save: (record, dropped) => Effect.sync(() => void records.set(record.name, mergeRecords(records.get(record.name), record, dropped)))
  }
}

const decodeRecord = Schema.decodeUnknownOption(Schema.fromJsonString(SessionRecord))

/**
 * Decodes a stored record of session `name`; `undefined` (nothing stored) is `None`. A text that is
 * not a record of that name fails with {@link SessionStoreFailed} saying `damaged` (where it lies and
 * what to do): a store never overwrites what it cannot read.
 * @category codecs
 */
export const decodeStoredRecord = (
  name: string,
  text: string | undefined,
  damaged: string
): Effect.Effect<Option.Option<SessionRecord>, SessionStoreFailed> => {
  if (text === undefined) return Effect.succeed(Option.none())
  const record = decodeRecord(text)
  return Option.isSome(record) && record.value.name === name
    ? Effect.succeed(record)
    : Effect.fail(new SessionStoreFailed({ message: damaged }))
}

const storeFailure = (what: string, e: DiskError) =>
  new SessionStoreFailed({
    message: `Could not ${what} the session store (${describeDiskError(e)}). Check that the state directory is ` +
      `writable, or run without --session.`
  })

/**
 * A store of one JSON file per session in `<stateDir>/sessions/` (mode 0600, written atomically).
 * A file that does not decode is never overwritten: loading it fails with {@link SessionStoreFailed}.
 * @category constructors
 */
export const makeFileSessionStore = (stateDir: string): SessionStoreService => {
  const fileOf = (name: string) => path.join(stateDir, "sessions", `${name}.json`)
  const load = (name: string) =>
    ifExists(readText(fileOf(name))).pipe(
      Effect.mapError((e) => storeFailure("read", e)),
      Effect.flatMap((text) =>
        decodeStoredRecord(
          name,
          text,
          `The saved session ${fileOf(name)} is not a toolwright session record (damaged or from a newer ` +
            `version). Move it away or pick another --session name; it was left as it is.`
        )
      )
    )
  return {
    load,
    save: (record, dropped) =>
      Effect.gen(function*() {
        yield* ensureStateSubdir(stateDir, "sessions").pipe(
          Effect.mapError((e) => new SessionStoreFailed({ message: e.message }))
        )
        const existing = yield* load(record.name)
        const merged = mergeRecords(Option.getOrUndefined(existing), record, dropped)
        yield* writeFileAtomic(fileOf(record.name), JSON.stringify(merged), 0o600).pipe(
          Effect.mapError((e) => storeFailure("write", e))
        )
      })
  }
}
