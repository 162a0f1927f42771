// How OutputStore writes: small outputs whole, larger ones chunk by chunk through reused buffers,
// reservations made before the write. Every path is checked against real files.
import * as nodeFs from "node:fs/promises"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { sha, withStore } from "./support/store.js"
import { Effect, FileSystem, Path } from "effect"
import fc from "fast-check"
import {
  bufferPool,
  chunkEnd,
  encodeChunk,
  MAX_IDLE_BUFFERS,
  SMALL_SAVE_BYTES,
  WRITE_BUFFER_BYTES
} from "../../src/output/encode.js"
import { encodeUtf8, OutputStore, utf8Bytes } from "../../src/output/index.js"

const withStoreHere: typeof withStore = (options, body) => withStore(options, body, ["outputs"])

const SEED = 20261202


const bytesOf = (file: string) => Effect.promise(() => nodeFs.readFile(file))

/** Saves `content` and checks the file, its mode and the record against the content. */
const saveAndCheck = (store: OutputStore["Service"], content: string) =>
  Effect.gen(function*() {
    const saved = yield* store.persist("shell", content)
    const expected = Buffer.from(content, "utf8")
    assert.isTrue((yield* bytesOf(saved.path)).equals(expected), `file of ${content.length} chars`)
    assert.strictEqual(saved.bytes, expected.length)
    assert.strictEqual(saved.sha256, sha(content))
    assert.strictEqual(((yield* Effect.promise(() => nodeFs.stat(saved.path))).mode & 0o777), 0o600)
    return saved
  })

describe("OutputStore writes", () => {
  it.effect("small saves (whole) and chunked saves, at and just past each threshold", () =>
    withStoreHere({}, (store) =>
      Effect.gen(function*() {
        for (
          const size of [
            1,
            SMALL_SAVE_BYTES - 1,
            SMALL_SAVE_BYTES,
            SMALL_SAVE_BYTES + 1,
            WRITE_BUFFER_BYTES - 1,
            WRITE_BUFFER_BYTES,
            WRITE_BUFFER_BYTES + 1,
            3 * WRITE_BUFFER_BYTES + 5
          ]
        ) {
          const content = ("0123456789abcde\n".repeat(Math.ceil(size / 16))).slice(0, size)
          const saved = yield* saveAndCheck(store, content)
          assert.strictEqual(saved.lines, Math.ceil(size / 16))
        }
        assert.strictEqual((yield* store.list).length, 8)
        const dir = store.dir
        assert.deepStrictEqual((yield* Effect.promise(() => nodeFs.readdir(dir))).filter((f) => f.endsWith(".tmp")), [])
      })))

  it.effect("non-ASCII text: chunks never split a surrogate pair; lone surrogates are written as U+FFFD, as Buffer.from does", () =>
    withStoreHere({}, (store) =>
      Effect.gen(function*() {
        const perChunk = Math.floor(WRITE_BUFFER_BYTES / 3)
        // A pair straddling the first chunk boundary, a lone high surrogate at the second, a lone low one after.
        const content = "é".repeat(perChunk - 1) + "😀" + "ü".repeat(perChunk - 2) + "\ud800" + "\udc00" + "x".repeat(10) + "\udc00"
        assert.notStrictEqual(utf8Bytes(content), content.length)
        assert.isAbove(utf8Bytes(content), SMALL_SAVE_BYTES)
        yield* saveAndCheck(store, content)
        // Just over the small-save limit in bytes, with few characters.
        yield* saveAndCheck(store, "€".repeat(Math.floor(SMALL_SAVE_BYTES / 3) + 1))
        yield* saveAndCheck(store, "€".repeat(Math.floor(SMALL_SAVE_BYTES / 3)))
      })))

  it.effect("a directory removed during the session is made again by the next save, small or chunked", () =>
    withStoreHere({}, (store, dir) =>
      Effect.gen(function*() {
        yield* saveAndCheck(store, "first")
        yield* Effect.promise(() => nodeFs.rm(dir, { recursive: true }))
        yield* saveAndCheck(store, "small after removal")
        yield* Effect.promise(() => nodeFs.rm(dir, { recursive: true }))
        yield* saveAndCheck(store, "y".repeat(WRITE_BUFFER_BYTES + 7))
        assert.strictEqual(((yield* Effect.promise(() => nodeFs.stat(dir))).mode & 0o777), 0o700)
        assert.strictEqual((yield* store.usage).usedBytes, 5 + 19 + WRITE_BUFFER_BYTES + 7)
      })))
})

