import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import * as fs from "node:fs"
import * as path from "node:path"
import { addRange, coversLines, WHOLE_FILE } from "../../src/session/lineRanges.js"
import {
  FileReadCache,
  type FileIdentity,
  inodeKey,
  makeFileReadCache,
  MAX_ENTRIES
} from "../../src/session/readCache.js"
import { tempDir, write } from "./helpers.js"

const st = (ino: number, mtimeMs = 1000, size = 10): FileIdentity => ({ dev: 7, ino, mtimeMs, size })
const partial = { full: false, cacheable: true } as const
const full = { full: true, cacheable: true } as const

describe("FileReadCache: records and checks", () => {
  it.effect("recordRead creates an entry; check is fresh, stale on mtime or size drift, unknown elsewhere", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      yield* TestClock.adjust("5 seconds")
      const entry = yield* cache.recordRead("/w/a.ts", st(1), partial)
      assert.deepStrictEqual(entry, {
        inodeKey: "7:1",
        realPath: "/w/a.ts",
        birthtimeMs: 0,
        mtimeMs: 1000,
        sizeBytes: 10,
        lastReadAt: 5000,
        lastReadWasFull: false,
        lastReadCacheable: true,
        readResidentInHistory: false
      })
      assert.strictEqual((yield* cache.check(st(1))).state, "fresh")
      assert.strictEqual((yield* cache.check(st(1, 2000))).state, "stale")
      assert.strictEqual((yield* cache.check(st(1, 1000, 11))).state, "stale")
      assert.deepStrictEqual(yield* cache.check(st(2)), { state: "unknown" })
      assert.deepStrictEqual(yield* cache.get("7:1"), Option.some(entry))
      assert.strictEqual(inodeKey(st(1)), "7:1")
    }))

  it.effect("flags are sticky-on-true at the same fingerprint", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      yield* cache.recordRead("/w/a.ts", st(1), full)
      const after = yield* cache.recordRead("/w/a.ts", st(1), { full: false, cacheable: false })
      assert.isTrue(after.lastReadWasFull)
      assert.isTrue(after.lastReadCacheable)
      assert.isTrue(after.readResidentInHistory)
    }))

  it.effect("flags reset to exactly this read when the fingerprint drifted", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      yield* cache.recordRead("/w/a.ts", st(1), full)
      const after = yield* cache.recordRead("/w/b.ts", st(1, 2000), { full: false, cacheable: false })
      assert.isFalse(after.lastReadWasFull)
      assert.isFalse(after.lastReadCacheable)
      assert.strictEqual(after.realPath, "/w/b.ts")
      assert.strictEqual(after.mtimeMs, 2000)
      assert.strictEqual((yield* cache.check(st(1, 2000))).state, "fresh")
    }))

  it.effect("recordWrite counts as a full text read", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      yield* TestClock.adjust("1 second")
      yield* cache.recordRead("/w/a.ts", st(1), { full: false, cacheable: false })
      yield* TestClock.adjust("1 second")
      const written = yield* cache.recordWrite("/w/a.ts", st(1, 3000, 20))
      assert.deepStrictEqual(written, {
        inodeKey: "7:1",
        realPath: "/w/a.ts",
        birthtimeMs: 0,
        mtimeMs: 3000,
        sizeBytes: 20,
        lastReadAt: 2000,
        lastWriteAt: 2000,
        lastReadWasFull: true,
        lastReadCacheable: true,
        readResidentInHistory: true
      })
      const binary = yield* cache.recordWrite("/w/b.png", st(2), { cacheable: false })
      assert.isFalse(binary.lastReadCacheable)
      yield* TestClock.adjust("1 second")
      const reread = yield* cache.recordRead("/w/a.ts", st(1, 3000, 20), partial)
      assert.strictEqual(reread.lastWriteAt, 2000)
      assert.strictEqual(reread.lastReadAt, 3000)
    }))

  it.effect("markReadEvictedFromHistory clears only readResidentInHistory; a full read re-arms it", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      const before = yield* cache.recordRead("/w/a.ts", st(1), full)
      assert.isTrue(yield* cache.markReadEvictedFromHistory(st(1)))
      assert.isFalse(yield* cache.markReadEvictedFromHistory(st(9)))
      const after = Option.getOrThrow(yield* cache.get("7:1"))
      assert.deepStrictEqual(after, { ...before, readResidentInHistory: false })
      assert.isFalse((yield* cache.recordRead("/w/a.ts", st(1), partial)).readResidentInHistory)
      assert.isTrue((yield* cache.recordRead("/w/a.ts", st(1), full)).readResidentInHistory)
    }))
})

