/**
 * File history: a before-image of every file a mutation touches, kept per session under
 * `<stateDir>/history/<sessionId>/` so a person (or a future undo) can get any overwritten byte
 * back. Each entry is two files, `<id>.json` (what, when, by which tool) and `<id>.bak` (the bytes;
 * absent when the file did not exist before), mode 0600 in a 0700 directory.
 *
 * The history is bounded: beyond `maxEntries` or `maxBytes` the oldest entries go, and a file larger
 * than `maxFileBytes` is recorded without its bytes (`skipped: "too_large"`). All state is on disk,
 * so several tools of one session may each hold a `FileHistory` for the same directory.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { errnoCode } from "../session/fsEffect.js"
import { sha256Hex } from "./fileIo.js"

/** Entries kept per session by default. @category constants */
export const DEFAULT_HISTORY_MAX_ENTRIES = 200

/** Bytes of before-images kept per session by default (100 MiB). @category constants */
export const DEFAULT_HISTORY_MAX_BYTES = 100 * 1024 * 1024

/** Largest before-image kept by default (20 MiB); larger files are recorded without bytes. @category constants */
export const DEFAULT_HISTORY_MAX_FILE_BYTES = 20 * 1024 * 1024

/** One recorded before-image. @category models */
export interface HistoryEntry {
  /** Sortable id (time-ordered). */
  readonly id: string
  /** Absolute path of the file that was about to change. */
  readonly path: string
  /** The tool that changed it. */
  readonly tool: string
  /** Milliseconds since the epoch. */
  readonly at: number
  /** Whether the file existed before the change. */
  readonly existed: boolean
  /** Size of the before-image in bytes (0 when the file did not exist). */
  readonly bytes: number
  /** sha256 of the before-image (absent when the file did not exist, or when its bytes were too large to keep). */
  readonly sha256?: string
  /** Set when the bytes were not kept. */
  readonly skipped?: "too_large"
}

/** Options of {@link makeFileHistory}. @category models */
export interface FileHistoryOptions {
  /** The session's history directory (created 0700 on first use). */
  readonly dir: string
  readonly maxEntries?: number | undefined
  readonly maxBytes?: number | undefined
  readonly maxFileBytes?: number | undefined
}

/** Recording or reading a before-image failed. @category errors */
export class HistoryError extends Data.TaggedError("HistoryError")<{
  readonly op: string
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** The operations of one session's file history. @category models */
export interface FileHistory {
  readonly dir: string
  /**
   * Records the before-image of `file` (`null`: it did not exist) and prunes to the bounds.
   * `sha256`: the before-image's hash when the caller already has it (computed otherwise).
   */
  readonly record: (
    file: string,
    before: Uint8Array | null,
    tool: string,
    sha256?: string
  ) => Effect.Effect<HistoryEntry, HistoryError>
  /** Every entry, oldest first. */
  readonly entries: Effect.Effect<ReadonlyArray<HistoryEntry>, HistoryError>
  /** The bytes of an entry (`null`: the file did not exist, or the bytes were not kept). */
  readonly read: (id: string) => Effect.Effect<Uint8Array | null, HistoryError>
}

const call = <A>(op: string, file: string, f: () => Promise<A>): Effect.Effect<A, HistoryError> =>
  Effect.tryPromise({
    try: f,
    catch: (cause) =>
      new HistoryError({ op, path: file, code: errnoCode(cause), message: cause instanceof Error ? cause.message : String(cause) })
  })

/**
 * A new entry id: the time in microseconds (base 36, 10 digits: enough until 2084), then random
 * hex for writers sharing the directory. Ids sort oldest first, which pruning relies on; whole
 * milliseconds were not enough (two edits can record within one).
 */
const newId = (): string => {
  const micros = Math.floor((performance.timeOrigin + performance.now()) * 1000)
  return `${micros.toString(36).padStart(10, "0")}-${randomBytes(4).toString("hex")}`
}

const isEntry = (u: unknown): u is HistoryEntry =>
  typeof u === "object" && u !== null && typeof (u as HistoryEntry).id === "string" &&
  typeof (u as HistoryEntry).path === "string" && typeof (u as HistoryEntry).bytes === "number"

/** The entry in a metadata file, or none when it is not one (a foreign or damaged file). */
const parseEntry = (text: string): ReadonlyArray<HistoryEntry> => {
  try {
    const parsed: unknown = JSON.parse(text)
    return isEntry(parsed) ? [parsed] : []
  } catch {
    return []
  }
}

/** A file's size, 0 when it is gone (pruned by a concurrent writer) or cannot be read. */
const sizeOf = (file: string): number => {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0
  } catch {
    return 0
  }
}

