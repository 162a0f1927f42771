import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Fiber } from "effect"
import { atomicWrite, hashFile, sha256Hex } from "../../src/text/atomicWrite.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-atomic-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

const bytes = (s: string) => Buffer.from(s)

describe("atomicWrite", () => {
  it.effect("creates a file with the umask's mode and leaves no temp file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "new.txt")
      const r = yield* atomicWrite(file, bytes("hello"), { expectedHash: null })
      assert.strictEqual(fs.readFileSync(file, "utf8"), "hello")
      assert.strictEqual(r.method, "atomic")
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o666 & ~process.umask())
      assert.deepStrictEqual(fs.readdirSync(dir), ["new.txt"])
    }))

  it.effect("compare-and-swap: an equal-size rewrite within the same mtime is caught, nothing written", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "cas.txt")
      fs.writeFileSync(file, "version A\n")
      fs.utimesSync(file, 1_700_000_000, 1_700_000_000)
      const seen = sha256Hex(fs.readFileSync(file))
      const before = fs.statSync(file)
      fs.writeFileSync(file, "version B\n") // someone else, same size
      fs.utimesSync(file, 1_700_000_000, 1_700_000_000) // same mtime
      const after = fs.statSync(file)
      assert.strictEqual(after.mtimeMs, before.mtimeMs)
      assert.strictEqual(after.size, before.size)
      const e = yield* Effect.flip(atomicWrite(file, bytes("version C\n"), { expectedHash: seen }))
      assert.strictEqual(e._tag, "FileChangedSinceRead")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "version B\n")
      assert.deepStrictEqual(fs.readdirSync(dir), ["cas.txt"])
    }))

  it.effect("compare-and-swap: a file created or deleted behind our back is caught", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "x.txt")
      fs.writeFileSync(file, "theirs")
      const created = yield* Effect.flip(atomicWrite(file, bytes("mine"), { expectedHash: null }))
      assert.include(created.message, "was created by someone else")
      fs.rmSync(file)
      const deleted = yield* Effect.flip(atomicWrite(file, bytes("mine"), { expectedHash: sha256Hex(bytes("theirs")) }))
      assert.include(deleted.message, "was deleted")
      assert.isFalse(fs.existsSync(file))
    }))

  it.effect("compare-and-swap on bytes: the same check without hashing, on both write paths", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "b.txt")
      fs.writeFileSync(file, "version A\n")
      const seen = fs.readFileSync(file)
      fs.writeFileSync(file, "version B\n") // same size, different bytes
      const changed = yield* Effect.flip(atomicWrite(file, bytes("version C\n"), { expectedBytes: seen }))
      assert.strictEqual(changed._tag, "FileChangedSinceRead")
      assert.include(changed.message, "was modified")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "version B\n")
      // Bytes win over a hash given with them.
      const ok = yield* atomicWrite(file, bytes("version C\n"), { expectedBytes: fs.readFileSync(file), expectedHash: "not it" })
      assert.strictEqual(ok.method, "atomic")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "version C\n")
      // A hard-linked file is written in place, after the same check.
      fs.linkSync(file, path.join(dir, "link.txt"))
      const inPlace = yield* Effect.flip(atomicWrite(file, bytes("D"), { expectedBytes: bytes("version B\n") }))
      assert.strictEqual(inPlace._tag, "FileChangedSinceRead")
      const written = yield* atomicWrite(file, bytes("D"), { expectedBytes: bytes("version C\n") })
      assert.strictEqual(written.method, "in-place")
      assert.strictEqual(fs.readFileSync(path.join(dir, "link.txt"), "utf8"), "D")
      // null: the file must not exist; deleted behind our back is caught too.
      const created = yield* Effect.flip(atomicWrite(file, bytes("mine"), { expectedBytes: null }))
      assert.include(created.message, "was created by someone else")
      const fresh = path.join(dir, "fresh.txt")
      yield* atomicWrite(fresh, bytes("new"), { expectedBytes: null })
      fs.rmSync(fresh)
      const deleted = yield* Effect.flip(atomicWrite(fresh, bytes("again"), { expectedBytes: bytes("new") }))
      assert.include(deleted.message, "was deleted")
      assert.isFalse(fs.existsSync(fresh))
    }))

  it.effect("keeps mode and owner; follows a symlink chain, dangling or not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const target = path.join(dir, "target.txt")
      fs.writeFileSync(target, "old")
      fs.chownSync(target, 65534, 65534)
      fs.chmodSync(target, 0o4755)
      fs.symlinkSync("target.txt", path.join(dir, "l1"))
      fs.symlinkSync("l1", path.join(dir, "l2"))
      const r = yield* atomicWrite(path.join(dir, "l2"), bytes("new"), { expectedHash: yield* hashFile(target) })
      assert.strictEqual(r.path, target)
      assert.strictEqual(fs.readFileSync(target, "utf8"), "new")
      const st = fs.statSync(target)
      assert.strictEqual(st.mode & 0o7777, 0o4755)
      assert.strictEqual(st.uid, 65534)
      assert.isTrue(fs.lstatSync(path.join(dir, "l2")).isSymbolicLink())
      fs.symlinkSync("sub/created.txt", path.join(dir, "dangling"))
      fs.mkdirSync(path.join(dir, "sub"))
      yield* atomicWrite(path.join(dir, "dangling"), bytes("through"), { expectedHash: null })
      assert.strictEqual(fs.readFileSync(path.join(dir, "sub", "created.txt"), "utf8"), "through")
    }))

  it.effect("EISDIR for a directory target; an error for a special file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      fs.mkdirSync(path.join(dir, "d"))
      const e = yield* Effect.flip(atomicWrite(path.join(dir, "d"), bytes("x")))
      assert.strictEqual(e._tag === "DiskError" && e.code, "EISDIR")
      const dev = yield* Effect.flip(atomicWrite("/dev/null", bytes("x")))
      assert.strictEqual(dev._tag, "DiskError")
    }))

  it.effect("a directory that refuses new entries: the writable file is written in place", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const sub = path.join(dir, "locked")
      fs.mkdirSync(sub)
      const file = path.join(sub, "f.txt")
      fs.writeFileSync(file, "before")
      // chattr +i on the directory: its files stay writable, but no entry may be created or renamed.
      const { execFileSync } = yield* Effect.promise(() => import("node:child_process"))
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("chattr", ["+i", sub])),
        () => Effect.sync(() => execFileSync("chattr", ["-i", sub]))
      )
      const r = yield* atomicWrite(file, bytes("after!"), { expectedHash: sha256Hex(bytes("before")) })
      assert.strictEqual(r.method, "in-place")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "after!")
    }))

  it.live("an interrupted write leaves the old content and no temp file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "big.bin")
      fs.writeFileSync(file, "old")
      const fiber = yield* Effect.forkChild(atomicWrite(file, Buffer.alloc(64 * 1024 * 1024, 1)))
      yield* Effect.sleep("1 millis")
      yield* Fiber.interrupt(fiber)
      const content = fs.readFileSync(file)
      assert.isTrue(content.toString() === "old" || content.length === 64 * 1024 * 1024)
      assert.deepStrictEqual(fs.readdirSync(dir), ["big.bin"])
    }))

  it.effect("beforeReplace runs once, after the temp file is written and before the file changes, on both write paths", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "hooked.txt")
      fs.writeFileSync(file, "old")
      const seen: Array<{ readonly content: string; readonly entries: ReadonlyArray<string> }> = []
      const beforeReplace = Effect.sync(() => {
        seen.push({ content: fs.readFileSync(file, "utf8"), entries: fs.readdirSync(dir).sort() })
      })
      const atomic = yield* atomicWrite(file, bytes("new"), { expectedBytes: bytes("old"), beforeReplace })
      assert.strictEqual(atomic.method, "atomic")
      assert.strictEqual(seen.length, 1)
      assert.strictEqual(seen[0]!.content, "old")
      // The temp file holds the new bytes already: only the check and the rename are left.
      const temp = seen[0]!.entries.find((n) => n.endsWith(".tmp"))
      assert.isDefined(temp)
      fs.linkSync(file, path.join(dir, "link.txt"))
      const inPlace = yield* atomicWrite(file, bytes("newer"), { expectedBytes: bytes("new"), beforeReplace })
      assert.strictEqual(inPlace.method, "in-place")
      assert.strictEqual(seen.length, 2)
      assert.strictEqual(seen[1]!.content, "new")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "newer")
    }))
})
