import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { FileReadCache } from "../../src/session/readCache.js"
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
        assert.strictEqual(textOf(r), `File changed since sed edit confirmation: ${holder.file}. Please re-read the file and retry.`)
        assert.strictEqual(fs.readFileSync(holder.file, "utf8"), "foo\nadded while asking\n")
      }))
  })

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
