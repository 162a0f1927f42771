/**
 * File history: a before-image of every file a mutation touches, kept per session under
 * `<stateDir>/history/<sessionId>/` so a person (or a future undo) can get any overwritten byte
 * back. Each entry is two files, `<id>.json` (what, when, by which tool) and `<id>.bak` (the bytes;
 * absent when the file did not exist before), mode 0600 in a 0700 directory.
 *
 * The history is bounded: beyond `maxEntries` or `maxBytes` the oldest entries go, and a file larger
 * than `maxFileBytes` is recorded without its bytes (`skipped: "too_large"`). All state is on disk,
 * so several tools of one session may each hold a `FileHistory` for the same directory; what one
 * holds in memory (the sizes of kept before-images it has seen) is only a cache of what cannot change.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { DiskError, ifExists, isNotFound, mkdirp, readdirOfState, readFile, readText, removeFile, sizesOf, writeSmallFile } from "../disk/index.js"
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
  ) => Effect.Effect<HistoryEntry, DiskError>
  /** Every entry, oldest first. */
  readonly entries: Effect.Effect<ReadonlyArray<HistoryEntry>, DiskError>
  /** The bytes of an entry (`null`: the file did not exist, or the bytes were not kept). */
  readonly read: (id: string) => Effect.Effect<Uint8Array | null, DiskError>
}

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

const ID_PATTERN = /^[0-9a-z]{10}-[0-9a-f]{8}$/

/** Builds the history of one session directory. @category constructors */
export const makeFileHistory = (options: FileHistoryOptions): FileHistory => {
  const dir = options.dir
  const maxEntries = Math.max(1, options.maxEntries ?? DEFAULT_HISTORY_MAX_ENTRIES)
  const maxBytes = Math.max(0, options.maxBytes ?? DEFAULT_HISTORY_MAX_BYTES)
  const maxFileBytes = Math.max(0, options.maxFileBytes ?? DEFAULT_HISTORY_MAX_FILE_BYTES)
  const metaPath = (id: string) => path.join(dir, `${id}.json`)
  const dataPath = (id: string) => path.join(dir, `${id}.bak`)
  // The size of each kept before-image seen, by id: a `.bak` is complete before its `.json` is
  // written and never changes after, so each is stat'ed once by this history, not once per record
  // (the stats were 4% of an edit's samples at 150 entries). Ids no longer listed are forgotten.
  const keptSizes = new Map<string, number>()

  /**
   * Writes an entry file (a small one synchronously: the metadata, the before-image of a source
   * file); the directory is created when missing (first record, or removed since).
   */
  const writeEntryFile = (file: string, data: string | Uint8Array) =>
    writeSmallFile(file, data, { mode: 0o600 }).pipe(
      Effect.catchIf(isNotFound, () => Effect.andThen(mkdirp(dir, 0o700), writeSmallFile(file, data, { mode: 0o600 })))
    )

  /** The directory's entry ids, oldest first, and the ids whose bytes were kept (listed synchronously: the state directory's own). */
  const listing = Effect.map(
    ifExists(readdirOfState(dir)),
    (found = []) => ({
      ids: found.filter((n) => n.endsWith(".json")).map((n) => n.slice(0, -5)).sort(),
      withBytes: new Set(found.filter((n) => n.endsWith(".bak")).map((n) => n.slice(0, -4)))
    })
  )

  const entries: Effect.Effect<ReadonlyArray<HistoryEntry>, DiskError> = Effect.gen(function*() {
    const { ids } = yield* listing
    const loaded = yield* Effect.forEach(ids, (id) =>
      // An entry pruned by a concurrent writer between readdir and read is simply gone.
      Effect.map(ifExists(readText(metaPath(id))), (text) => (text === undefined ? [] : parseEntry(text))))
    return loaded.flat()
  })

  const removeEntry = (id: string) => Effect.all([removeFile(dataPath(id)), removeFile(metaPath(id))], { discard: true })

  // Pruning needs each entry's kept bytes, not its metadata: one readdir and a stat per kept
  // before-image not seen before. (Reading and parsing every metadata file, one after another,
  // made each edit slower as the history filled: 9 ms per edit at first, 42 ms at 250 entries.)
  const prune = Effect.gen(function*() {
    const { ids, withBytes } = yield* listing
    // A kept before-image pruned by a concurrent writer counts 0 (sizesOf's stats are synchronous: see there).
    const unseen = ids.filter((id) => withBytes.has(id) && !keptSizes.has(id))
    const found = yield* sizesOf(unseen.map(dataPath))
    unseen.forEach((id, i) => keptSizes.set(id, found[i]!))
    const listed = new Set(ids)
    for (const id of keptSizes.keys()) if (!listed.has(id)) keptSizes.delete(id)
    const sizes = ids.map((id) => (withBytes.has(id) ? keptSizes.get(id) ?? 0 : 0))
    let count = ids.length
    let total = sizes.reduce((sum, n) => sum + n, 0)
    for (const [i, id] of ids.entries()) {
      if (count <= maxEntries && total <= maxBytes) break
      yield* removeEntry(id)
      count--
      total -= sizes[i]!
    }
  })

  const record = (file: string, before: Uint8Array | null, tool: string, sha256?: string) =>
    Effect.gen(function*() {
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
        yield* writeEntryFile(dataPath(id), before)
        keptSizes.set(id, before.length)
      }
      // The metadata is written last: an entry is listed only once its bytes are complete.
      yield* writeEntryFile(metaPath(id), JSON.stringify(entry))
      yield* prune
      return entry
    })

  const read = (id: string) =>
    !ID_PATTERN.test(id)
      ? Effect.fail(new DiskError({ op: "read", path: id, code: "EINVAL", message: `not a history id: ${id}` }))
      : Effect.map(ifExists(readFile(dataPath(id))), (b): Uint8Array | null => b ?? null)

  return { dir, record, entries, read }
}

/** `<historyRoot>/<sessionId>`: where one session's before-images go. @category paths */
export const sessionHistoryDir = (historyRoot: string, sessionId: string): string => path.join(historyRoot, sessionId)
