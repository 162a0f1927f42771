import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { sha256Hex } from "../../src/text/fileIo.js"
import { makeFileHistory } from "../../src/text/history.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-history-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("file history", () => {
  it.effect("records before-images (and creations) and reads them back; files 0600 in a 0700 dir", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "s1")
      const history = makeFileHistory({ dir })
      const a = yield* history.record("/w/a.txt", Buffer.from("before"), "edit")
      const b = yield* history.record("/w/b.txt", null, "write_file")
      assert.strictEqual(Buffer.from((yield* history.read(a.id))!).toString(), "before")
      assert.isNull(yield* history.read(b.id))
      assert.deepStrictEqual((yield* history.entries).map((e) => [e.path, e.tool, e.existed]), [["/w/a.txt", "edit", true], ["/w/b.txt", "write_file", false]])
      assert.strictEqual(fs.statSync(dir).mode & 0o777, 0o700)
      assert.strictEqual(fs.statSync(path.join(dir, `${a.id}.bak`)).mode & 0o777, 0o600)
      assert.strictEqual(a.sha256?.length, 64)
      const bad = yield* Effect.flip(history.read("../../etc/passwd"))
      assert.strictEqual(bad.code, "EINVAL")
    }))

  it.effect("is bounded by entries (oldest go first), by bytes, and skips one file over its cap", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      const byCount = makeFileHistory({ dir: path.join(root, "count"), maxEntries: 3 })
      for (let i = 0; i < 5; i++) yield* byCount.record(`/w/${i}`, Buffer.from(`v${i}`), "edit")
      assert.deepStrictEqual((yield* byCount.entries).map((e) => e.path), ["/w/2", "/w/3", "/w/4"])
      assert.strictEqual(fs.readdirSync(path.join(root, "count")).length, 6)

      const byBytes = makeFileHistory({ dir: path.join(root, "bytes"), maxBytes: 10 })
      yield* byBytes.record("/w/a", Buffer.alloc(6), "edit")
      yield* byBytes.record("/w/b", Buffer.alloc(4), "edit")
      assert.strictEqual((yield* byBytes.entries).length, 2, "exactly at the cap")
      yield* byBytes.record("/w/c", Buffer.alloc(1), "edit")
      assert.deepStrictEqual((yield* byBytes.entries).map((e) => e.path), ["/w/b", "/w/c"])

      const capped = makeFileHistory({ dir: path.join(root, "cap"), maxFileBytes: 4 })
      const big = yield* capped.record("/w/big", Buffer.alloc(5), "edit")
      assert.strictEqual(big.skipped, "too_large")
      assert.isUndefined(big.sha256, "bytes not kept are not hashed")
      assert.isNull(yield* capped.read(big.id))
      const fits = yield* capped.record("/w/fits", Buffer.alloc(4), "edit")
      assert.isUndefined(fits.skipped)
      assert.strictEqual(fits.sha256, sha256Hex(Buffer.alloc(4)))
    }))

  it.effect("entries recorded within one millisecond still list oldest first", () =>
    Effect.gen(function*() {
      const history = makeFileHistory({ dir: path.join(yield* tempDir, "fast") })
      const paths = Array.from({ length: 40 }, (_, i) => `/w/${i}`)
      // Files that did not exist: no bytes to write, so records follow each other within microseconds.
      for (const p of paths) yield* history.record(p, null, "write_file")
      assert.deepStrictEqual((yield* history.entries).map((e) => e.path), paths)
    }))

  it.effect("two histories over one directory share it (state lives on disk)", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "shared")
      const one = makeFileHistory({ dir, maxEntries: 2 })
      const two = makeFileHistory({ dir, maxEntries: 2 })
      yield* one.record("/w/1", Buffer.from("1"), "edit")
      yield* two.record("/w/2", Buffer.from("2"), "write_file")
      yield* one.record("/w/3", Buffer.from("3"), "edit")
      assert.deepStrictEqual((yield* two.entries).map((e) => e.path), ["/w/2", "/w/3"])
    }))

  it.effect("the byte bound counts the other history's entries too (each stats an entry it has not seen)", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "shared-bytes")
      const one = makeFileHistory({ dir, maxBytes: 10 })
      const two = makeFileHistory({ dir, maxBytes: 10 })
      yield* one.record("/w/a", Buffer.alloc(4), "edit")
      yield* two.record("/w/b", Buffer.alloc(4), "edit")
      yield* one.record("/w/c", Buffer.alloc(4), "edit")
      // 12 bytes over 10: `one` learned b's size from the directory, so a goes.
      assert.deepStrictEqual((yield* one.entries).map((e) => e.path), ["/w/b", "/w/c"])
      yield* two.record("/w/d", Buffer.alloc(4), "edit")
      assert.deepStrictEqual((yield* two.entries).map((e) => e.path), ["/w/c", "/w/d"])
    }))

  it.effect("a history directory removed between records is created again", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "gone", "s1")
      const history = makeFileHistory({ dir, maxBytes: 10 })
      yield* history.record("/w/a", Buffer.alloc(6), "edit")
      fs.rmSync(path.dirname(dir), { recursive: true })
      const b = yield* history.record("/w/b", Buffer.alloc(6), "edit")
      assert.deepStrictEqual((yield* history.entries).map((e) => e.path), ["/w/b"])
      assert.strictEqual(fs.statSync(dir).mode & 0o777, 0o700)
      assert.strictEqual(Buffer.from((yield* history.read(b.id))!).length, 6)
    }))
})
