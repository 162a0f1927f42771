import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeWorkspace, Workspace, WorkspaceInitError } from "../../src/session/workspace.js"
import { InvalidToolParams, PathNotInWorkspace } from "../../src/tool/errors.js"
import { tempDir, withEnv, write } from "./helpers.js"

/**
 * tmp/
 *   root/ a.txt, sub/b.txt, link-in -> a.txt, link-out -> ../outside/secret.txt,
 *         dirlink-out -> ../outside, dangling-out -> ../outside/new.txt, loop-a <-> loop-b
 *   root-evil/x.txt   root2/c.txt   outside/secret.txt   rootlink -> root
 */
const fixture = Effect.gen(function*() {
  const tmp = yield* tempDir
  const root = path.join(tmp, "root")
  write(path.join(root, "a.txt"), "a")
  write(path.join(root, "sub", "b.txt"), "b")
  write(path.join(tmp, "root-evil", "x.txt"), "x")
  write(path.join(tmp, "root2", "c.txt"), "c")
  write(path.join(tmp, "outside", "secret.txt"), "s")
  fs.symlinkSync("a.txt", path.join(root, "link-in"))
  fs.symlinkSync(path.join(tmp, "outside", "secret.txt"), path.join(root, "link-out"))
  fs.symlinkSync(path.join(tmp, "outside"), path.join(root, "dirlink-out"))
  fs.symlinkSync(path.join(tmp, "outside", "new.txt"), path.join(root, "dangling-out"))
  fs.symlinkSync("loop-b", path.join(root, "loop-a"))
  fs.symlinkSync("loop-a", path.join(root, "loop-b"))
  fs.symlinkSync(root, path.join(tmp, "rootlink"))
  const ws = yield* makeWorkspace({ roots: [root, path.join(tmp, "root2")], stateDir: path.join(tmp, "state") })
  return { tmp, root, ws }
})

const getWorkspace = Effect.gen(function*() {
  return yield* Workspace
})

const rejected = <E>(effect: Effect.Effect<string, E>) => Effect.flip(effect)

