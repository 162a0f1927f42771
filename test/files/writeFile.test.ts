import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import iconv from "iconv-lite"
import { Effect } from "effect"
import { writeFailure } from "../../src/write/writeErrors.js"
import { DiskError } from "../../src/disk/index.js"
import { bytesOf, fileWorld, textOf } from "./helpers.js"

describe("write_file (reference §6)", () => {
  it.effect("creates a new file (and its directories) with the reference message", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = path.join(w.root, "deep", "er", "new.txt")
      const r = yield* w.write.call({ file_path: file, content: "fresh\n" })
      assert.strictEqual(textOf(r), `Successfully created and wrote to new file: ${file}.`)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "fresh\n")
      assert.isTrue(r.data.created)
      assert.strictEqual(typeof r.display === "object" && r.display._tag === "FileDiff" && r.display.diff.includes("+++ new.txt\tWritten"), true)
    }))

  it.effect("overwrites a file read this session; a file never read is refused with the full-read guidance", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("old.txt", "before\n")
      const e = yield* Effect.flip(w.write.call({ file_path: file, content: "after\n" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.strictEqual(
        e.message,
        `File ${file} has not been read in this session. Use the read_file tool first to load the current content (read the full file — overwriting replaces every byte, so any unseen bytes would be discarded) before overwriting it.`
      )
      yield* w.read.call({ file_path: file })
      const r = yield* w.write.call({ file_path: file, content: "after\n" })
      assert.strictEqual(textOf(r), `Successfully overwrote file: ${file}.`)
      assert.strictEqual(fs.readFileSync(file, "utf8"), "after\n")
    }))

  it.effect("a file created by write_file counts as read: it can be edited next", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      yield* w.write.call({ file_path: "made.txt", content: "v1\n" })
      yield* w.edit.call({ file_path: "made.txt", old_string: "v1", new_string: "v2" })
      assert.strictEqual(fs.readFileSync(path.join(w.root, "made.txt"), "utf8"), "v2\n")
    }))

  it.effect("an existing file keeps its encoding, BOM and CRLF", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const gbk = w.file("gbk.txt", iconv.encode("旧内容\r\n", "gbk"))
      yield* w.read.call({ file_path: gbk })
      const r = yield* w.write.call({ file_path: gbk, content: "新内容\n第二行\n" })
      assert.strictEqual(Buffer.compare(bytesOf(gbk), iconv.encode("新内容\r\n第二行\r\n", "gbk")), 0)
      assert.include(textOf(r), "The file keeps its GBK, CRLF format.")
      const bom = w.file("bom.txt", Buffer.from([0xef, 0xbb, 0xbf, 0x61]))
      yield* w.read.call({ file_path: bom })
      yield* w.write.call({ file_path: bom, content: "b" })
      assert.deepStrictEqual([...bytesOf(bom)], [0xef, 0xbb, 0xbf, 0x62])
    }))

  it.effect("file_write_failure for content the file's encoding cannot hold; nothing written", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("latin.txt", iconv.encode("café crème\n", "windows-1252"))
      yield* w.read.call({ file_path: file })
      const e = yield* Effect.flip(w.write.call({ file_path: file, content: "café ✓\n" }))
      assert.strictEqual(e.code, "file_write_failure")
      assert.include(e.message, "U+2713")
      assert.strictEqual(Buffer.compare(bytesOf(file), iconv.encode("café crème\n", "windows-1252")), 0)
    }))

  it.effect("validation: an existing directory, an empty path", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      fs.mkdirSync(path.join(w.root, "d"))
      const e = yield* Effect.flip(w.write.call({ file_path: "d", content: "x" }))
      assert.strictEqual(e.code, "invalid_tool_params")
      assert.strictEqual(e.message, `Path is a directory, not a file: ${path.join(w.root, "d")}`)
      const empty = yield* Effect.flip(w.write.call({ file_path: "  ", content: "x" }))
      assert.strictEqual(empty.message, `Missing or empty "file_path"`)
    }))

  it.effect("target_is_directory when a symlink leads to a directory; file_changed_since_read on drift", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      fs.mkdirSync(path.join(w.root, "real-dir"))
      fs.symlinkSync("real-dir", path.join(w.root, "dir-link"))
      const e = yield* Effect.flip(w.write.call({ file_path: "dir-link", content: "x" }))
      assert.strictEqual(e.code, "target_is_directory")
      const file = w.file("drift.txt", "a\n")
      yield* w.read.call({ file_path: file })
      fs.writeFileSync(file, "ab\n")
      assert.strictEqual((yield* Effect.flip(w.write.call({ file_path: file, content: "z" }))).code, "file_changed_since_read")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "ab\n")
    }))

  it.effect("the immutable-file refusal maps to permission_denied (EPERM)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("frozen.txt", "ice\n")
      yield* w.read.call({ file_path: file })
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("chattr", ["+i", file])),
        () => Effect.sync(() => execFileSync("chattr", ["-i", file]))
      )
      const e = yield* Effect.flip(w.write.call({ file_path: file, content: "water\n" }))
      assert.strictEqual(e.code, "permission_denied")
      assert.isTrue(e.message.startsWith(`Permission denied writing to file: ${file} (EPERM). `), e.message)
    }))

  it.effect("readEvidence ranges: overwriting needs every line seen, which paging achieves", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld({ readEvidence: "ranges" })
      const file = w.file("paged.txt", Array.from({ length: 1500 }, (_, i) => `l${i}`).join("\n") + "\n")
      yield* w.read.call({ file_path: file })
      const e = yield* Effect.flip(w.write.call({ file_path: file, content: "short\n" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.include(e.message, "replaces all 1500 of its lines, but this session has only seen lines 1-1000")
      yield* w.read.call({ file_path: file, offset: 1000 })
      yield* w.write.call({ file_path: file, content: "short\n" })
      assert.strictEqual(fs.readFileSync(file, "utf8"), "short\n")
    }))

  it("maps every errno of §6 step 7", () => {
    const f = "/w/x.txt"
    const err = (code: string | undefined) => new DiskError({ op: "rename", path: f, code, message: `${code}: boom` })
    assert.isTrue(writeFailure(f, err("EACCES")).message.startsWith("Permission denied writing to file: /w/x.txt (EACCES). "))
    assert.strictEqual(writeFailure(f, err("EACCES")).code, "permission_denied")
    assert.isTrue(writeFailure(f, err("ENOSPC")).message.startsWith("No space left on device: /w/x.txt (ENOSPC). "))
    assert.strictEqual(writeFailure(f, err("ENOSPC")).code, "no_space_left")
    assert.isTrue(writeFailure(f, err("EISDIR")).message.startsWith("Target is a directory, not a file: /w/x.txt (EISDIR). "))
    assert.strictEqual(writeFailure(f, err("EISDIR")).code, "target_is_directory")
    assert.isTrue(writeFailure(f, err("EROFS")).message.startsWith("Read-only file system: /w/x.txt (EROFS). "))
    assert.strictEqual(writeFailure(f, err("EROFS")).code, "permission_denied")
    assert.strictEqual(writeFailure(f, err("EDQUOT")).code, "no_space_left")
    assert.strictEqual(writeFailure(f, err("EIO")).code, "file_write_failure")
    assert.isTrue(writeFailure(f, err("EIO")).message.startsWith("Error writing to file '/w/x.txt': EIO: boom (EIO). "))
    assert.isTrue(writeFailure(f, err(undefined)).message.startsWith("Error writing to file: undefined: boom. "))
  })
})
