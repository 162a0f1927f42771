/**
 * The session's file-read cache: which files the model has read or written, and the (mtime, size)
 * fingerprint they had then. Prior-read enforcement ({@link checkPriorRead}) and the read_file
 * "unchanged" fast path consult it.
 *
 * Entries are keyed by `${dev}:${ino}`, so symlinks, hard links and case variants of one file
 * collapse onto one entry. An inode number is recycled once its file is gone (an atomic write frees
 * the old one), so a key alone does not name a file: every lookup also checks that the entry belongs
 * to the file in hand ({@link sameFile}: its birth time where the file system records one, else the
 * path the read used and the ctime), and evidence of another file counts as none. The cache does no I/O of its own (except `invalidateByPath`, which
 * resolves the path): callers stat the file and pass the stats in. State is one `Map` owned by the
 * service and changed in place, each change one synchronous step (no fiber sees half of it; a grep
 * that records 800 files no longer copies a 4,096-entry map 800 times). One session owns one cache,
 * subagents get their own.
 *
 * @since 0.1.0
 */
import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { realpath } from "../disk/index.js"
import { addRange, coversLines, type LineRange, WHOLE_FILE } from "./lineRanges.js"

/** Entries kept before the oldest insertion is evicted (FIFO; an upsert moves an entry to the back). @category constants */
export const MAX_ENTRIES = 4096

/** The stat fields the cache needs; a Node `fs.Stats` satisfies it. @category models */
export interface FileIdentity {
  readonly dev: number
  readonly ino: number
  readonly mtimeMs: number
  readonly size: number
  /** Creation time (ms); 0 or absent when the file system does not record it. */
  readonly birthtimeMs?: number
  /** Inode change time (ms); absent when unknown. */
  readonly ctimeMs?: number
}

/** The canonical key of a file: `${dev}:${ino}`. @category constructors */
export const inodeKey = (stats: Pick<FileIdentity, "dev" | "ino">): string => `${stats.dev}:${stats.ino}`

/** One tracked file. @category models */
export interface FileReadEntry {
  /** `${dev}:${ino}`: the identity. */
  readonly inodeKey: string
  /** The last path seen for this inode (where the file system has no birth time, part of its identity). */
  readonly realPath: string
  /** Birth time (ms) of the file recorded; 0 when the file system does not record one. */
  readonly birthtimeMs: number
  /** ctime (ms) at the last record; undefined when unknown. */
  readonly ctimeMs?: number
  /** mtime (ms) at the last record. */
  readonly mtimeMs: number
  /** Size in bytes at the last record. */
  readonly sizeBytes: number
  /** Clock time (ms) of the last read or write. */
  readonly lastReadAt?: number
  /** Clock time (ms) of the last write. */
  readonly lastWriteAt?: number
  /** The last read showed the whole current content (no offset/limit/pages, not truncated). */
  readonly lastReadWasFull: boolean
  /** The last read produced plain text (not a binary/image/PDF/notebook payload). */
  readonly lastReadCacheable: boolean
  /** The full read is still quotable from conversation history (not microcompacted). */
  readonly readResidentInHistory: boolean
  /** With `readEvidence: "ranges"`: the 1-based line ranges seen at this fingerprint, merged. */
  readonly seenLines?: ReadonlyArray<LineRange>
  /** A whole-file read of these bytes was cut (see {@link RecordReadOptions.truncated}); a partial read (a grep hit) is not. */
  readonly lastReadTruncated?: boolean
}

/** Result of `check`: never seen, seen but the fingerprint drifted, or seen and unchanged. @category models */
export type FileReadCheck =
  | { readonly state: "unknown" }
  | { readonly state: "stale"; readonly entry: FileReadEntry }
  | { readonly state: "fresh"; readonly entry: FileReadEntry }

/** `"fingerprint"` (default): any read counts. `"ranges"`: also remember which lines were seen. @category models */
export type ReadEvidence = "fingerprint" | "ranges"

/** Options of {@link makeFileReadCache}. @category models */
export interface FileReadCacheOptions {
  /** FIFO bound; defaults to {@link MAX_ENTRIES}. */
  readonly maxEntries?: number
  /** Defaults to `"fingerprint"`. */
  readonly readEvidence?: ReadEvidence
  /** Opt-out: records become no-ops and `checkPriorRead` is skipped. */
  readonly disabled?: boolean
}

