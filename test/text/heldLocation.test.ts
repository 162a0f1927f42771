import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { readForChangeHeld, withWriteTarget } from "../../src/text/atomicWrite.js"
import { fdPathsSupported } from "../../src/text/beneath.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-held-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Reads `file` holding its location, runs `between`, then writes `next` there (compare-and-swap on what was read). */
const readThenWrite = (root: string, file: string, next: string, between: () => void) =>
  Effect.gen(function*() {
    const read = yield* readForChangeHeld(file, [root], 1024)
    const bytes = Option.getOrThrow(Option.flatMap(read.found, (f) => f.bytes))
    between()
    const written = yield* withWriteTarget(file, { within: [root], reuse: Option.getOrUndefined(read.location) }, (target) =>
      target.write(Buffer.from(next), { expectedBytes: bytes }))
    return { read, written }
  })

describe.runIf(fdPathsSupported)("a write in the scope of the read that located the file", () => {
  it.effect("lands in the directory the read found, even when a link on the path was retargeted since", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      for (const d of ["a", "b"]) {
        fs.mkdirSync(path.join(root, d))
        fs.writeFileSync(path.join(root, d, "f.txt"), "same\n")
      }
      fs.symlinkSync("a", path.join(root, "link"))
      const { read, written } = yield* Effect.scoped(readThenWrite(root, path.join(root, "link", "f.txt"), "new\n", () => {
        fs.unlinkSync(path.join(root, "link"))
        fs.symlinkSync("b", path.join(root, "link"))
      }))
      assert.isTrue(Option.isSome(read.location))
      assert.strictEqual(written.path, path.join(root, "a", "f.txt"))
      assert.strictEqual(fs.readFileSync(path.join(root, "a", "f.txt"), "utf8"), "new\n")
      assert.strictEqual(fs.readFileSync(path.join(root, "b", "f.txt"), "utf8"), "same\n")
      assert.deepStrictEqual(fs.readdirSync(path.join(root, "a")).sort(), ["f.txt"])
    }))

  it.effect("walks the path again when the directory the read found was moved since", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      fs.mkdirSync(path.join(root, "src"))
      fs.writeFileSync(path.join(root, "src", "f.txt"), "same\n")
      const { written } = yield* Effect.scoped(readThenWrite(root, path.join(root, "src", "f.txt"), "new\n", () => {
        fs.renameSync(path.join(root, "src"), path.join(root, "moved"))
        fs.mkdirSync(path.join(root, "src"))
        fs.writeFileSync(path.join(root, "src", "f.txt"), "same\n")
      }))
      assert.strictEqual(written.path, path.join(root, "src", "f.txt"))
      assert.strictEqual(fs.readFileSync(path.join(root, "src", "f.txt"), "utf8"), "new\n")
      assert.strictEqual(fs.readFileSync(path.join(root, "moved", "f.txt"), "utf8"), "same\n")
    }))

  it.effect("a location whose scope has ended is not used (its directory is closed): the path is walked again", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      fs.mkdirSync(path.join(root, "src"))
      const file = path.join(root, "src", "f.txt")
      fs.writeFileSync(file, "old\n")
      const read = yield* Effect.scoped(readForChangeHeld(file, [root], 1024))
      const location = Option.getOrThrow(read.location)
      assert.isFalse(location.reusable())
      const written = yield* withWriteTarget(file, { within: [root], reuse: location }, (target) =>
        target.write(Buffer.from("new\n"), { expectedBytes: Buffer.from("old\n") }))
      assert.strictEqual(written.method, "atomic")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "new\n")
    }))

  it.effect("a missing parent directory leaves no location; the write creates it", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      const file = path.join(root, "new", "f.txt")
      const written = yield* Effect.scoped(Effect.gen(function*() {
        const read = yield* readForChangeHeld(file, [root], 1024)
        assert.isTrue(Option.isNone(read.found))
        assert.isTrue(Option.isNone(read.location))
        return yield* withWriteTarget(file, { within: [root], createParents: true, reuse: Option.getOrUndefined(read.location) }, (target) =>
          target.write(Buffer.from("x\n"), { expectedBytes: null }))
      }))
      assert.strictEqual(written.path, file)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "x\n")
    }))
  it.effect("a final link is followed inside the roots (the read walks again when its open meets the link) and refused out of them", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      const outside = yield* tempDir
      fs.mkdirSync(path.join(root, "real"))
      fs.writeFileSync(path.join(root, "real", "f.txt"), "inside\n")
      fs.symlinkSync(path.join(root, "real", "f.txt"), path.join(root, "link.txt"))
      fs.writeFileSync(path.join(outside, "secret.txt"), "secret\n")
      fs.symlinkSync(path.join(outside, "secret.txt"), path.join(root, "out.txt"))
      const { read, written } = yield* Effect.scoped(readThenWrite(root, path.join(root, "link.txt"), "new\n", () => {}))
      assert.strictEqual(Option.getOrThrow(read.location).dirPath, path.join(root, "real"))
      assert.strictEqual(written.path, path.join(root, "real", "f.txt"))
      assert.strictEqual(fs.readFileSync(path.join(root, "real", "f.txt"), "utf8"), "new\n")
      assert.isTrue(fs.lstatSync(path.join(root, "link.txt")).isSymbolicLink())
      const refused = yield* Effect.flip(Effect.scoped(readForChangeHeld(path.join(root, "out.txt"), [root], 1024)))
      assert.strictEqual(refused._tag, "FileChangedSinceRead")
      assert.include(refused.message, "out of every workspace root")
    }))
  it.effect("the compare-and-swap reads through the descriptor the read kept while the name names that file, else by name", () =>
    Effect.gen(function*() {
      const root = yield* tempDir
      const file = path.join(root, "f.txt")
      /** Reads the file, lets `between` act on it, then writes with the kept descriptor as `expectedIn`. */
      const attempt = (between: () => void) =>
        Effect.scoped(Effect.gen(function*() {
          const read = yield* readForChangeHeld(file, [root], 1024)
          const found = Option.getOrThrow(read.found)
          between()
          return yield* withWriteTarget(file, { within: [root], reuse: Option.getOrUndefined(read.location) }, (target) =>
            target.write(Buffer.from("mine\n"), { expectedBytes: Option.getOrThrow(found.bytes), expectedIn: found.held }))
        })).pipe(Effect.result)
      const reset = () => fs.writeFileSync(file, "old\n")
      // Rewritten in place (the same inode): seen through the descriptor.
      reset()
      const inPlace = yield* attempt(() => fs.writeFileSync(file, "new\n"))
      assert.isTrue(inPlace._tag === "Failure" && inPlace.failure._tag === "FileChangedSinceRead")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "new\n")
      // Replaced by another file with the same bytes: compared by name, the write goes ahead (as before).
      reset()
      const same = yield* attempt(() => {
        fs.writeFileSync(path.join(root, "other"), "old\n")
        fs.renameSync(path.join(root, "other"), file)
      })
      assert.strictEqual(same._tag, "Success")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "mine\n")
      // Replaced by another file with other bytes, or deleted: refused, nothing written.
      reset()
      const replaced = yield* attempt(() => {
        fs.writeFileSync(path.join(root, "other"), "theirs\n")
        fs.renameSync(path.join(root, "other"), file)
      })
      assert.isTrue(replaced._tag === "Failure" && replaced.failure._tag === "FileChangedSinceRead")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "theirs\n")
      reset()
      const deleted = yield* attempt(() => fs.rmSync(file))
      assert.isTrue(deleted._tag === "Failure" && deleted.failure.message.includes("was deleted"))
      assert.isFalse(fs.existsSync(file))
      // Unchanged: written.
      reset()
      assert.strictEqual((yield* attempt(() => {}))._tag, "Success")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "mine\n")
      assert.deepStrictEqual(fs.readdirSync(root).sort(), ["f.txt"])
    }))
})