const ID_PATTERN = /^[0-9a-z]{10}-[0-9a-f]{8}$/

/** Builds the history of one session directory. @category constructors */
export const makeFileHistory = (options: FileHistoryOptions): FileHistory => {
  const dir = options.dir
  const maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_HISTORY_MAX_ENTRIES)
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_HISTORY_MAX_BYTES)
  const maxFileBytes = Math.max(0, options.maxFileBytes ?? DEFAULT_HISTORY_MAX_FILE_BYTES)
  const metaPath = (id: string) => path.join(dir, `${id}.json`)
  const dataPath = (id: string) => path.join(dir, `${id}.bak`)

  /** The directory's entry ids, oldest first, and the ids whose bytes were kept. */
  const listing = Effect.map(
    call("readdir", dir, () => fsp.readdir(dir)).pipe(
      Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed([] as Array<string>))
    ),
    (names) => ({
      ids: names.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5)).sort(),
      withBytes: new Set(names.filter((n) => n.endsWith(".bak")).map((n) => n.slice(0, -4)))
    })
  )

  const entries: Effect.Effect<ReadonlyArray<HistoryEntry>, HistoryError> = Effect.gen(function*() {
    const { ids } = yield* listing
    const loaded = yield* Effect.forEach(ids, (id) =>
      call("read", metaPath(id), () => fsp.readFile(metaPath(id), "utf8")).pipe(
        Effect.map(parseEntry),
        // An entry pruned by a concurrent writer between readdir and read is simply gone.
        Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed([]))
      ))
    return loaded.flat()
  })

  const remove = (id: string) =>
    Effect.all([
      call("rm", dataPath(id), () => fsp.rm(dataPath(id), { force: true })),
      call("rm", metaPath(id), () => fsp.rm(metaPath(id), { force: true }))
    ], { discard: true })

  // Pruning needs each entry's kept bytes, not its metadata: one readdir and a stat per kept
  // before-image. (Reading and parsing every metadata file, one after another,
  // made each edit slower as the history filled: 9 ms per edit at first, 42 ms at 250 entries.)
  const prune = Effect.gen(function*() {
    const { ids, withBytes } = yield* listing
    // Synchronous stats: a few µs each from the dentry cache, where an async stat costs a thread-pool
    // round trip and a promise per file (200 of them were ~3 ms an edit).
    const sizes = yield* Effect.sync(() => ids.map((id) => (withBytes.has(id) ? sizeOf(dataPath(id)) : 0)))
    let count = ids.length
    let total = sizes.reduce((sum, n) => sum + n, 0)
    for (const [i, id] of ids.entries()) {
      if (count <= maxEntries && total <= maxBytes) break
      yield* remove(id)
      count--
      total -= sizes[i]!
    }
  })

  const record = (file: string, before: Uint8Array | null, tool: string, sha256?: string) =>
    Effect.gen(function*() {
      yield* call("mkdir", dir, () => fsp.mkdir(dir, { recursive: true, mode: 0o700 }))
      const at = Date.now()
      const id = newId()
      const tooLarge = before !== null && (before.length > maxFileBytes || before.length > maxBytes)
      const entry: HistoryEntry = {
        id,
        path: file,
        tool,
        at,
        existed: before !== null,
        bytes: before?.length ?? 0,
        // Hashed only when the bytes are kept (a skipped 50 MB before-image cost a whole hash per edit).
        ...(before !== null && (!tooLarge || sha256 !== undefined) ? { sha256: sha256 ?? sha256Hex(before) } : {}),
        ...(tooLarge ? { skipped: "too_large" as const } : {})
      }
      if (before !== null && !tooLarge) {
        yield* call("write", dataPath(id), () => fsp.writeFile(dataPath(id), before, { mode: 0o600 }))
      }
      // The metadata is written last: an entry is listed only once its bytes are complete.
      yield* call("write", metaPath(id), () => fsp.writeFile(metaPath(id), JSON.stringify(entry), { mode: 0o600 }))
      yield* prune
      return entry
    })

  const read = (id: string) =>
    !ID_PATTERN.test(id)
      ? Effect.fail(new HistoryError({ op: "read", path: id, code: "EINVAL", message: `not a history id: ${id}` }))
      : call("read", dataPath(id), () => fsp.readFile(dataPath(id))).pipe(
      Effect.map((b): Uint8Array | null => b),
      Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(null))
    )

  return { dir, record, entries, read }
}

/** `<historyRoot>/<sessionId>`: where one session's before-images go. @category paths */
export const sessionHistoryDir = (historyRoot: string, sessionId: string): string => path.join(historyRoot, sessionId)