describe("FileReadCache: bounds and eviction", () => {
  it.effect("is FIFO-bounded; an upsert moves the entry to the back", () =>
    Effect.gen(function*() {
      assert.strictEqual(MAX_ENTRIES, 4096)
      const cache = yield* makeFileReadCache({ maxEntries: 3 })
      for (const ino of [1, 2, 3]) yield* cache.recordRead(`/w/${ino}`, st(ino), partial)
      yield* cache.recordRead("/w/1", st(1), partial) // 1 moves behind 3
      yield* cache.recordRead("/w/4", st(4), partial) // evicts 2, the oldest insertion
      assert.deepStrictEqual((yield* cache.entries).map((e) => e.inodeKey), ["7:3", "7:1", "7:4"])
      assert.strictEqual(yield* cache.size, 3)
      yield* cache.recordWrite("/w/5", st(5))
      assert.deepStrictEqual((yield* cache.entries).map((e) => e.inodeKey), ["7:1", "7:4", "7:5"])
    }))

  it.effect("invalidate, invalidateByPath and clear drop entries", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      write(path.join(tmp, "real.txt"), "x")
      fs.symlinkSync(path.join(tmp, "real.txt"), path.join(tmp, "link.txt"))
      const cache = yield* makeFileReadCache()
      yield* cache.recordRead("/w/1", st(1), partial)
      yield* cache.recordRead("/w/2", st(2), partial)
      yield* cache.recordRead(path.join(tmp, "real.txt"), st(3), partial)
      yield* cache.invalidate(st(1))
      assert.deepStrictEqual(yield* cache.check(st(1)), { state: "unknown" })
      assert.strictEqual(yield* cache.invalidateByPath(path.join(tmp, "link.txt")), 1)
      assert.strictEqual(yield* cache.invalidateByPath("/w/nothing"), 0)
      assert.strictEqual(yield* cache.invalidateByPath("/w/x/../2"), 1)
      yield* cache.recordRead("/w/1", st(1), partial)
      yield* cache.clear
      assert.strictEqual(yield* cache.size, 0)
    }))

  it.effect("evictNotAccessedSince drops entries last read before now - minutes; rejects bad minutes", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      yield* cache.recordRead("/w/old", st(1), partial)
      yield* TestClock.adjust("10 minutes")
      yield* cache.recordRead("/w/new", st(2), partial)
      yield* TestClock.adjust("2 minutes")
      for (const bad of [0, 0.5, -3, Number.NaN, Number.POSITIVE_INFINITY]) {
        assert.strictEqual(yield* cache.evictNotAccessedSince(bad), 0)
      }
      assert.strictEqual(yield* cache.evictNotAccessedSince(5), 1)
      assert.deepStrictEqual((yield* cache.entries).map((e) => e.realPath), ["/w/new"])
    }))

  it.effect("keys by device+inode: a symlink and a hard link share the entry", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const file = path.join(tmp, "f.txt")
      write(file, "hello\n")
      fs.symlinkSync(file, path.join(tmp, "sym.txt"))
      fs.linkSync(file, path.join(tmp, "hard.txt"))
      const cache = yield* makeFileReadCache()
      yield* cache.recordRead(path.join(tmp, "sym.txt"), fs.statSync(path.join(tmp, "sym.txt")), full)
      yield* cache.recordRead(path.join(tmp, "hard.txt"), fs.statSync(path.join(tmp, "hard.txt")), partial)
      assert.strictEqual(yield* cache.size, 1)
      assert.strictEqual((yield* cache.check(fs.statSync(file))).state, "fresh")
      assert.isTrue(Option.getOrThrow(yield* cache.get(inodeKey(fs.statSync(file)))).lastReadWasFull)
    }))

  it.effect("a disabled cache records nothing", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache({ disabled: true })
      const entry = yield* cache.recordRead("/w/a", st(1), full)
      yield* cache.recordWrite("/w/b", st(2))
      assert.isTrue(cache.disabled)
      assert.strictEqual(entry.inodeKey, "7:1")
      assert.strictEqual(yield* cache.size, 0)
      assert.deepStrictEqual(yield* cache.check(st(1)), { state: "unknown" })
    }))

  it.effect("each layer build is a separate, empty cache", () =>
    Effect.gen(function*() {
      const use = Effect.gen(function*() {
        const cache = yield* FileReadCache
        yield* cache.recordRead("/w/a", st(1), partial)
        return yield* cache.size
      })
      assert.strictEqual(yield* use.pipe(Effect.provide(Layer.fresh(FileReadCache.layer()))), 1)
      assert.strictEqual(yield* use.pipe(Effect.provide(Layer.fresh(FileReadCache.layer()))), 1)
    }))
})

