import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import iconv from "iconv-lite"
import type { SedEditData } from "../../src/shell/command/sedEdit.js"
import { FileReadCache } from "../../src/session/readCache.js"
import { makeFileHistory } from "../../src/text/history.js"
import type { CallSuccess } from "../../src/tool/outcome.js"
import { call, codeOf, makeDir, textOf, withSession } from "./helpers.js"

/** A fake `sed` first on PATH: if the real command ever runs, it leaves a marker. */
const fakeSed = () => {
  const bin = makeDir("tw-bin-")
  const marker = path.join(bin, "sed-ran")
  fs.writeFileSync(path.join(bin, "sed"), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 })
  // The marker is written from inside the sandbox: its directory must be writable there.
  return { env: { PATH: `${bin}:${process.env["PATH"]}` }, ran: () => fs.existsSync(marker), sandbox: { writable: [bin] } }
}

const markRead = (file: string) =>
  Effect.gen(function*() {
    const cache = yield* FileReadCache
    yield* cache.recordRead(file, fs.statSync(file), { full: true, cacheable: true })
  })

describe("sed -i as a simulated edit", () => {
  it.live("previews a diff titled Confirm Sed Edit, writes atomically without running sed, and counts as a read", () => {
    const sed = fakeSed()
    return withSession({ mode: "default", settings: { env: sed.env }, sandbox: sed.sandbox }, (s) =>
      Effect.gen(function*() {
        const file = path.join(s.root, "a.txt")
        fs.writeFileSync(file, "foo one\nbar\nfoo two\n")
        yield* markRead(file)
        const r = yield* call("run_shell_command", { command: "sed -i 's/foo/baz/g' a.txt" })
        assert.strictEqual(codeOf(r), "Success", textOf(r))
        assert.strictEqual(textOf(r), `sed edit applied to ${file}.`)
        assert.strictEqual(fs.readFileSync(file, "utf8"), "baz one\nbar\nbaz two\n")
        assert.isFalse(sed.ran())
        const [request] = yield* s.requests
        assert.strictEqual(request!.details.type, "edit")
        if (request!.details.type === "edit") {
          assert.strictEqual(request!.details.title, "Confirm Sed Edit: a.txt")
          assert.strictEqual(request!.details.filePath, file)
          assert.include(request!.details.fileDiff, "-foo one\n+baz one")
          assert.strictEqual(request!.details.newContent, "baz one\nbar\nbaz two\n")
        }
        const display = (r as CallSuccess).display
        assert.strictEqual(typeof display === "object" && display._tag, "FileDiff")
        // the write counts as a read: a second edit needs no re-read
        const again = yield* call("run_shell_command", { command: "sed -i -E 's/(baz) (one)/\\2 \\1/' a.txt" })
        assert.strictEqual(textOf(again), `sed edit applied to ${file}.`)
        assert.strictEqual(fs.readFileSync(file, "utf8"), "one baz\nbar\nbaz two\n")
      }))
  })

  it.live("refuses an unread file before asking (edit_requires_prior_read)", () =>
    withSession({ mode: "default" }, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "b.txt"), "foo\n")
        const r = yield* call("run_shell_command", { command: "sed -i 's/foo/bar/' b.txt" })
        assert.strictEqual(codeOf(r), "edit_requires_prior_read")
        assert.lengthOf(yield* s.requests, 0)
        assert.strictEqual(fs.readFileSync(path.join(s.root, "b.txt"), "utf8"), "foo\n")
      })))

  it.live("reports no change, keeps BOM and CRLF, and reports a missing file", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const file = path.join(s.root, "c.txt")
        fs.writeFileSync(file, "\ufefffoo\r\nbar\r\n")
        yield* markRead(file)
        const same = yield* call("run_shell_command", { command: "sed -i 's/zzz/y/' c.txt" })
        assert.strictEqual(textOf(same), `sed edit made no changes to ${file}.`)
        const r = yield* call("run_shell_command", { command: "sed -i 's/foo$/baz/' c.txt" })
        assert.strictEqual(textOf(r), `sed edit applied to ${file}.`)
        assert.strictEqual(fs.readFileSync(file, "utf8"), "\ufeffbaz\r\nbar\r\n")
        const missing = yield* call("run_shell_command", { command: "sed -i 's/a/b/' nope.txt" })
        assert.strictEqual(codeOf(missing), "file_not_found")
        assert.match(textOf(missing), /^Error reading file for sed edit '.*nope\.txt': ENOENT/)
      })))

  it.live("a file changed between confirmation and execution is not written", () => {
    const holder = { file: "" }
    return withSession({ mode: "default", onAsk: () => fs.appendFileSync(holder.file, "added while asking\n") }, (s) =>
      Effect.gen(function*() {
        holder.file = path.join(s.root, "d.txt")
        fs.writeFileSync(holder.file, "foo\n")
        yield* markRead(holder.file)
        const r = yield* call("run_shell_command", { command: "sed -i 's/foo/bar/' d.txt" })
        assert.strictEqual(codeOf(r), "file_changed_since_read")
        assert.include(textOf(r), holder.file)
        assert.match(textOf(r), /re-read it with the read_file tool/i)
        assert.strictEqual(fs.readFileSync(holder.file, "utf8"), "foo\nadded while asking\n")
      }))
  })

  it.live("keeps a before-image in the session's history, from which the file is restored as edit's are", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const file = path.join(s.root, "h.txt")
        fs.writeFileSync(file, "v1 one\nv1 two\n")
        yield* markRead(file)
        const r = yield* call("run_shell_command", { command: "sed -i 's/v1/v2/g' h.txt" })
        assert.strictEqual(codeOf(r), "Success", textOf(r))
        assert.strictEqual(fs.readFileSync(file, "utf8"), "v2 one\nv2 two\n")
        const historyId = ((r as CallSuccess).data as SedEditData).historyId
        assert.isDefined(historyId)
        const sessions = fs.readdirSync(path.join(s.stateDir, "history"))
        assert.lengthOf(sessions, 1)
        const history = makeFileHistory({ dir: path.join(s.stateDir, "history", sessions[0]!) })
        const [entry] = yield* history.entries
        assert.strictEqual(entry!.id, historyId)
        assert.strictEqual(entry!.path, file)
        assert.strictEqual(entry!.tool, "run_shell_command")
        assert.isTrue(entry!.existed)
        // Rewind: the before-image written back is the file as it was.
        const before = yield* history.read(historyId!)
        fs.writeFileSync(file, before!)
        assert.strictEqual(fs.readFileSync(file, "utf8"), "v1 one\nv1 two\n")
        // A sed that changes nothing records nothing.
        yield* markRead(file)
        const same = yield* call("run_shell_command", { command: "sed -i 's/zzz/y/' h.txt" })
        assert.strictEqual(textOf(same), `sed edit made no changes to ${file}.`)
        assert.lengthOf(yield* history.entries, 1)
      })))

  it.live("respects the edit size cap at its edge: file_too_large one byte over, as edit", () =>
    withSession({ fileTools: { maxEditFileBytes: 10 } }, (s) =>
      Effect.gen(function*() {
        const ok = path.join(s.root, "ten.txt")
        fs.writeFileSync(ok, "012345678\n")
        yield* markRead(ok)
        const r = yield* call("run_shell_command", { command: "sed -i 's/0/X/' ten.txt" })
        assert.strictEqual(codeOf(r), "Success", textOf(r))
        assert.strictEqual(fs.readFileSync(ok, "utf8"), "X12345678\n")
        const big = path.join(s.root, "eleven.txt")
        fs.writeFileSync(big, "0123456789\n")
        yield* markRead(big)
        const over = yield* call("run_shell_command", { command: "sed -i 's/0/X/' eleven.txt" })
        assert.strictEqual(codeOf(over), "file_too_large")
        assert.include(textOf(over), "11 bytes, over the 10-byte limit")
        assert.strictEqual(fs.readFileSync(big, "utf8"), "0123456789\n")
        assert.lengthOf(yield* s.requests, 1, "nothing is shown for approval over the cap")
      })))

  it.live("edits legacy-encoded files keeping their encoding, BOM and line endings (GBK with CRLF, Shift_JIS, UTF-16LE with BOM)", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const gbk = path.join(s.root, "gbk.txt")
        fs.writeFileSync(gbk, iconv.encode("// 注释\r\nconst 名字 = \"张三\";\r\n", "gbk"))
        yield* markRead(gbk)
        const r = yield* call("run_shell_command", { command: "sed -i 's/张三/李四/' gbk.txt" })
        assert.strictEqual(codeOf(r), "Success", textOf(r))
        assert.strictEqual(Buffer.compare(fs.readFileSync(gbk), iconv.encode("// 注释\r\nconst 名字 = \"李四\";\r\n", "gbk")), 0)
        const sjis = path.join(s.root, "sjis.txt")
        fs.writeFileSync(sjis, iconv.encode("こんにちは、世界。これはテストです。\n", "shift_jis"))
        yield* markRead(sjis)
        const r2 = yield* call("run_shell_command", { command: "sed -i 's/世界/皆さん/' sjis.txt" })
        assert.strictEqual(codeOf(r2), "Success", textOf(r2))
        assert.strictEqual(Buffer.compare(fs.readFileSync(sjis), iconv.encode("こんにちは、皆さん。これはテストです。\n", "shift_jis")), 0)
        const utf16 = path.join(s.root, "u16.txt")
        fs.writeFileSync(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alpha\r\nbeta\r\n", "utf16le")]))
        yield* markRead(utf16)
        const r3 = yield* call("run_shell_command", { command: "sed -i 's/beta/gamma/' u16.txt" })
        assert.strictEqual(codeOf(r3), "Success", textOf(r3))
        assert.strictEqual(
          Buffer.compare(fs.readFileSync(utf16), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("alpha\r\ngamma\r\n", "utf16le")])),
          0
        )
      })))

  it.live("a character the file's encoding cannot hold is refused (edit_preparation_failure), nothing written", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        const gbk = path.join(s.root, "g2.txt")
        const bytes = iconv.encode("名字 = 1\n", "gbk")
        fs.writeFileSync(gbk, bytes)
        yield* markRead(gbk)
        const r = yield* call("run_shell_command", { command: "sed -i 's/1/\u{1F600}/' g2.txt" })
        assert.strictEqual(codeOf(r), "edit_preparation_failure")
        assert.include(textOf(r), "U+1F600")
        assert.strictEqual(Buffer.compare(fs.readFileSync(gbk), bytes), 0)
      })))

  it.live("falls back to the real command for a symlink or a file outside the workspace", () => {
    const sed = fakeSed()
    return withSession({ settings: { env: sed.env }, sandbox: sed.sandbox }, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "target.txt"), "foo\n")
        fs.symlinkSync(path.join(s.root, "target.txt"), path.join(s.root, "link.txt"))
        yield* markRead(path.join(s.root, "target.txt"))
        const viaLink = yield* call("run_shell_command", { command: "sed -i 's/foo/bar/' link.txt" })
        assert.strictEqual(codeOf(viaLink), "Success")
        assert.include(textOf(viaLink), "Command: sed -i 's/foo/bar/' link.txt")
        assert.isTrue(sed.ran())
        const outside = makeDir("tw-out-")
        fs.writeFileSync(path.join(outside, "o.txt"), "foo\n")
        const r = yield* call("run_shell_command", { command: `sed -i 's/foo/bar/' ${path.join(outside, "o.txt")}` })
        assert.include(textOf(r), "Command: sed -i")
      }))
  })
})
