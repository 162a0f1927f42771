import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import {
  callSteps,
  createExclusive,
  createSmallFile,
  describeDiskError,
  diskError,
  ifExists,
  lstat,
  open,
  readdirOfState,
  readText,
  remove,
  removeFile,
  removeFileIfInode,
  SMALL_WRITE_BYTES,
  sizesOf,
  stat,
  useOpened,
  writeFileAtomic,
  writeSmallFile
} from "../../src/disk/index.js"

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-disk-")))

describe("disk: the one adapter over node:fs", () => {
  it.effect("a failure is a DiskError carrying op, path and errno; ifExists turns ENOENT into undefined", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const missing = path.join(dir, "nope.txt")
      const e = yield* Effect.flip(readText(missing))
      assert.strictEqual(e._tag, "DiskError")
      assert.strictEqual(e.op, "read")
      assert.strictEqual(e.path, missing)
      assert.strictEqual(e.code, "ENOENT")
      assert.strictEqual(describeDiskError(e), `read ${missing}: ENOENT`)
      assert.isUndefined(yield* ifExists(readText(missing)))
      // ENOTDIR is not "missing" here: only ENOENT is swallowed.
      fs.writeFileSync(path.join(dir, "f"), "x")
      const notDir = yield* Effect.flip(ifExists(readText(path.join(dir, "f", "g"))))
      assert.strictEqual(notDir.code, "ENOTDIR")
    }))

  it.effect("a descriptor path in Node's text is replaced by the real directory", () =>
    Effect.sync(() => {
      const cause = Object.assign(new Error("EACCES: permission denied, open '/proc/self/fd/17/a.txt'"), { code: "EACCES" })
      const e = diskError("open", "/w/a.txt", cause, "/w")
      assert.strictEqual(e.message, "EACCES: permission denied, open '/w/a.txt'")
      assert.strictEqual(e.code, "EACCES")
    }))

  it.effect("createExclusive creates once (O_EXCL) with the given mode; writeFileAtomic replaces without a temp file left", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "state.json")
      assert.isTrue(yield* createExclusive(file, "one", 0o600))
      assert.isFalse(yield* createExclusive(file, "two", 0o600))
      assert.strictEqual(fs.readFileSync(file, "utf8"), "one")
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      yield* writeFileAtomic(file, "three", 0o600)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "three")
      assert.deepStrictEqual(fs.readdirSync(dir), ["state.json"])
      // A rename onto a directory fails, and the temp file is removed.
      fs.mkdirSync(path.join(dir, "sub"))
      const e = yield* Effect.flip(writeFileAtomic(path.join(dir, "sub"), "x", 0o600))
      assert.strictEqual(e.op, "rename")
      assert.deepStrictEqual(fs.readdirSync(dir).sort(), ["state.json", "sub"])
    }))

  it.effect("open closes with its scope; remove ignores a missing path; sizesOf counts a missing file as 0", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "a.txt")
      fs.writeFileSync(file, "12345")
      const handle = yield* Effect.scoped(Effect.tap(open(file, "r"), (h) => Effect.sync(() => assert.isAbove(h.fd, -1))))
      assert.strictEqual(handle.fd, -1, "the descriptor was closed with the scope")
      assert.deepStrictEqual(yield* sizesOf([file, path.join(dir, "gone")]), [5, 0])
      yield* remove(path.join(dir, "gone"))
      yield* remove(file)
      assert.strictEqual((yield* Effect.flip(lstat(file))).code, "ENOENT")
    }))

  it.effect("the synchronous calls fail like the others: createSmallFile (O_EXCL) once, writeSmallFile at both sizes, stat of a missing path", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const lock = path.join(dir, ".lock")
      const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL
      yield* createSmallFile(lock, flags, 0o600, "1 2\n")
      assert.strictEqual(fs.readFileSync(lock, "utf8"), "1 2\n")
      assert.strictEqual(fs.statSync(lock).mode & 0o777, 0o600)
      const again = yield* Effect.flip(createSmallFile(lock, flags, 0o600, "3 4\n"))
      assert.deepStrictEqual([again._tag, again.op, again.code, again.path], ["DiskError", "open", "EEXIST", lock])
      assert.strictEqual(fs.readFileSync(lock, "utf8"), "1 2\n")
      for (const size of [10, SMALL_WRITE_BYTES + 1]) {
        const file = path.join(dir, `w${size}`)
        yield* writeSmallFile(file, Buffer.alloc(size, 7), { mode: 0o600 })
        assert.strictEqual(fs.statSync(file).size, size)
        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      }
      const noDir = yield* Effect.flip(writeSmallFile(path.join(dir, "none", "x"), "x"))
      assert.deepStrictEqual([noDir.op, noDir.code], ["write", "ENOENT"])
      const missing = yield* Effect.flip(stat(path.join(dir, "nope")))
      assert.deepStrictEqual([missing.op, missing.code], ["stat", "ENOENT"])
    }))
  it.effect("removeFile unlinks one file (a missing one is no error, a directory is refused); readdirOfState lists names", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "a.lock")
      fs.writeFileSync(file, "x")
      assert.deepStrictEqual(yield* readdirOfState(dir), ["a.lock"])
      yield* removeFile(file)
      assert.isFalse(fs.existsSync(file))
      yield* removeFile(file)
      fs.mkdirSync(path.join(dir, "sub"))
      const refused = yield* Effect.flip(removeFile(path.join(dir, "sub"), "shown/sub"))
      assert.strictEqual(refused.op, "rm")
      assert.strictEqual(refused.path, "shown/sub")
      assert.include(["EISDIR", "EPERM"], refused.code)
      assert.isTrue(fs.statSync(path.join(dir, "sub")).isDirectory())
      const gone = yield* Effect.flip(readdirOfState(path.join(dir, "nope")))
      assert.strictEqual(gone.code, "ENOENT")
    }))
  it.effect("one step for several calls: a failure names the call under way; useOpened closes what it opened; removeFileIfInode removes only that inode", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      const file = path.join(dir, "f.txt")
      const created = yield* createSmallFile(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600, "owner\n")
      assert.strictEqual(created.ino, fs.lstatSync(file).ino)
      assert.strictEqual(created.size, 6)
      const failed = yield* Effect.flip(callSteps(file, async (at) => {
        at("first")
        await fs.promises.lstat(file)
        at("second")
        await fs.promises.readFile(path.join(dir, "missing"))
      }))
      assert.deepStrictEqual([failed.op, failed.code, failed.path], ["second", "ENOENT", file])
      const opened = yield* useOpened(file, "r", async (handle) => ({ fd: handle.fd, handle, text: (await handle.readFile()).toString() }))
      assert.strictEqual(opened.text, "owner\n")
      assert.strictEqual(opened.handle.fd, -1)
      const refused = yield* Effect.flip(useOpened(path.join(dir, "none"), "r", async () => 1, { op: "read", shownAs: "shown" }))
      assert.deepStrictEqual([refused.op, refused.path, refused.code], ["read", "shown", "ENOENT"])
      const other = fs.lstatSync(file).ino + 1
      assert.isFalse(yield* removeFileIfInode(file, other))
      assert.isTrue(fs.existsSync(file))
      assert.isTrue(yield* removeFileIfInode(file, fs.lstatSync(file).ino))
      assert.isFalse(fs.existsSync(file))
      assert.isFalse(yield* removeFileIfInode(file, 1))
    }))
})