/** What a read produced. @category models */
export interface RecordReadOptions {
  /** The read showed the whole current content (no offset/limit/pages and not truncated). */
  readonly full: boolean
  /** The content was plain text. */
  readonly cacheable: boolean
  /** With `readEvidence: "ranges"`: the lines shown (1-based, inclusive); a full read implies all. */
  readonly lines?: LineRange
  /** A whole-file read (no offset/limit/pages) whose output was cut: the file is too large to show whole. */
  readonly truncated?: boolean
}

/** The operations of one session's read cache. @category models */
export interface FileReadCacheService {
  /** Which evidence reads leave (see {@link ReadEvidence}). */
  readonly readEvidence: ReadEvidence
  /** The opt-out: nothing is recorded and `checkPriorRead` always passes. */
  readonly disabled: boolean
  /** Records a successful read; flags are sticky-on-true at the same fingerprint, reset on drift. */
  readonly recordRead: (absPath: string, stats: FileIdentity, options: RecordReadOptions) => Effect.Effect<FileReadEntry>
  /** Records a successful write: the model authored every byte, so it counts as a full read. */
  readonly recordWrite: (
    absPath: string,
    stats: FileIdentity,
    options?: { readonly cacheable?: boolean }
  ) => Effect.Effect<FileReadEntry>
  /**
   * `unknown` (no entry, or the entry belongs to another file that had this inode), `stale` (mtime
   * or size differs) or `fresh`. `absPath`, the path the caller is about to use, is checked against
   * the path of the read when the file system records no birth time.
   */
  readonly check: (stats: FileIdentity, absPath?: string) => Effect.Effect<FileReadCheck>
  /** Whether some entry was recorded under `absPath` (a read or write of whatever file was there then). */
  readonly seenAt: (absPath: string) => Effect.Effect<boolean>
  /** The entry for an inode key. */
  readonly get: (key: string) => Effect.Effect<Option.Option<FileReadEntry>>
  /** Clears only `readResidentInHistory` (read rights stay); whether an entry existed. */
  readonly markReadEvictedFromHistory: (stats: FileIdentity) => Effect.Effect<boolean>
  /** Drops the entry of this inode. */
  readonly invalidate: (stats: Pick<FileIdentity, "dev" | "ino">) => Effect.Effect<void>
  /** Drops entries recorded under `absPath` or its resolved real path; how many were dropped. */
  readonly invalidateByPath: (absPath: string) => Effect.Effect<number>
  /** Drops every entry. */
  readonly clear: Effect.Effect<void>
  /** Drops entries last read more than `minutes` ago (`minutes` finite and ≥ 1, else no-op); how many. */
  readonly evictNotAccessedSince: (minutes: number) => Effect.Effect<number>
  /** Number of entries. */
  readonly size: Effect.Effect<number>
  /** Every entry, oldest insertion first. */
  readonly entries: Effect.Effect<ReadonlyArray<FileReadEntry>>
  /**
   * Whether lines `start..end` were seen; in `"fingerprint"` mode any recorded read counts. Given the
   * file's stats (not just its key), only evidence recorded for that same file counts.
   */
  readonly hasSeenLines: (file: string | FileIdentity, start: number, end: number) => Effect.Effect<boolean>
  /** Whether all `totalLines` lines were seen (see {@link hasSeenLines}). */
  readonly hasSeenWholeFile: (file: string | FileIdentity, totalLines: number) => Effect.Effect<boolean>
}

/** The read cache of one session. @category services */
export class FileReadCache extends Context.Service<FileReadCache, FileReadCacheService>()(
  "toolwright/session/FileReadCache"
) {
  /** A fresh, empty cache per layer build. */
  static readonly layer = (options: FileReadCacheOptions = {}): Layer.Layer<FileReadCache> =>
    Layer.effect(FileReadCache, makeFileReadCache(options))
}

const birthOf = (stats: FileIdentity): number => stats.birthtimeMs !== undefined && stats.birthtimeMs > 0 ? stats.birthtimeMs : 0