describe("Workspace.resolve", () => {
  it.effect("resolves relative paths against the first root", () =>
    Effect.gen(function*() {
      const { root, ws } = yield* fixture
      assert.strictEqual(yield* ws.resolve("sub/b.txt"), path.join(root, "sub", "b.txt"))
      assert.strictEqual(yield* ws.resolve("./sub/../a.txt"), path.join(root, "a.txt"))
      assert.strictEqual(yield* ws.resolve("."), root)
      assert.strictEqual(ws.primaryRoot, root)
    }))

  it.effect("accepts absolute paths inside any root, and the roots themselves", () =>
    Effect.gen(function*() {
      const { tmp, root, ws } = yield* fixture
      assert.strictEqual(yield* ws.resolve(path.join(root, "a.txt")), path.join(root, "a.txt"))
      assert.strictEqual(yield* ws.resolve(path.join(tmp, "root2", "c.txt")), path.join(tmp, "root2", "c.txt"))
      assert.strictEqual(yield* ws.resolve(root), root)
      assert.deepStrictEqual(ws.roots, [root, path.join(tmp, "root2")])
    }))

  it.effect("accepts not-yet-existing files and directories inside a root", () =>
    Effect.gen(function*() {
      const { root, ws } = yield* fixture
      assert.strictEqual(yield* ws.resolve("new.txt"), path.join(root, "new.txt"))
      assert.strictEqual(yield* ws.resolve("x/y/z.txt"), path.join(root, "x", "y", "z.txt"))
      assert.strictEqual(yield* ws.resolve("a.txt/child"), path.join(root, "a.txt", "child"))
    }))

  it.effect("keeps a symlink that stays inside as named", () =>
    Effect.gen(function*() {
      const { root, ws } = yield* fixture
      assert.strictEqual(yield* ws.resolve("link-in"), path.join(root, "link-in"))
    }))

  it.effect("rejects `..` escapes, relative and absolute", () =>
    Effect.gen(function*() {
      const { root, tmp, ws } = yield* fixture
      for (const p of ["../outside/secret.txt", "sub/../../outside/secret.txt", `${root}/../outside/secret.txt`, ".."]) {
        const e = yield* rejected(ws.resolve(p))
        assert.instanceOf(e, PathNotInWorkspace, p)
        assert.strictEqual(e.code, "path_not_in_workspace")
      }
      const e = yield* rejected(ws.resolve("../outside/secret.txt"))
      assert.strictEqual(
        e.message,
        `Path ../outside/secret.txt is outside the workspace: it resolves to ${tmp}/outside/secret.txt, which is ` +
          `not inside any workspace root. Workspace roots: ${root}, ${tmp}/root2. Use a path inside one of these ` +
          `roots (relative paths are resolved against ${root}); to work on files elsewhere, ask the user to add ` +
          `that directory as a workspace root.`
      )
      assert.strictEqual(e.display, "Path is outside the workspace: ../outside/secret.txt")
    }))

  it.effect("rejects absolute paths elsewhere", () =>
    Effect.gen(function*() {
      const { ws } = yield* fixture
      assert.instanceOf(yield* rejected(ws.resolve("/etc/passwd")), PathNotInWorkspace)
      assert.instanceOf(yield* rejected(ws.resolve("/")), PathNotInWorkspace)
    }))

  it.effect("rejects prefix siblings (/root-evil is not inside /root)", () =>
    Effect.gen(function*() {
      const { tmp, ws } = yield* fixture
      assert.instanceOf(yield* rejected(ws.resolve(path.join(tmp, "root-evil", "x.txt"))), PathNotInWorkspace)
      assert.instanceOf(yield* rejected(ws.resolve("../root-evil/x.txt")), PathNotInWorkspace)
      assert.instanceOf(yield* rejected(ws.resolve(path.join(tmp, "root-evil", "new.txt"))), PathNotInWorkspace)
    }))

  it.effect("rejects a file symlink pointing out, naming the link in the message", () =>
    Effect.gen(function*() {
      const { tmp, ws } = yield* fixture
      const e = yield* rejected(ws.resolve("link-out"))
      assert.instanceOf(e, PathNotInWorkspace)
      assert.include(e.message, `resolves through a symbolic link to ${tmp}/outside/secret.txt`)
    }))

  it.effect("rejects paths through a directory symlink pointing out, existing or not", () =>
    Effect.gen(function*() {
      const { ws } = yield* fixture
      for (const p of ["dirlink-out", "dirlink-out/secret.txt", "dirlink-out/new.txt", "dirlink-out/new/deep.txt"]) {
        assert.instanceOf(yield* rejected(ws.resolve(p)), PathNotInWorkspace, p)
      }
    }))

  it.effect("rejects a dangling symlink pointing out (writing through it would create a file outside)", () =>
    Effect.gen(function*() {
      const { ws } = yield* fixture
      assert.instanceOf(yield* rejected(ws.resolve("dangling-out")), PathNotInWorkspace)
    }))

  it.effect("fails closed on a symlink loop", () =>
    Effect.gen(function*() {
      const { ws } = yield* fixture
      const e = yield* rejected(ws.resolve("loop-a/file.txt"))
      assert.instanceOf(e, PathNotInWorkspace)
      assert.include(e.message, "could not be verified to be inside the workspace")
      assert.include(e.message, "ELOOP")
    }))

  it.effect("rejects empty paths and null bytes as invalid params", () =>
    Effect.gen(function*() {
      const { ws } = yield* fixture
      for (const p of ["", "   "]) {
        const e = yield* rejected(ws.resolve(p))
        assert.instanceOf(e, InvalidToolParams)
        assert.strictEqual(e.message, "The path must be a non-empty string.")
      }
      const e = yield* rejected(ws.resolve("a.txt\0.png"))
      assert.instanceOf(e, InvalidToolParams)
      assert.include(e.message, "null byte")
    }))

  it.effect("works when a root is given as a symlink (stored as its real path)", () =>
    Effect.gen(function*() {
      const { tmp, root } = yield* fixture
      const ws = yield* makeWorkspace({ roots: [path.join(tmp, "rootlink")], stateDir: path.join(tmp, "state") })
      assert.deepStrictEqual(ws.roots, [root])
      assert.strictEqual(yield* ws.resolve("a.txt"), path.join(root, "a.txt"))
      assert.strictEqual(yield* ws.resolve(path.join(tmp, "rootlink", "sub", "b.txt")), path.join(root, "sub", "b.txt"))
      assert.strictEqual(yield* ws.resolve(path.join(tmp, "rootlink", "new.txt")), path.join(root, "new.txt"))
      assert.instanceOf(yield* rejected(ws.resolve(path.join(tmp, "rootlink", "link-out"))), PathNotInWorkspace)
    }))
})

