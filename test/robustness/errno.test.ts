/**
 * The documented error codes when the OS refuses (issue 23), through the built serve door:
 * EACCES → `permission_denied` (the server runs as `nobody`, since root bypasses file modes) and
 * ENOSPC → `no_space_left` (a real 64 KiB tmpfs, filled), for read_file, edit and write_file.
 * Both need root (to run `setpriv` to another uid, to mount); without it these tests fail and say why.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { tempDir } from "../support/serve.js"
import { NOBODY, serveProcess } from "./servedProcess.js"

const requireRoot = () => {
  if (process.getuid?.() !== 0) {
    throw new Error("these tests run the server as another user and mount a tmpfs: run them as root (as CI does)")
  }
}

/** A 64 KiB tmpfs mounted on `dir` until the scope closes (`ro`: read-only). */
const tinyDisk = (dir: string, options = "size=64k") =>
  Effect.acquireRelease(
    Effect.sync(() => execFileSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", dir])),
    () => Effect.sync(() => execFileSync("umount", ["-l", dir]))
  )

/** No raw Node text ("EACCES: permission denied, open '…'") and a next step. */
const assertModelFacing = (text: string) => {
  assert.notMatch(text, /E[A-Z]+: [a-z ]+, [a-z]+ '/, text)
  assert.match(text, /tell the user/i, text)
}

describe("robustness: OS refusals give the documented codes", () => {
  it.live("EACCES as an unprivileged server: read_file, list_directory, edit and write_file → permission_denied, nothing changed", () =>
    Effect.gen(function*() {
      requireRoot()
      const root = yield* tempDir("tw-eacces-")
      const state = yield* tempDir("tw-eacces-state-")
      // nobody may enter both directories and create files in them; the files below are root's.
      fs.chmodSync(root, 0o777)
      fs.chmodSync(state, 0o777)
      const secret = path.join(root, "secret.txt")
      fs.writeFileSync(secret, "root only\n", { mode: 0o600 })
      const readonly = path.join(root, "readonly.txt")
      fs.writeFileSync(readonly, "look, do not touch\n", { mode: 0o644 })
      const locked = path.join(root, "locked")
      fs.mkdirSync(locked, { mode: 0o555 })
      fs.chmodSync(locked, 0o555)
      const closed = path.join(root, "closed")
      fs.mkdirSync(closed)
      fs.writeFileSync(path.join(closed, "inside.txt"), "hidden\n")
      fs.chmodSync(closed, 0o700)

      const served = yield* serveProcess(["--root", root, "--state-dir", state], { asNobody: true })
      assert.strictEqual(fs.readFileSync(`/proc/${served.pid}/status`, "utf8").match(/^Uid:\s+(\d+)/m)?.[1], String(NOBODY))

      const unreadable = yield* Effect.promise(() => served.call("read_file", { file_path: secret }))
      assert.strictEqual(unreadable.code, "permission_denied", unreadable.text)
      assert.include(unreadable.text, `Permission denied reading file: ${secret} (EACCES)`)
      assertModelFacing(unreadable.text)

      const behindDir = yield* Effect.promise(() => served.call("read_file", { file_path: path.join(closed, "inside.txt") }))
      assert.strictEqual(behindDir.code, "permission_denied", behindDir.text)

      const listing = yield* Effect.promise(() => served.call("list_directory", { path: closed }))
      assert.strictEqual(listing.code, "permission_denied", listing.text)
      assert.include(listing.text, `Permission denied listing directory: ${closed} (EACCES)`)

      const read = yield* Effect.promise(() => served.call("read_file", { file_path: readonly }))
      assert.isUndefined(read.code, read.text)
      const edit = yield* Effect.promise(() => served.call("edit", { file_path: readonly, old_string: "look", new_string: "touch" }))
      assert.strictEqual(edit.code, "permission_denied", edit.text)
      assert.include(edit.text, `Permission denied writing to file: ${readonly} (EACCES)`)
      assertModelFacing(edit.text)
      const overwrite = yield* Effect.promise(() => served.call("write_file", { file_path: readonly, content: "gone\n" }))
      assert.strictEqual(overwrite.code, "permission_denied", overwrite.text)
      assertModelFacing(overwrite.text)
      assert.strictEqual(fs.readFileSync(readonly, "utf8"), "look, do not touch\n")

      const create = yield* Effect.promise(() => served.call("write_file", { file_path: path.join(locked, "new.txt"), content: "x\n" }))
      assert.strictEqual(create.code, "permission_denied", create.text)
      assertModelFacing(create.text)
      const createByEdit = yield* Effect.promise(() => served.call("edit", { file_path: path.join(locked, "new.txt"), old_string: "", new_string: "x\n" }))
      assert.strictEqual(createByEdit.code, "permission_denied", createByEdit.text)
      assert.deepStrictEqual(fs.readdirSync(locked), [], "no file or temp file was left")
    }), 60_000)

  it.live("ENOSPC on a full 64 KiB tmpfs: edit and write_file → no_space_left, the file as it was, no temp file left", () =>
    Effect.gen(function*() {
      requireRoot()
      const root = yield* tempDir("tw-enospc-")
      const state = yield* tempDir("tw-enospc-state-")
      const disk = path.join(root, "disk")
      fs.mkdirSync(disk)
      yield* tinyDisk(disk)
      const file = path.join(disk, "notes.txt")
      const original = "first\n" + "line\n".repeat(8 * 1024)
      fs.writeFileSync(file, original)

      const served = yield* serveProcess(["--root", root, "--state-dir", state])
      const read = yield* Effect.promise(() => served.call("read_file", { file_path: file, limit: 1 }))
      assert.isUndefined(read.code, read.text)

      // The new content does not fit beside the old one (temp file + rename), so the write fails.
      const edit = yield* Effect.promise(() => served.call("edit", { file_path: file, old_string: "first\n", new_string: "the first line\n" }))
      assert.strictEqual(edit.code, "no_space_left", edit.text)
      assert.include(edit.text, `No space left on device: ${file} (ENOSPC)`)
      assertModelFacing(edit.text)

      const overwrite = yield* Effect.promise(() => served.call("write_file", { file_path: file, content: "x".repeat(60 * 1024) }))
      assert.strictEqual(overwrite.code, "no_space_left", overwrite.text)
      assertModelFacing(overwrite.text)

      const create = yield* Effect.promise(() => served.call("write_file", { file_path: path.join(disk, "new.txt"), content: "y".repeat(100 * 1024) }))
      assert.strictEqual(create.code, "no_space_left", create.text)

      assert.strictEqual(fs.readFileSync(file, "utf8"), original)
      assert.deepStrictEqual(fs.readdirSync(disk), ["notes.txt"])
    }), 60_000)

  it.live("EROFS on a read-only mount: write_file and edit → permission_denied naming the read-only file system", () =>
    Effect.gen(function*() {
      requireRoot()
      const root = yield* tempDir("tw-erofs-")
      const state = yield* tempDir("tw-erofs-state-")
      const disk = path.join(root, "ro")
      fs.mkdirSync(disk)
      yield* tinyDisk(disk, "size=64k,ro")
      const served = yield* serveProcess(["--root", root, "--state-dir", state])
      const create = yield* Effect.promise(() => served.call("write_file", { file_path: path.join(disk, "new.txt"), content: "x\n" }))
      assert.strictEqual(create.code, "permission_denied", create.text)
      assert.include(create.text, `Read-only file system: ${path.join(disk, "new.txt")} (EROFS)`)
      assertModelFacing(create.text)
      const createByEdit = yield* Effect.promise(() => served.call("edit", { file_path: path.join(disk, "new.txt"), old_string: "", new_string: "x\n" }))
      assert.strictEqual(createByEdit.code, "permission_denied", createByEdit.text)
      assert.deepStrictEqual(fs.readdirSync(disk), [])
    }), 60_000)
})