/**
 * Whether `entry` was recorded for the file `stats` describes, and not for an earlier file that had
 * the same inode number. With birth times on both sides they decide alone. Without them, the path
 * (when given) must be the one the entry was recorded under, and a ctime change with mtime and size
 * unchanged (a new file made to look like the old one) counts as another file.
 * @category predicates
 */
export const sameFile = (entry: FileReadEntry, stats: FileIdentity, absPath?: string): boolean => {
  const birth = birthOf(stats)
  if (entry.birthtimeMs > 0 && birth > 0) return entry.birthtimeMs === birth
  if (absPath !== undefined && path.resolve(absPath) !== path.resolve(entry.realPath)) return false
  const contentSame = entry.mtimeMs === stats.mtimeMs && entry.sizeBytes === stats.size
  return !(contentSame && entry.ctimeMs !== undefined && stats.ctimeMs !== undefined && entry.ctimeMs !== stats.ctimeMs)
}

const checkEntry = (entry: FileReadEntry | undefined, stats: FileIdentity, absPath?: string): FileReadCheck => {
  if (entry === undefined || !sameFile(entry, stats, absPath)) return { state: "unknown" }
  const stale = entry.mtimeMs !== stats.mtimeMs || entry.sizeBytes !== stats.size
  return { state: stale ? "stale" : "fresh", entry }
}

const identityOf = (stats: FileIdentity) => ({
  birthtimeMs: birthOf(stats),
  ...(stats.ctimeMs !== undefined ? { ctimeMs: stats.ctimeMs } : {})
})