describe("FileReadCache: readEvidence", () => {
  it("merges line ranges (pure helpers)", () => {
    let r = addRange([], { start: 10, end: 20 })
    r = addRange(r, { start: 1, end: 5 })
    assert.deepStrictEqual(r, [{ start: 1, end: 5 }, { start: 10, end: 20 }])
    r = addRange(r, { start: 6, end: 9 }) // adjacent on both sides
    assert.deepStrictEqual(r, [{ start: 1, end: 20 }])
    r = addRange(r, { start: 15, end: 30 })
    assert.deepStrictEqual(r, [{ start: 1, end: 30 }])
    assert.deepStrictEqual(addRange(r, { start: 9, end: 3 }), r)
    assert.deepStrictEqual(addRange([], { start: 0, end: 2 }), [{ start: 1, end: 2 }])
    assert.deepStrictEqual(addRange([{ start: 5, end: 8 }], WHOLE_FILE), [WHOLE_FILE])
    assert.isTrue(coversLines([{ start: 1, end: 30 }], 4, 30))
    assert.isFalse(coversLines([{ start: 1, end: 5 }, { start: 7, end: 9 }], 4, 8))
    assert.isTrue(coversLines([], 5, 4))
    assert.isFalse(coversLines([WHOLE_FILE], Number.NaN, 3))
  })

  it.effect("ranges mode records merged ranges; drift resets them; full reads and writes see all", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache({ readEvidence: "ranges" })
      assert.strictEqual(cache.readEvidence, "ranges")
      yield* cache.recordRead("/w/a", st(1), { ...partial, lines: { start: 1, end: 50 } })
      const e = yield* cache.recordRead("/w/a", st(1), { ...partial, lines: { start: 51, end: 80 } })
      assert.deepStrictEqual(e.seenLines, [{ start: 1, end: 80 }])
      assert.isTrue(yield* cache.hasSeenLines("7:1", 10, 80))
      assert.isFalse(yield* cache.hasSeenLines("7:1", 70, 81))
      assert.isTrue(yield* cache.hasSeenWholeFile("7:1", 80))
      assert.isFalse(yield* cache.hasSeenWholeFile("7:1", 81))
      const drifted = yield* cache.recordRead("/w/a", st(1, 2000), { ...partial, lines: { start: 100, end: 120 } })
      assert.deepStrictEqual(drifted.seenLines, [{ start: 100, end: 120 }])
      assert.isFalse(yield* cache.hasSeenLines("7:1", 1, 10))
      yield* cache.recordRead("/w/a", st(1, 2000), full)
      assert.isTrue(yield* cache.hasSeenWholeFile("7:1", 1_000_000))
      yield* cache.recordWrite("/w/b", st(2))
      assert.isTrue(yield* cache.hasSeenLines("7:2", 1, 500))
      yield* cache.recordRead("/w/c", st(3), partial) // a partial read that named no lines is no evidence
      assert.isFalse(yield* cache.hasSeenLines("7:3", 1, 1))
      assert.isTrue(yield* cache.hasSeenWholeFile("7:3", 0))
      assert.isFalse(yield* cache.hasSeenLines("7:99", 1, 1))
    }))

  it.effect("fingerprint mode (default) keeps no ranges: any recorded read is evidence", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      assert.strictEqual(cache.readEvidence, "fingerprint")
      const e = yield* cache.recordRead("/w/a", st(1), { ...partial, lines: { start: 1, end: 5 } })
      assert.isUndefined(e.seenLines)
      assert.isTrue(yield* cache.hasSeenLines("7:1", 100, 200))
      assert.isTrue(yield* cache.hasSeenWholeFile("7:1", 1000))
      assert.isFalse(yield* cache.hasSeenWholeFile("7:2", 1))
    }))
})