describe("Workspace.resolveReadable and isWithin", () => {
  it.effect("admits the extra readable dirs (even not yet created) only through resolveReadable", () =>
    Effect.gen(function*() {
      const { tmp, root } = yield* fixture
      const outputs = path.join(tmp, "state", "outputs")
      const ws = yield* makeWorkspace({ roots: [root], stateDir: path.join(tmp, "state"), extraReadableDirs: [outputs] })
      assert.deepStrictEqual(ws.extraReadableDirs, [outputs])
      assert.strictEqual(yield* ws.resolveReadable(path.join(outputs, "call-1.txt")), path.join(outputs, "call-1.txt"))
      assert.strictEqual(yield* ws.resolveReadable("a.txt"), path.join(root, "a.txt"))
      assert.instanceOf(yield* rejected(ws.resolve(path.join(outputs, "call-1.txt"))), PathNotInWorkspace)
      const e = yield* rejected(ws.resolveReadable(path.join(tmp, "outside", "secret.txt")))
      assert.instanceOf(e, PathNotInWorkspace)
      assert.include(e.message, `Readable directories outside the workspace: ${outputs}.`)
      assert.instanceOf(yield* rejected(ws.resolveReadable(path.join(tmp, "state", "outputs-evil"))), PathNotInWorkspace)
    }))

  it.effect("isWithin follows symlinks and never fails", () =>
    Effect.gen(function*() {
      const { tmp, root, ws } = yield* fixture
      assert.isTrue(yield* ws.isWithin(path.join(root, "a.txt")))
      assert.isTrue(yield* ws.isWithin(path.join(root, "missing", "file")))
      assert.isTrue(yield* ws.isWithin(path.join(tmp, "root2")))
      assert.isFalse(yield* ws.isWithin(path.join(root, "link-out")))
      assert.isFalse(yield* ws.isWithin(path.join(tmp, "root-evil")))
      assert.isFalse(yield* ws.isWithin(path.join(root, "loop-a")))
    }))
})

describe("Workspace.layer", () => {
  it.effect("provides the service", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const ws = yield* getWorkspace.pipe(Effect.provide(Workspace.layer({ roots: [tmp] })), withEnv({}))
      assert.strictEqual(ws.primaryRoot, tmp)
      assert.strictEqual(yield* ws.resolve("f.txt"), path.join(tmp, "f.txt"))
    }))

  it.effect("fails with a clear error for a missing root, a file root, or no roots", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      write(path.join(tmp, "file.txt"))
      const missing = yield* Effect.flip(getWorkspace.pipe(
        Effect.provide(Workspace.layer({ roots: [path.join(tmp, "nope")] }))
      ))
      assert.instanceOf(missing, WorkspaceInitError)
      assert.strictEqual(missing.message, `Workspace root ${path.join(tmp, "nope")} does not exist.`)
      const file = yield* Effect.flip(makeWorkspace({ roots: [path.join(tmp, "file.txt")] }))
      assert.strictEqual(file.message, `Workspace root ${path.join(tmp, "file.txt")} is not a directory.`)
      const none = yield* Effect.flip(makeWorkspace({ roots: [] }))
      assert.include(none.message, "No workspace root")
    }))
})
