/**
 * The descriptor walk of beneath.ts, and atomicWrite on top of it: links inside the roots are
 * followed, links (or `..`) out of them are not, loops end, and a directory swapped for a link
 * after the walk does not move the write.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"
import { atomicWrite } from "../../src/text/atomicWrite.js"
import { fdPathsSupported, openBeneath } from "../../src/text/beneath.js"

const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** A root with `real/f.txt`, and a directory outside it with `f.txt`. */
const setup = Effect.gen(function*() {
  const root = yield* tempDir("tw-beneath-")
  const outside = yield* tempDir("tw-beneath-out-")
  fs.mkdirSync(path.join(root, "real"))
  fs.writeFileSync(path.join(root, "real", "f.txt"), "inside\n")
  fs.writeFileSync(path.join(outside, "f.txt"), "outside\n")
  return { root, outside }
})

const walk = (roots: ReadonlyArray<string>, file: string, createParents = false) =>
  Effect.scoped(
    Effect.map(openBeneath(roots, file, { createParents }), (t) => ({
      dirPath: t.dirPath,
      name: t.name,
      exists: Option.isSome(t.stats)
    }))
  )

describe.runIf(fdPathsSupported)("openBeneath", () => {
  it.effect("follows a directory link and a file link that stay inside the root", () =>
    Effect.gen(function*() {
      const { root } = yield* setup
      fs.symlinkSync("real", path.join(root, "dirlink"))
      fs.symlinkSync(path.join(root, "real", "f.txt"), path.join(root, "filelink"))
      assert.deepStrictEqual(yield* walk([root], path.join(root, "dirlink", "f.txt")), {
        dirPath: path.join(root, "real"),
        name: "f.txt",
        exists: true
      })
      assert.deepStrictEqual(yield* walk([root], path.join(root, "filelink")), {
        dirPath: path.join(root, "real"),
        name: "f.txt",
        exists: true
      })
    }))

  it.effect("a dangling link resolves to the name it points at; missing parents are created only when asked", () =>
    Effect.gen(function*() {
      const { root } = yield* setup
      fs.symlinkSync("real/new.txt", path.join(root, "dangling"))
      assert.deepStrictEqual(yield* walk([root], path.join(root, "dangling")), {
        dirPath: path.join(root, "real"),
        name: "new.txt",
        exists: false
      })
      const missing = yield* Effect.flip(walk([root], path.join(root, "a", "b", "c.txt")))
      assert.strictEqual(missing.reason, "missing")
      assert.isFalse(fs.existsSync(path.join(root, "a")))
      const created = yield* walk([root], path.join(root, "a", "b", "c.txt"), true)
      assert.deepStrictEqual(created, { dirPath: path.join(root, "a", "b"), name: "c.txt", exists: false })
      assert.isTrue(fs.statSync(path.join(root, "a", "b")).isDirectory())
    }))

  it.effect("a link loop ends with reason loop (ELOOP)", () =>
    Effect.gen(function*() {
      const { root } = yield* setup
      fs.symlinkSync("l2", path.join(root, "l1"))
      fs.symlinkSync("l1", path.join(root, "l2"))
      const e = yield* Effect.flip(walk([root], path.join(root, "l1", "f.txt")))
      assert.strictEqual(e.reason, "loop")
      assert.strictEqual(e.code, "ELOOP")
      const final = yield* Effect.flip(walk([root], path.join(root, "l1")))
      assert.strictEqual(final.reason, "loop")
    }))

  it.effect("links out of the root (absolute, relative with .., final file link) are not followed", () =>
    Effect.gen(function*() {
      const { root, outside } = yield* setup
      fs.symlinkSync(outside, path.join(root, "abs"))
      fs.symlinkSync(path.relative(root, outside), path.join(root, "rel"))
      fs.symlinkSync(path.join(outside, "f.txt"), path.join(root, "secret"))
      fs.symlinkSync("../..", path.join(root, "real", "esc"))
      for (const p of ["abs/f.txt", "rel/f.txt", "secret", "real/esc/x.txt"]) {
        const e = yield* Effect.flip(walk([root], path.join(root, p)))
        assert.strictEqual(e.reason, "outside", p)
        assert.include(e.message, "workspace roots", p)
      }
      // Inside another root it is followed: the roots, not the first one, bound the walk.
      assert.deepStrictEqual(yield* walk([root, outside], path.join(root, "abs", "f.txt")), {
        dirPath: outside,
        name: "f.txt",
        exists: true
      })
      // A path that is not under a root at all.
      assert.strictEqual((yield* Effect.flip(walk([root], path.join(outside, "f.txt")))).reason, "outside")
    }))

  it.effect("a file where a directory is expected, and the root itself, are refused", () =>
    Effect.gen(function*() {
      const { root } = yield* setup
      const e = yield* Effect.flip(walk([root], path.join(root, "real", "f.txt", "x")))
      assert.strictEqual(e.reason, "not-directory")
      assert.strictEqual((yield* Effect.flip(walk([root], root))).code, "EISDIR")
    }))
})