/** Builds an empty read cache (what {@link FileReadCache.layer} runs). @category constructors */
export const makeFileReadCache = (options: FileReadCacheOptions = {}): Effect.Effect<FileReadCacheService> =>
  Effect.sync(() => {
    const maxEntries = Math.max(1, options.maxEntries ?? MAX_ENTRIES)
    const readEvidence = options.readEvidence ?? "fingerprint"
    const disabled = options.disabled ?? false
    const ranges = readEvidence === "ranges"
    // Insertion order is the FIFO order: an upsert deletes then sets, moving the entry to the back.
    const state = new Map<string, FileReadEntry>()

    /** Builds the new entry from the current one and stores it in one step; a disabled cache stores nothing. */
    const record = (key: string, build: (existing: FileReadEntry | undefined) => FileReadEntry) =>
      Effect.sync(() => {
        const entry = build(state.get(key))
        if (disabled) return entry
        state.delete(key)
        state.set(key, entry)
        for (const oldest of state.keys()) {
          if (state.size <= maxEntries) break
          state.delete(oldest)
        }
        return entry
      })
    const removeWhere = (drop: (entry: FileReadEntry) => boolean) =>
      Effect.sync(() => {
        let dropped = 0
        for (const [key, entry] of state) {
          if (drop(entry)) {
            state.delete(key)
            dropped++
          }
        }
        return dropped
      })

    const recordRead = Effect.fn("FileReadCache.recordRead")(
      function*(absPath: string, stats: FileIdentity, read: RecordReadOptions) {
        const now = yield* Clock.currentTimeMillis
        const key = inodeKey(stats)
        const seen = read.full ? WHOLE_FILE : read.lines
        return yield* record(key, (previous) => {
          // an entry of an earlier file with this inode number is no evidence for this one
          const existing = previous !== undefined && sameFile(previous, stats, absPath) ? previous : undefined
          const same = existing !== undefined && existing.mtimeMs === stats.mtimeMs &&
            existing.sizeBytes === stats.size
          const prior = same ? existing.seenLines ?? [] : []
          const seenLines = seen === undefined ? prior : addRange(prior, seen)
          return {
            inodeKey: key,
            realPath: absPath,
            ...identityOf(stats),
            mtimeMs: stats.mtimeMs,
            sizeBytes: stats.size,
            lastReadAt: now,
            ...(existing?.lastWriteAt !== undefined ? { lastWriteAt: existing.lastWriteAt } : {}),
            lastReadWasFull: same ? existing.lastReadWasFull || read.full : read.full,
            lastReadCacheable: same ? existing.lastReadCacheable || read.cacheable : read.cacheable,
            readResidentInHistory: read.full || (existing?.readResidentInHistory ?? false),
            ...((same && existing.lastReadTruncated === true) || read.truncated === true ? { lastReadTruncated: true } : {}),
            ...(ranges ? { seenLines } : {})
          }
        })
      }
    )

    const recordWrite = Effect.fn("FileReadCache.recordWrite")(
      function*(absPath: string, stats: FileIdentity, write: { readonly cacheable?: boolean } = {}) {
        const now = yield* Clock.currentTimeMillis
        const key = inodeKey(stats)
        return yield* record(key, () => ({
          inodeKey: key,
          realPath: absPath,
          ...identityOf(stats),
          mtimeMs: stats.mtimeMs,
          sizeBytes: stats.size,
          lastReadAt: now,
          lastWriteAt: now,
          lastReadWasFull: true,
          lastReadCacheable: write.cacheable ?? true,
          readResidentInHistory: true,
          ...(ranges ? { seenLines: [WHOLE_FILE] } : {})
        }))
      }
    )

    const get = Effect.fn("FileReadCache.get")(function*(key: string) {
      return Option.fromNullishOr(state.get(key))
    })

    const check = Effect.fn("FileReadCache.check")(function*(stats: FileIdentity, absPath?: string) {
      return checkEntry(state.get(inodeKey(stats)), stats, absPath)
    })

    const seenAt = Effect.fn("FileReadCache.seenAt")(function*(absPath: string) {
      const resolved = path.resolve(absPath)
      for (const entry of state.values()) if (path.resolve(entry.realPath) === resolved) return true
      return false
    })

    const markReadEvictedFromHistory = Effect.fn("FileReadCache.markReadEvictedFromHistory")(
      function*(stats: FileIdentity) {
        const key = inodeKey(stats)
        const entry = state.get(key)
        if (entry === undefined || !sameFile(entry, stats)) return false
        state.set(key, { ...entry, readResidentInHistory: false })
        return true
      }
    )

    const invalidate = Effect.fn("FileReadCache.invalidate")(function*(stats: Pick<FileIdentity, "dev" | "ino">) {
      state.delete(inodeKey(stats))
    })

    const invalidateByPath = Effect.fn("FileReadCache.invalidateByPath")(function*(absPath: string) {
      const resolved = path.resolve(absPath)
      const real = yield* Effect.option(realpath(resolved))
      const names = new Set([absPath, resolved, ...Option.toArray(real)])
      return yield* removeWhere((e) => names.has(e.realPath) || names.has(path.resolve(e.realPath)))
    })

    const evictNotAccessedSince = Effect.fn("FileReadCache.evictNotAccessedSince")(function*(minutes: number) {
      if (!Number.isFinite(minutes) || minutes < 1) return 0
      const cutoff = (yield* Clock.currentTimeMillis) - minutes * 60_000
      return yield* removeWhere((e) => (e.lastReadAt ?? Number.NEGATIVE_INFINITY) < cutoff)
    })

    const readEntry = (file: string | FileIdentity) =>
      Effect.sync(() => {
        if (typeof file === "string") return state.get(file)
        const entry = state.get(inodeKey(file))
        return entry !== undefined && sameFile(entry, file) ? entry : undefined
      })
    const hasSeenLines = Effect.fn("FileReadCache.hasSeenLines")(function*(file: string | FileIdentity, start: number, end: number) {
      const entry = yield* readEntry(file)
      if (entry?.lastReadAt === undefined) return false
      return ranges ? coversLines(entry.seenLines ?? [], start, end) : true
    })
    const hasSeenWholeFile = Effect.fn("FileReadCache.hasSeenWholeFile")(function*(file: string | FileIdentity, totalLines: number) {
      const entry = yield* readEntry(file)
      if (entry?.lastReadAt === undefined) return false
      if (!ranges || totalLines <= 0) return true
      return coversLines(entry.seenLines ?? [], 1, totalLines)
    })

    return FileReadCache.of({
      readEvidence,
      disabled,
      recordRead,
      recordWrite,
      check,
      seenAt,
      get,
      markReadEvictedFromHistory,
      invalidate,
      invalidateByPath,
      clear: Effect.sync(() => state.clear()),
      evictNotAccessedSince,
      size: Effect.sync(() => state.size),
      entries: Effect.sync(() => [...state.values()]),
      hasSeenLines,
      hasSeenWholeFile
    })
  })