describe("OutputStore.reserve", () => {
  it.effect("checks both caps when made, writes once, and gives the room back when cancelled", () =>
    withStoreHere({ maxFileBytes: 100, maxSessionBytes: 150 }, (store) =>
      Effect.gen(function*() {
        const tooLarge = yield* Effect.flip(store.reserve("t", "x".repeat(101)))
        assert.strictEqual(tooLarge._tag, "OutputTooLarge")
        const a = yield* store.reserve("t", "a".repeat(100))
        assert.strictEqual(a.bytes, 100)
        assert.strictEqual((yield* store.usage).usedBytes, 100)
        const over = yield* Effect.flip(store.reserve("t", "b".repeat(51)))
        assert.strictEqual(over._tag, "SessionBudgetExhausted")
        const b = yield* store.reserve("t", "b".repeat(50))
        assert.strictEqual((yield* store.usage).usedBytes, 150)
        // Nothing is written before `save`.
        assert.deepStrictEqual(yield* store.list, [])
        const saved = yield* a.save
        assert.strictEqual(saved.bytes, 100)
        assert.strictEqual((yield* Effect.promise(() => nodeFs.readFile(saved.path, "utf8"))), "a".repeat(100))
        const again = yield* Effect.flip(a.save)
        assert.strictEqual(again._tag, "OutputWriteFailed")
        assert.match(again.message, /already run/)
        yield* a.cancel
        assert.strictEqual((yield* store.usage).usedBytes, 150, "cancelling a save that ran changes nothing")
        yield* b.cancel
        assert.strictEqual((yield* store.usage).usedBytes, 100)
        yield* b.cancel
        assert.strictEqual((yield* store.usage).usedBytes, 100, "cancelling twice gives the room back once")
        const cancelled = yield* Effect.flip(b.save)
        assert.match(cancelled.message, /cancelled/)
        assert.strictEqual((yield* store.list).length, 1)
      })))

  it.effect("a failed write gives the room back", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.makeTempDirectoryScoped({ prefix: "toolwright-save-" })
      yield* fs.writeFileString(path.join(root, "file"), "")
      yield* Effect.gen(function*() {
        const store = yield* OutputStore
        for (const content of ["small", "z".repeat(WRITE_BUFFER_BYTES * 2)]) {
          const r = yield* store.reserve("t", content)
          const error = yield* Effect.flip(r.save)
          assert.strictEqual(error._tag, "OutputWriteFailed")
          assert.strictEqual((yield* store.usage).usedBytes, 0)
        }
      }).pipe(Effect.provide(OutputStore.layer({ dir: path.join(root, "file", "outputs") })))
    }).pipe(Effect.provide(NodeServices.layer), Effect.scoped))
})

describe("encoding helpers", () => {
  it("encodeUtf8 gives the bytes of Buffer.from(text, 'utf8') for any text (ASCII through Latin-1)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: "binary" }), fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) })), (text) => {
        assert.isTrue(encodeUtf8(text).equals(Buffer.from(text, "utf8")))
      }),
      { seed: SEED, numRuns: 500 }
    )
  })

  it("chunks encoded one after the other give the whole text's UTF-8 bytes, for any buffer size", () => {
    const unit = fc.oneof(
      fc.constantFrom("a", "é", "€", "😀", "\ud800", "\udc00", "\n"),
      fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c))
    )
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 200 }).map((u) => u.join("")), fc.integer({ min: 4, max: 40 }), (text, size) => {
        const ascii = utf8Bytes(text) === text.length
        const buffer = Buffer.alloc(size)
        const parts: Array<Buffer> = []
        for (let start = 0; start < text.length;) {
          const end = chunkEnd(text, start, ascii, size)
          assert.isAbove(end, start)
          parts.push(Buffer.from(buffer.subarray(0, encodeChunk(buffer, text, start, end, ascii))))
          start = end
        }
        assert.isTrue(Buffer.concat(parts).equals(Buffer.from(text, "utf8")))
      }),
      { seed: SEED, numRuns: 500 }
    )
  })

  it("the buffer pool reuses buffers, keeps at most MAX_IDLE_BUFFERS during a burst and one after it", () => {
    const pool = bufferPool()
    pool.begin()
    const first = pool.take()
    assert.strictEqual(first.length, WRITE_BUFFER_BYTES)
    pool.give(first)
    assert.strictEqual(pool.take(), first)
    const taken = [first, ...Array.from({ length: MAX_IDLE_BUFFERS + 2 }, () => pool.take())]
    assert.strictEqual(new Set(taken).size, taken.length)
    for (const b of taken) pool.give(b)
    const idle = Array.from({ length: MAX_IDLE_BUFFERS + 1 }, () => pool.take())
    assert.strictEqual(idle.filter((b) => taken.includes(b)).length, MAX_IDLE_BUFFERS)
    for (const b of idle) pool.give(b)
    pool.end()
    pool.begin()
    const kept = [pool.take(), pool.take()]
    assert.strictEqual(kept.filter((b) => idle.includes(b)).length, 1)
    pool.end()
  })
})
