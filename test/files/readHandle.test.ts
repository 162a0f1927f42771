import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { openVerified } from "../../src/files/readHandle.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-readhandle-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

describe("openVerified (read_file opens once and checks what it opened)", () => {
  it.effect("a file opened outside the readable dirs is path_not_in_workspace, and nothing is read", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      const root = path.join(tmp, "root")
      fs.mkdirSync(root)
      fs.writeFileSync(path.join(tmp, "secret.txt"), "secret")
      // What a swapper leaves behind after the boundary check: the checked name now links outside.
      fs.symlinkSync(path.join(tmp, "secret.txt"), path.join(root, "f.txt"))
      const e = yield* Effect.flip(Effect.scoped(openVerified(path.join(root, "f.txt"), [root])))
      assert.strictEqual(e.code, "path_not_in_workspace")
      assert.include(e.message, `changed while it was being read: the file opened is ${path.join(tmp, "secret.txt")}`)
      assert.include(e.message, "Nothing was read")
    }))

  it.effect("stats come from the opened descriptor; links inside the readable dirs are fine", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      fs.writeFileSync(path.join(tmp, "a.txt"), "hello")
      fs.symlinkSync("a.txt", path.join(tmp, "link"))
      const { handle, stats } = yield* Effect.scoped(Effect.gen(function*() {
        const opened = yield* openVerified(path.join(tmp, "link"), [tmp])
        const buffer = Buffer.alloc(5)
        yield* Effect.promise(() => opened.handle.read(buffer, 0, 5, 0))
        assert.strictEqual(buffer.toString(), "hello")
        return opened
      }))
      assert.strictEqual(stats.ino, fs.statSync(path.join(tmp, "a.txt")).ino)
      assert.strictEqual(stats.size, 5)
      // Closed with the scope.
      yield* Effect.flip(Effect.tryPromise(() => handle.stat()))
    }))

  it.effect("a directory is target_is_directory; a FIFO is refused without blocking; a missing file is file_not_found", () =>
    Effect.gen(function*() {
      const tmp = yield* tempDir
      fs.mkdirSync(path.join(tmp, "dir"))
      execFileSync("mkfifo", [path.join(tmp, "fifo")])
      const open = (name: string) => Effect.flip(Effect.scoped(openVerified(path.join(tmp, name), [tmp])))
      assert.strictEqual((yield* open("dir")).code, "target_is_directory")
      const fifo = yield* open("fifo")
      assert.strictEqual(fifo.code, "read_content_failure")
      assert.include(fifo.message, "is not a regular file")
      assert.strictEqual((yield* open("none")).code, "file_not_found")
    }))
})
