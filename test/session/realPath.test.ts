import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { MAX_SYMLINK_HOPS, resolveRealPath } from "../../src/session/realPath.js"
import { makeWorkspace } from "../../src/session/workspace.js"
import { realLocation } from "../../src/session/location.js"
import { tempDir, write } from "./helpers.js"

const deep = (base: string, levels: number) => path.join(base, ...Array.from({ length: levels }, () => "d"))

describe("resolveRealPath", () => {
  it.effect("a missing path 1,000 directories deep resolves in one walk (well under 2 s)", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const missing = deep(path.join(tmp, "none"), 1000)
      const start = Date.now()
      assert.strictEqual(yield* resolveRealPath(missing), missing)
      // Half existing (behind a link), half missing: the walk follows the link once.
      const existing = deep(path.join(tmp, "real"), 500)
      fs.mkdirSync(existing, { recursive: true })
      fs.symlinkSync(path.join(tmp, "real"), path.join(tmp, "link"))
      const tail = Array.from({ length: 500 }, () => "m")
      const viaLink = path.join(tmp, "link", ...Array.from({ length: 500 }, () => "d"), ...tail)
      assert.strictEqual(yield* resolveRealPath(viaLink), path.join(existing, ...tail))
      const elapsed = Date.now() - start
      assert.isBelow(elapsed, 2000, `took ${elapsed} ms`)
    }))

  it.effect("follows dangling links (relative, absolute, with ..) to where a write would land", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      fs.mkdirSync(path.join(tmp, "a", "b"), { recursive: true })
      fs.symlinkSync("../new-dir/x", path.join(tmp, "a", "rel")) // dangling, relative with ..
      fs.symlinkSync(path.join(tmp, "a", "rel"), path.join(tmp, "abs")) // a link to that link
      fs.symlinkSync(path.join(tmp, "a"), path.join(tmp, "alink"))
      assert.strictEqual(yield* resolveRealPath(path.join(tmp, "a", "rel")), path.join(tmp, "new-dir", "x"))
      assert.strictEqual(yield* resolveRealPath(path.join(tmp, "abs", "y", "z")), path.join(tmp, "new-dir", "x", "y", "z"))
      assert.strictEqual(yield* resolveRealPath(path.join(tmp, "alink", "b", "new")), path.join(tmp, "a", "b", "new"))
      // A path under a regular file: the file's real path joined with the rest, as before.
      write(path.join(tmp, "a", "file"), "x")
      assert.strictEqual(yield* resolveRealPath(path.join(tmp, "alink", "file", "c")), path.join(tmp, "a", "file", "c"))
    }))

  it.effect(`a chain of more than ${MAX_SYMLINK_HOPS} dangling links, or a loop, fails with ELOOP`, () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const chain = (n: number) => {
        const dir = path.join(tmp, `chain-${n}`)
        fs.mkdirSync(dir)
        for (let i = 0; i < n; i++) fs.symlinkSync(path.join(dir, `l${i + 1}`), path.join(dir, `l${i}`))
        return dir
      }
      const ok = chain(MAX_SYMLINK_HOPS - 1)
      assert.strictEqual(yield* resolveRealPath(path.join(ok, "l0")), path.join(ok, `l${MAX_SYMLINK_HOPS - 1}`))
      const long = chain(MAX_SYMLINK_HOPS + 5)
      assert.strictEqual((yield* Effect.flip(resolveRealPath(path.join(long, "l0")))).code, "ELOOP")
      fs.symlinkSync("loop", path.join(tmp, "loop"))
      assert.strictEqual((yield* Effect.flip(resolveRealPath(path.join(tmp, "loop", "x")))).code, "ELOOP")
    }))
})

describe("Workspace.resolve returns what it checked", () => {
  it.effect("never a path outside the roots, even when the real target is inside", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const root = path.join(tmp, "root")
      write(path.join(root, "g.txt"), "g")
      write(path.join(root, "h.txt"), "h")
      fs.mkdirSync(path.join(tmp, "outside"))
      // root/out -> outside, and outside/f -> root/g.txt: root/out/f really is root/g.txt.
      fs.symlinkSync(path.join(tmp, "outside"), path.join(root, "out"))
      fs.symlinkSync(path.join(root, "g.txt"), path.join(tmp, "outside", "f"))
      fs.symlinkSync(path.join(root, "h.txt"), path.join(tmp, "hlink"))
      fs.symlinkSync("h.txt", path.join(root, "in-link"))
      const ws = yield* makeWorkspace({ roots: [root], stateDir: path.join(tmp, "state") })
      assert.strictEqual(yield* ws.resolve("out/f"), path.join(root, "g.txt"))
      assert.strictEqual(yield* ws.resolve(path.join(tmp, "hlink")), path.join(root, "h.txt"))
      // A link inside the root stays the link, as named.
      assert.strictEqual(yield* ws.resolve("in-link"), path.join(root, "in-link"))
      assert.strictEqual(yield* ws.resolve(root), root)
      // With the location: what realLocation of the answer gives, from the same resolution.
      for (const input of ["out/f", path.join(tmp, "hlink"), "in-link", "g.txt", "new/file.txt", root]) {
        const located = yield* ws.resolveLocated(input)
        assert.strictEqual(located.path, yield* ws.resolve(input))
        assert.strictEqual(located.location, yield* realLocation(located.path))
      }
      assert.strictEqual((yield* ws.resolveLocated("in-link")).location, path.join(root, "h.txt"))
      const refused = yield* Effect.flip(ws.resolveLocated(path.join(tmp, "outside", "x")))
      assert.strictEqual(refused._tag, "PathNotInWorkspace")
    }))

  it.effect("a path 1,000 directories deep is decided quickly", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const ws = yield* makeWorkspace({ roots: [tmp], stateDir: path.join(tmp, "state") })
      const start = Date.now()
      const target = deep(path.join(tmp, "new"), 1000)
      assert.strictEqual(yield* ws.resolve(target), target)
      assert.isBelow(Date.now() - start, 2000)
    }))
})