describe.runIf(fdPathsSupported)("atomicWrite within the roots", () => {
  it.effect("a directory replaced by a link to the outside after the walk: the write stays in the directory opened", () =>
    Effect.gen(function*() {
      const { root, outside } = yield* setup
      const real = path.join(root, "real")
      const swap = Effect.sync(() => {
        fs.renameSync(real, path.join(root, "moved"))
        fs.symlinkSync(outside, real)
      })
      const r = yield* atomicWrite(path.join(real, "f.txt"), Buffer.from("new\n"), {
        within: [root],
        expectedBytes: Buffer.from("inside\n"),
        afterResolve: swap
      })
      assert.strictEqual(r.path, path.join(real, "f.txt"), "reported as resolved")
      assert.strictEqual(fs.readFileSync(path.join(root, "moved", "f.txt"), "utf8"), "new\n")
      assert.strictEqual(fs.readFileSync(path.join(outside, "f.txt"), "utf8"), "outside\n")
      assert.deepStrictEqual(fs.readdirSync(outside), ["f.txt"])
    }))

  it.effect("a directory moved out of the root after the walk: file_changed_since_read, nothing left outside", () =>
    Effect.gen(function*() {
      const { root, outside } = yield* setup
      const moved = path.join(outside, "real")
      const e = yield* Effect.flip(
        atomicWrite(path.join(root, "real", "f.txt"), Buffer.from("new\n"), {
          within: [root],
          expectedBytes: Buffer.from("inside\n"),
          afterResolve: Effect.sync(() => fs.renameSync(path.join(root, "real"), moved))
        })
      )
      assert.strictEqual(e._tag, "FileChangedSinceRead")
      assert.include(e.message, "no longer inside the workspace")
      assert.deepStrictEqual(fs.readdirSync(moved), ["f.txt"], "no temp or lock file left in the moved directory")
      assert.strictEqual(fs.readFileSync(path.join(moved, "f.txt"), "utf8"), "inside\n")
    }))

  it.effect("the file replaced by a link after the walk: refused, the link's target untouched", () =>
    Effect.gen(function*() {
      const { root, outside } = yield* setup
      const file = path.join(root, "real", "f.txt")
      const e = yield* Effect.flip(
        atomicWrite(file, Buffer.from("new\n"), {
          within: [root],
          expectedBytes: Buffer.from("outside\n"),
          afterResolve: Effect.sync(() => {
            fs.rmSync(file)
            fs.symlinkSync(path.join(outside, "f.txt"), file)
          })
        })
      )
      assert.strictEqual(e._tag, "FileChangedSinceRead")
      assert.include(e.message, "symbolic link")
      assert.strictEqual(fs.readFileSync(path.join(outside, "f.txt"), "utf8"), "outside\n")
      assert.isTrue(fs.lstatSync(file).isSymbolicLink())
    }))

  it.effect("a link inside the root is still written through, and the link stays a link", () =>
    Effect.gen(function*() {
      const { root } = yield* setup
      const link = path.join(root, "link.txt")
      fs.symlinkSync("real/f.txt", link)
      const r = yield* atomicWrite(link, Buffer.from("through\n"), { within: [root], expectedBytes: Buffer.from("inside\n") })
      assert.strictEqual(r.path, path.join(root, "real", "f.txt"))
      assert.isTrue(fs.lstatSync(link).isSymbolicLink())
      assert.strictEqual(fs.readFileSync(path.join(root, "real", "f.txt"), "utf8"), "through\n")
      assert.deepStrictEqual(fs.readdirSync(path.join(root, "real")), ["f.txt"], "no temp or lock file left")
    }))
})
