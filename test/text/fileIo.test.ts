import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import { atomicWrite, hashFile, sha256Hex } from "../../src/text/atomicWrite.js"
import { byteLengthOf, hashContents, IO_CHUNK_BYTES, readHashed, sameContents, writeChunks } from "../../src/text/fileIo.js"
import { makeFileHistory } from "../../src/text/history.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-fileio-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Deterministic, non-repeating bytes, so a misplaced chunk changes the hash. */
const pattern = (size: number): Buffer => {
  const b = Buffer.alloc(size)
  for (let i = 0; i < size; i++) b[i] = (i * 7 + (i >>> 8)) & 0xff
  return b
}

const withHandle = <A>(file: string, f: (h: fsp.FileHandle) => Promise<A>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => fsp.open(file, "r")),
    (h) => Effect.promise(() => f(h)),
    (h) => Effect.promise(() => h.close())
  )

// Sizes at the edges of the 4 MiB read chunk and of the 4 KiB smallest one, written as real files.
const SIZES = [0, 1, 4095, 4096, 4097, 100_000, IO_CHUNK_BYTES - 1, IO_CHUNK_BYTES, IO_CHUNK_BYTES + 1, 2 * IO_CHUNK_BYTES + 1]

describe("chunked whole-file reads, hashes and writes", () => {
  it("the read and hash chunk is 4 MiB", () => {
    assert.strictEqual(IO_CHUNK_BYTES, 4 * 1024 * 1024)
  })

  it.live("readHashed, hashContents and sameContents: the exact bytes, their sha256 and the comparison at every chunk edge", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      for (const size of SIZES) {
        const file = path.join(dir, `f${size}`)
        const content = pattern(size)
        fs.writeFileSync(file, content)
        const read = yield* withHandle(file, (h) => readHashed(h, size))
        assert.isTrue(Buffer.from(read.bytes).equals(content), `bytes at ${size}`)
        assert.strictEqual(read.hash, sha256Hex(content), `hash at ${size}`)
        assert.strictEqual(yield* withHandle(file, hashContents), sha256Hex(content), `streamed hash at ${size}`)
        assert.strictEqual(yield* hashFile(file), sha256Hex(content))
        // sameContents: equal (also through a view into a larger buffer); one byte more, one byte
        // less, or a changed first or last byte is not.
        const same = (expected: Uint8Array) => withHandle(file, (h) => sameContents(h, expected))
        assert.isTrue(yield* same(content), `same at ${size}`)
        const padded = Buffer.concat([Buffer.from("xx"), content, Buffer.from("yy")])
        assert.isTrue(yield* same(padded.subarray(2, 2 + size)), `view at ${size}`)
        assert.isFalse(yield* same(Buffer.concat([content, Buffer.from("z")])), `shorter file at ${size}`)
        if (size === 0) continue
        assert.isFalse(yield* same(content.subarray(0, size - 1)), `longer file at ${size}`)
        for (const at of [0, size - 1]) {
          const changed = Buffer.from(content)
          changed[at] = changed[at]! ^ 1
          assert.isFalse(yield* same(changed), `byte ${at} changed at ${size}`)
        }
      }
      assert.isNull(yield* hashFile(path.join(dir, "missing")))
    }))

  it.live("readHashed stops at the size it was given, and at the end of a file that shrank", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "f")
      fs.writeFileSync(file, "0123456789")
      const part = yield* withHandle(file, (h) => readHashed(h, 4))
      assert.strictEqual(Buffer.from(part.bytes).toString(), "0123")
      assert.strictEqual(part.hash, sha256Hex(Buffer.from("0123")))
      const short = yield* withHandle(file, (h) => readHashed(h, 20))
      assert.strictEqual(Buffer.from(short.bytes).toString(), "0123456789")
      assert.strictEqual(short.hash, sha256Hex(Buffer.from("0123456789")))
    }))

  it.live("writeChunks writes chunks in order (empty ones too); atomicWrite takes chunks on both of its paths", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const big = pattern(IO_CHUNK_BYTES + 3)
      const chunks = [big.subarray(0, 10), new Uint8Array(0), Buffer.from("MIDDLE"), big.subarray(10)]
      const expected = Buffer.concat(chunks)
      assert.strictEqual(byteLengthOf(chunks), expected.length)
      const raw = path.join(dir, "raw")
      yield* Effect.acquireUseRelease(
        Effect.promise(() => fsp.open(raw, "w")),
        (h) => Effect.promise(() => writeChunks(h, chunks)),
        (h) => Effect.promise(() => h.close())
      )
      assert.isTrue(fs.readFileSync(raw).equals(expected))
      // Atomic path: temp file + rename.
      const file = path.join(dir, "a.txt")
      fs.writeFileSync(file, "old content that is longer than nothing")
      const atomic = yield* atomicWrite(file, chunks, { expectedHash: sha256Hex(fs.readFileSync(file)) })
      assert.strictEqual(atomic.method, "atomic")
      assert.strictEqual(atomic.bytes, expected.length)
      assert.isTrue(fs.readFileSync(file).equals(expected))
      // In-place path (a hard-linked file), truncated to the new length.
      const linked = path.join(dir, "linked.txt")
      fs.writeFileSync(linked, Buffer.alloc(expected.length + 100, 0x41))
      fs.linkSync(linked, path.join(dir, "other-name.txt"))
      const inPlace = yield* atomicWrite(linked, [Buffer.from("ab"), Buffer.from("c")], { expectedHash: sha256Hex(fs.readFileSync(linked)) })
      assert.strictEqual(inPlace.method, "in-place")
      assert.strictEqual(fs.readFileSync(path.join(dir, "other-name.txt"), "utf8"), "abc")
    }))

  it.effect("history reuses a hash the caller already has", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "h")
      const history = makeFileHistory({ dir })
      const given = yield* history.record("/w/a", Buffer.from("x"), "edit", "f".repeat(64))
      assert.strictEqual(given.sha256, "f".repeat(64))
      const computed = yield* history.record("/w/a", Buffer.from("x"), "edit")
      assert.strictEqual(computed.sha256, sha256Hex(Buffer.from("x")))
    }))
})

describe("writeChunks after a short write", () => {
  // A real file never writes short here; a filling disk does (POSIX: as many bytes as fit, then the
  // next write fails). This handle stands in for that disk and records what lands where.
  it("writes the rest from where the short writev stopped, chunk by chunk", async () => {
    const disk = Buffer.alloc(32, 0x2e)
    const calls: Array<string> = []
    const handle = {
      writev: async (chunks: ReadonlyArray<Uint8Array>, position: number | null) => {
        const all = Buffer.concat(chunks)
        const n = 7 // short: of 14 bytes, 7 land
        all.copy(disk, position ?? 0, 0, n)
        calls.push(`writev@${position}:${n}`)
        return { bytesWritten: n, buffers: chunks }
      },
      write: async (chunk: Uint8Array, offset: number, length: number, position: number) => {
        const n = Math.min(length, 3) // short again: at most 3 bytes per write
        Buffer.from(chunk).copy(disk, position, offset, offset + n)
        calls.push(`write@${position}:${n}`)
        return { bytesWritten: n, buffer: chunk }
      }
    }
    await writeChunks(handle as unknown as Parameters<typeof writeChunks>[0], [Buffer.from("abcde"), Buffer.from("fghij"), Buffer.from("klmn")])
    assert.strictEqual(disk.subarray(0, 14).toString(), "abcdefghijklmn")
    assert.strictEqual(disk[14], 0x2e)
    assert.deepStrictEqual(calls, ["writev@0:7", "write@7:3", "write@10:3", "write@13:1"])
  })
})
