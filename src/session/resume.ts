/**
 * Moving read evidence between a session's read cache and its {@link SessionRecord}: `restoreEvidence`
 * when a named session starts, `captureEvidence` when it ends.
 *
 * Both directions check the file as it is on disk: evidence is restored only for a file whose size,
 * mtime and SHA-256 are those recorded, and captured only for a file unchanged since the read. So a
 * file changed between two processes is never edited on stale evidence: the model is told to read
 * it again, as within one process.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { readFile, stat } from "../disk/index.js"
import { type LineRange, WHOLE_FILE } from "./lineRanges.js"
import type { FileReadCacheService } from "./readCache.js"
import { isPathInside } from "./realPath.js"
import { type SessionRecord, type StoredEvidence } from "./sessionStore.js"

/** Files larger than this are not hashed, so their evidence is not carried over (read them again). @category constants */
export const MAX_CARRIED_FILE_BYTES = 16 * 1024 * 1024

/** At most this many pieces of evidence (the most recent) are carried over. @category constants */
export const MAX_CARRIED_EVIDENCE = 512

const hashOf = (absPath: string) =>
  readFile(absPath).pipe(Effect.map((bytes) => createHash("sha256").update(bytes).digest("hex")))

/** The file's stats when it still has the evidence's size, mtime and content hash. */
const unchangedFile = (absPath: string, e: StoredEvidence) =>
  Effect.gen(function*() {
    const stats = yield* Effect.option(stat(absPath))
    if (stats._tag === "None" || !stats.value.isFile() || stats.value.size !== e.size || stats.value.mtimeMs !== e.mtimeMs) {
      return undefined
    }
    const hash = yield* Effect.option(hashOf(absPath))
    return hash._tag === "Some" && hash.value === e.sha256 ? { absPath, stats: stats.value } : undefined
  })

/** `-1` stands for "to the end of the file" in the stored form (JSON has no infinity). */
const storeRange = (r: LineRange) => ({ start: r.start, end: Number.isFinite(r.end) ? r.end : -1 })
const loadRange = (r: { readonly start: number; readonly end: number }): LineRange =>
  r.end < 0 ? { start: r.start, end: WHOLE_FILE.end } : r

/** A relative path that stays under its root. */
const safeRelative = (rel: string) =>
  rel !== "" && !path.isAbsolute(rel) && !rel.split("/").some((part) => part === ".." || part === "")

/**
 * Puts the record's evidence back into `cache` for each file that still has the recorded size,
 * mtime and content hash, under one of `roots` (the session's real roots); how many were restored.
 * @category restore
 */
export const restoreEvidence = (
  record: SessionRecord,
  roots: ReadonlyArray<string>,
  cache: FileReadCacheService
): Effect.Effect<number> =>
  Effect.gen(function*() {
    let restored = 0
    for (const e of record.evidence) {
      const rootPath = record.roots[e.root]
      const usable = rootPath !== undefined && roots.includes(rootPath) && safeRelative(e.path) &&
        e.size <= MAX_CARRIED_FILE_BYTES
      const stats = usable && rootPath !== undefined ? yield* unchangedFile(path.join(rootPath, ...e.path.split("/")), e) : undefined
      if (stats === undefined) continue
      const ranges = e.full || e.seenLines === undefined ? [undefined] : e.seenLines.map(loadRange)
      for (const lines of ranges) {
        yield* cache.recordRead(stats.absPath, stats.stats, {
          full: e.full,
          cacheable: e.cacheable,
          ...(lines !== undefined ? { lines } : {})
        })
      }
      restored++
    }
    return restored
  })

/**
 * The cache's evidence in portable form: for each entry under one of `roots` whose file is unchanged
 * since the read (size and mtime) and small enough, its path relative to the root and the hash of
 * its bytes; the most recent {@link MAX_CARRIED_EVIDENCE}.
 * @category capture
 */
export const captureEvidence = (
  cache: FileReadCacheService,
  roots: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<StoredEvidence>> =>
  Effect.gen(function*() {
    const entries = (yield* cache.entries)
      .filter((e) => e.lastReadAt !== undefined)
      .sort((a, b) => (b.lastReadAt ?? 0) - (a.lastReadAt ?? 0))
      .slice(0, MAX_CARRIED_EVIDENCE)
    const carried: Array<StoredEvidence> = []
    for (const entry of entries) {
      const root = roots.findIndex((r) => isPathInside(entry.realPath, r) && entry.realPath !== r)
      if (root < 0 || entry.sizeBytes > MAX_CARRIED_FILE_BYTES) continue
      const now = yield* Effect.option(stat(entry.realPath))
      if (now._tag === "None" || now.value.mtimeMs !== entry.mtimeMs || now.value.size !== entry.sizeBytes) continue
      const sha256 = yield* Effect.option(hashOf(entry.realPath))
      if (sha256._tag === "None") continue
      carried.push({
        root,
        path: path.relative(roots[root]!, entry.realPath).split(path.sep).join("/"),
        size: entry.sizeBytes,
        mtimeMs: entry.mtimeMs,
        sha256: sha256.value,
        full: entry.lastReadWasFull,
        cacheable: entry.lastReadCacheable,
        resident: entry.readResidentInHistory,
        ...(entry.seenLines !== undefined ? { seenLines: entry.seenLines.map(storeRange) } : {}),
        at: entry.lastReadAt ?? 0
      })
    }
    return carried
  })
