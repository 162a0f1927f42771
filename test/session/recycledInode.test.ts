/**
 * Read evidence belongs to the file that was read, not to its inode number: after an atomic write
 * frees a read file's inode, a new file that gets the same number inherits nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { checkPriorRead } from "../../src/session/priorRead.js"
import { type FileIdentity, makeFileReadCache } from "../../src/session/readCache.js"
import { EditRequiresPriorRead } from "../../src/tool/errors.js"
import { fileWorld, pinMtime, textOf } from "../files/helpers.js"
import { MAX_ATTEMPTS, replaceAndReuseInode } from "../support/recycleInode.js"

describe("read evidence on a recycled inode", () => {
  it.effect("editing a never-read file that reuses a read file's inode → edit_requires_prior_read", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      let reused: string | undefined
      let original = ""
      for (let attempt = 0; attempt < MAX_ATTEMPTS && reused === undefined; attempt++) {
        original = w.file(`a${attempt}.txt`, "alpha\nbeta\n")
        yield* w.read.call({ file_path: original })
        // an atomic replacement: the new bytes get a new inode, the read one is freed and handed out again
        reused = replaceAndReuseInode(original, "alpha\ngamma\n", "alpha\nbeta\n")
      }
      assert.isDefined(reused, `no new file reused a freed inode in ${MAX_ATTEMPTS} attempts on ${w.root}`)
      const error = yield* Effect.flip(w.edit.call({ file_path: path.basename(reused!), old_string: "beta", new_string: "delta" }))
      assert.instanceOf(error, EditRequiresPriorRead)
      assert.strictEqual(error.code, "edit_requires_prior_read")
      assert.strictEqual(fs.readFileSync(reused!, "utf8"), "alpha\nbeta\n")
      // the file now at the read path is another one: refused as replaced since the read
      const replaced = yield* Effect.flip(w.edit.call({ file_path: original, old_string: "gamma", new_string: "delta" }))
      assert.strictEqual(replaced.code, "file_changed_since_read")
      assert.include(replaced.message, "was replaced since you last read it")
      // and once read, the new file is editable as usual
      yield* w.read.call({ file_path: path.basename(reused!) })
      const done = yield* w.edit.call({ file_path: path.basename(reused!), old_string: "beta", new_string: "delta" })
      assert.include(textOf(done), "has been updated")
    }))

  it.effect("a recycled inode made to look like the read file (same size, same mtime) still needs a read", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      let reused: string | undefined
      let readStats: fs.Stats | undefined
      for (let attempt = 0; attempt < MAX_ATTEMPTS && reused === undefined; attempt++) {
        const original = w.file(`b${attempt}.txt`, "alpha\nbeta\n")
        pinMtime(original)
        yield* w.read.call({ file_path: original })
        readStats = fs.statSync(original)
        reused = replaceAndReuseInode(original, "alpha\ngamma\n", "alpha\nbeta\n")
      }
      assert.isDefined(reused, `no new file reused a freed inode in ${MAX_ATTEMPTS} attempts on ${w.root}`)
      pinMtime(reused!)
      const now = fs.statSync(reused!)
      assert.strictEqual(now.size, readStats!.size)
      assert.strictEqual(now.mtimeMs, readStats!.mtimeMs)
      const error = yield* Effect.flip(w.edit.call({ file_path: reused!, old_string: "beta", new_string: "delta" }))
      assert.strictEqual(error.code, "edit_requires_prior_read")
      assert.strictEqual(fs.readFileSync(reused!, "utf8"), "alpha\nbeta\n")
    }))

  it.effect("same size and mtime on the recycled inode still gives no evidence (birth time differs)", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      const base: FileIdentity = { dev: 1, ino: 42, mtimeMs: 5000, size: 10, ctimeMs: 5000 }
      yield* cache.recordRead("/w/a.txt", { ...base, birthtimeMs: 100 }, { full: true, cacheable: true })
      assert.strictEqual((yield* cache.check({ ...base, birthtimeMs: 100 }, "/w/a.txt")).state, "fresh")
      assert.deepStrictEqual(yield* cache.check({ ...base, birthtimeMs: 200 }, "/w/b.txt"), { state: "unknown" })
      assert.isFalse(yield* cache.hasSeenWholeFile({ ...base, birthtimeMs: 200 }, 1))
      assert.isTrue(yield* cache.hasSeenWholeFile({ ...base, birthtimeMs: 100 }, 1))
    }))

  it.effect("without birth times: another path, or a ctime change with the same size and mtime, is another file", () =>
    Effect.gen(function*() {
      const cache = yield* makeFileReadCache()
      const read: FileIdentity = { dev: 1, ino: 42, mtimeMs: 5000, size: 10, birthtimeMs: 0, ctimeMs: 5000 }
      yield* cache.recordRead("/w/a.txt", read, { full: true, cacheable: true })
      assert.strictEqual((yield* cache.check(read, "/w/a.txt")).state, "fresh")
      assert.deepStrictEqual(yield* cache.check(read, "/w/b.txt"), { state: "unknown" })
      assert.deepStrictEqual(yield* cache.check({ ...read, ctimeMs: 9000 }, "/w/a.txt"), { state: "unknown" })
      // a real change of the read file (mtime moves with ctime) stays a drift
      assert.strictEqual((yield* cache.check({ ...read, ctimeMs: 9000, mtimeMs: 9000 }, "/w/a.txt")).state, "stale")
    }))

  it.effect("checkPriorRead on a real file: a recycled record at another path does not count", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const cache = yield* makeFileReadCache()
      const file = w.file("b.txt", "one\n")
      const stats = fs.statSync(file)
      // the record an earlier file with this inode left (same size and mtime, born earlier)
      const earlier: FileIdentity = {
        dev: stats.dev,
        ino: stats.ino,
        size: stats.size,
        mtimeMs: stats.mtimeMs,
        birthtimeMs: stats.birthtimeMs > 0 ? stats.birthtimeMs - 1000 : 0
      }
      yield* cache.recordRead(path.join(w.root, "gone.txt"), earlier, { full: true, cacheable: true })
      const error = yield* Effect.flip(checkPriorRead(cache, file, "editing"))
      assert.strictEqual(error.code, "edit_requires_prior_read")
    }))
})
