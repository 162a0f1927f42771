import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import iconv from "iconv-lite"
import { Effect } from "effect"
import { DEFAULT_FILE_TOOLS_SETTINGS, FileToolsConfig } from "../../src/write/config.js"
import { makeEdit } from "../../src/files/edit.js"
import { bytesOf, fileWorld, pinMtime, textOf } from "./helpers.js"

/** A world with `name` holding `content`, already read in full by the session. */
const readFileWith = (name: string, content: string | Uint8Array) =>
  Effect.gen(function*() {
    const w = yield* fileWorld()
    const file = w.file(name, content)
    yield* w.read.call({ file_path: file })
    return { ...w, target: file }
  })

describe("edit: reference §3.5 end-to-end vectors", () => {
  it.effect("creates a missing file from an empty old_string", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = path.join(w.root, "foo")
      const r = yield* w.edit.call({ file_path: file, old_string: "", new_string: "hello" })
      assert.isTrue(textOf(r).startsWith(`Created new file: ${file} with provided content. Showing lines 1-1 of 1 from the edited file:`))
      assert.strictEqual(fs.readFileSync(file, "utf8"), "hello")
      assert.isTrue(r.data.created)
    }))

  it.effect("an empty old_string on an existing file → attempt_to_create_existing_file", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("exists.txt", "content\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "", new_string: "x" }))
      assert.strictEqual(e.code, "attempt_to_create_existing_file")
      assert.strictEqual(e.message, `File already exists, cannot create: ${w.target}`)
      assert.strictEqual(e.display, "Failed to edit. Attempted to create a file that already exists.")
    }))

  it.effect("two occurrences without replace_all → edit_expected_occurrence_mismatch; with it, both change", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("dup.txt", "x = 1\nx = 1\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "x = 1", new_string: "x = 2" }))
      assert.strictEqual(e.code, "edit_expected_occurrence_mismatch")
      assert.include(e.message, "Found 2 occurrences")
      assert.strictEqual(e.message, `Failed to edit. Found 2 occurrences for old_string in ${w.target} but replace_all was not enabled.`)
      const r = yield* w.edit.call({ file_path: w.target, old_string: "x = 1", new_string: "x = 2", replace_all: true })
      assert.strictEqual(fs.readFileSync(w.target, "utf8"), "x = 2\nx = 2\n")
      assert.strictEqual(r.data.match?.occurrences, 2)
    }))

  it.effect("a file never read this session → edit_requires_prior_read with the reference message", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("unread.txt", "a\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: file, old_string: "a", new_string: "b" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.strictEqual(
        e.message,
        `File ${file} has not been read in this session. Use the read_file tool first to load the current content (a partial read with offset / limit is fine — you only need to have seen the bytes you intend to edit) before editing it.`
      )
      assert.strictEqual(fs.readFileSync(file, "utf8"), "a\n")
    }))

  it.effect("a file read, then touched by another process → file_changed_since_read", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("touched.txt", "one\n")
      fs.writeFileSync(w.target, "one\ntwo\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "one", new_string: "1" }))
      assert.strictEqual(e.code, "file_changed_since_read")
      assert.strictEqual(fs.readFileSync(w.target, "utf8"), "one\ntwo\n")
    }))

  it.effect("a file read, then replaced by a rename (a new inode) → file_changed_since_read, not 'never read'", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("replaced.txt", "one\n")
      const next = path.join(path.dirname(w.target), ".replaced.tmp")
      fs.writeFileSync(next, "one\nmore\n")
      fs.renameSync(next, w.target)
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "one", new_string: "1" }))
      assert.strictEqual(e.code, "file_changed_since_read")
      assert.include(e.message, "was replaced since you last read it")
      assert.strictEqual(fs.readFileSync(w.target, "utf8"), "one\nmore\n")
    }))

  const normalizeVectors: ReadonlyArray<{ name: string; file: string; old: string; neu: string; after: string; rung: string }> = [
    { name: "leading spaces in new_string stay", file: "const one = 1;\nconst two = 2;\n", old: "const two = 2;", neu: "  const two = 42;", after: "const one = 1;\n  const two = 42;\n", rung: "exact" },
    { name: "curly quotes in old_string match ASCII in the file", file: "const greeting = 'Don't';\n", old: "const greeting = \u2018Don\u2019t\u2019;", neu: "const greeting = \"Hello\";", after: "const greeting = \"Hello\";\n", rung: "unicode_normalized" },
    { name: "an en dash matches a hyphen; new_string keeps its dash and trailing spaces", file: "const range = \"1-2\";\n", old: "const range = \"1\u20132\";", neu: "const range = \"3\u20135\";   ", after: "const range = \"3\u20135\";   \n", rung: "unicode_normalized" },
    { name: "NBSP matches a space; new_string keeps its NBSP", file: "const label = \"hello world\";\n", old: "const label = \"hello\u00a0world\";", neu: "const label = \"hi\u00a0there\";", after: "const label = \"hi\u00a0there\";\n", rung: "unicode_normalized" },
    { name: "a final newline the file lacks is dropped from both", file: "console.log(\"hi\")", old: "console.log(\"hi\")\n", neu: "console.log(\"bye\")\n", after: "console.log(\"bye\")", rung: "dropped_trailing_empty_line" },
    { name: "trailing spaces in old_string the file lacks", file: "value = 1;\n", old: "value = 1;   \n", neu: "value = 2;   \n", after: "value = 2;   \n", rung: "trim_end_lines" },
    { name: "trailing spaces in the file old_string lacks", file: "value = 1;   \n", old: "value = 1;\n", neu: "value = 2;\n", after: "value = 2;\n", rung: "trim_end_lines" },
    { name: "curly quotes in the file are matched by ASCII ones", file: "x = \u201chi\u201d;\n", old: "x = \"hi\";", neu: "x = \"bye\";", after: "x = \"bye\";\n", rung: "unicode_normalized" },
    { name: "a deletion takes its line break", file: "console.log(\"hi\")\nconsole.log(\"bye\")\n", old: "console.log(\"hi\")", neu: "", after: "console.log(\"bye\")\n", rung: "exact" },
    { name: "$ patterns in new_string are literal", file: "price value\n", old: "value", neu: "$$100 $& $' $`", after: "price $$100 $& $' $`\n", rung: "exact" }
  ]
  for (const v of normalizeVectors) {
    it.effect(`normalize: ${v.name}`, () =>
      Effect.gen(function*() {
        const w = yield* readFileWith("v.ts", v.file)
        const r = yield* w.edit.call({ file_path: w.target, old_string: v.old, new_string: v.neu })
        assert.strictEqual(fs.readFileSync(w.target, "utf8"), v.after)
        assert.strictEqual(r.data.match?.rung, v.rung)
      }))
  }

  it.effect("indentation is never relaxed by the reference rungs: a non-uniform shift misses", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("indent.ts", "    foo\n      bar\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "  foo\n  bar", new_string: "x" }))
      assert.strictEqual(e.code, "edit_no_occurrence_found")
    }))
})

describe("edit: an approximate match elsewhere at another column", () => {
  it.effect("is refused, and the message lists the lines of the places", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("stray.ts", "x = compute(a)\n    y = x = compute(a) + 1\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "x = compute(a)  ", new_string: "x = 2" }))
      assert.strictEqual(e.code, "edit_expected_occurrence_mismatch")
      assert.include(e.message, "old_string matches 2 places")
      assert.include(e.message, "(lines 1, 2; trailing whitespace at line ends was ignored)")
      assert.strictEqual(fs.readFileSync(w.target, "utf8"), "x = compute(a)\n    y = x = compute(a) + 1\n")
    }))
})

describe("edit: results as data and disclosure", () => {
  it.effect("a non-exact rung is reported in the result, the data and the confirmation title", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("q.ts", "const a = \u201cx\u201d;\nconst b = 2;\n")
      const r = yield* w.edit.call({ file_path: w.target, old_string: "const a = \"x\";", new_string: "const a = \"y\";" })
      assert.include(textOf(r), "old_string matched line 1 approximately: look-alike characters")
      assert.include(textOf(r), "(rung: unicode_normalized)")
      assert.deepStrictEqual(r.data.match, {
        rung: "unicode_normalized",
        occurrences: 1,
        startLine: 1,
        endLine: 1,
        replaced: "const a = \u201cx\u201d;",
        inserted: "const a = \"y\";"
      })
      const invocation = yield* w.edit.build({ file_path: w.target, old_string: "const b = 2;   ", new_string: "const b = 3;" })
      const details = yield* invocation.confirmation
      assert.strictEqual(details.type, "edit")
      if (details.type === "edit") {
        assert.strictEqual(details.title, "Confirm Edit: q.ts (approximate match: trim_end_lines, lines 2-2)")
        assert.include(details.fileDiff, "-const b = 2;\n+const b = 3;")
        assert.include(details.fileDiff, "--- q.ts\tCurrent")
        assert.include(details.fileDiff, "+++ q.ts\tProposed")
      }
    }))

  it.effect("the success text shows the ±4-line snippet", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("s.txt", Array.from({ length: 20 }, (_, i) => `L${i + 1}`).join("\n"))
      const r = yield* w.edit.call({ file_path: w.target, old_string: "L10", new_string: "TEN" })
      assert.strictEqual(
        textOf(r),
        `The file: ${w.target} has been updated. Showing lines 6-14 of 20 from the edited file:\n\n---\n\nL6\nL7\nL8\nL9\nTEN\nL11\nL12\nL13\nL14`
      )
      assert.deepStrictEqual(
        { added: r.data.diffStat.model_added_lines, removed: r.data.diffStat.model_removed_lines, user: r.data.diffStat.user_added_lines },
        { added: 1, removed: 1, user: 0 }
      )
      assert.strictEqual(typeof r.display === "object" && r.display._tag, "FileDiff")
    }))

  it.effect("descriptions: Create / No file changes to / the path", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("d.txt", "a\n")
      assert.strictEqual((yield* w.edit.build({ file_path: "new.txt", old_string: "", new_string: "x" })).description, "Create new.txt")
      assert.strictEqual((yield* w.edit.build({ file_path: "d.txt", old_string: "a", new_string: "a" })).description, "No file changes to d.txt")
      assert.strictEqual((yield* w.edit.build({ file_path: "d.txt", old_string: "a", new_string: "b" })).description, "d.txt")
    }))

  it.effect("a miss names the closest text with a character diff", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("m.ts", "function add(a, b) {\n  return a + b\n}\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "  return a - b", new_string: "  return a * b" }))
      assert.strictEqual(e.code, "edit_no_occurrence_found")
      assert.isTrue(e.message.startsWith(`Failed to edit, 0 occurrences found for old_string in ${w.target}. No edits made.`))
      assert.include(e.message, "The closest text in the file is at line 2:\n  return a + b")
      assert.include(e.message, "Difference ([-in old_string-]{+in the file+}): ")
      assert.include(e.message, "[---]{+++}")
      assert.strictEqual(e.display, "Failed to edit, could not find the string to replace.")
    }))
})

describe("edit: every error code", () => {
  it.effect("file_not_found for a missing file with a non-empty old_string", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = path.join(w.root, "nope.txt")
      const e = yield* Effect.flip(w.edit.call({ file_path: file, old_string: "a", new_string: "b" }))
      assert.strictEqual(e.code, "file_not_found")
      assert.strictEqual(e.message, `File not found: ${file}`)
      assert.strictEqual(e.display, "File not found. Cannot apply edit. Use an empty old_string to create a new file.")
    }))

  it.effect("edit_no_change: identical strings, and identical resulting content", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("same.txt", "keep\n")
      const e1 = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "keep", new_string: "keep" }))
      assert.strictEqual(e1.code, "edit_no_change")
      assert.strictEqual(e1.message, `No changes to apply. The old_string and new_string are identical in file: ${w.target}`)
      // trailing spaces differ only in old_string: the real slice equals new_string
      const e2 = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "keep   ", new_string: "keep" }))
      assert.strictEqual(e2.code, "edit_no_change")
    }))

  it.effect("edit_expected_occurrence_mismatch for a fuzzy match at two places (never first-wins)", () =>
    Effect.gen(function*() {
      const w2 = yield* readFileWith("two.ts", "x = \u201ca\u201d\ny = 1\nx = \u201ca\u201d\n")
      const e2 = yield* Effect.flip(w2.edit.call({ file_path: w2.target, old_string: "x = \"a\"", new_string: "q" }))
      assert.strictEqual(e2.code, "edit_expected_occurrence_mismatch")
      assert.strictEqual(bytesOf(w2.target).toString(), "x = \u201ca\u201d\ny = 1\nx = \u201ca\u201d\n")
    }))

  it.effect("edit_requires_prior_read for a binary payload read and for a FIFO", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const bin = w.file("blob.dat", Buffer.from([0, 1, 2, 3]))
      yield* w.read.call({ file_path: bin })
      const e = yield* Effect.flip(w.edit.call({ file_path: bin, old_string: "\u0001", new_string: "x" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.include(e.message, "binary / image / audio / video / PDF / notebook payload")
      const fifo = path.join(w.root, "fifo")
      execFileSync("mkfifo", [fifo])
      const f = yield* Effect.flip(w.edit.call({ file_path: fifo, old_string: "a", new_string: "b" }))
      assert.strictEqual(f.code, "edit_requires_prior_read")
      assert.include(f.message, "is a FIFO / socket / character or block device")
    }))

  it.effect("target_is_directory", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      fs.mkdirSync(path.join(w.root, "sub"))
      const e = yield* Effect.flip(w.edit.call({ file_path: "sub", old_string: "a", new_string: "b" }))
      assert.strictEqual(e.code, "target_is_directory")
    }))

  it.effect("file_not_found when a parent of the path is a file (ENOTDIR)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      w.file("plain.txt", "x")
      const e = yield* Effect.flip(w.edit.call({ file_path: "plain.txt/child", old_string: "", new_string: "b" }))
      assert.strictEqual(e.code, "file_not_found")
      assert.include(e.message, "part of its parent path is a file")
    }))

  it.effect("edit_preparation_failure for a character the file's encoding cannot hold", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("gbk.txt", iconv.encode("名字 = 1\n", "gbk"))
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "1", new_string: "\u{1F600}" }))
      assert.strictEqual(e.code, "edit_preparation_failure")
      assert.include(e.message, "U+1F600")
      assert.include(e.message, "GBK")
    }))

  it.effect("file_too_large over the configured edit limit (at its edge)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const edit = yield* makeEdit.pipe(
        Effect.provide(w.context),
        Effect.provideService(FileToolsConfig, { ...DEFAULT_FILE_TOOLS_SETTINGS, maxEditFileBytes: 10 })
      )
      const ok = w.file("ten.txt", "0123456789")
      yield* w.read.call({ file_path: ok })
      yield* edit.call({ file_path: ok, old_string: "0", new_string: "X" })
      const big = w.file("eleven.txt", "0123456789A")
      yield* w.read.call({ file_path: big })
      const e = yield* Effect.flip(edit.call({ file_path: big, old_string: "0", new_string: "X" }))
      assert.strictEqual(e.code, "file_too_large")
    }))

  it.effect("permission_denied when the OS refuses the write (immutable file: EPERM)", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("immutable.txt", "locked\n")
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("chattr", ["+i", w.target])),
        () => Effect.sync(() => execFileSync("chattr", ["-i", w.target]))
      )
      const e = yield* Effect.flip(w.edit.call({ file_path: w.target, old_string: "locked", new_string: "open" }))
      assert.strictEqual(e.code, "permission_denied")
      assert.isTrue(e.message.startsWith(`Permission denied writing to file: ${w.target} (EPERM). `), e.message)
      assert.strictEqual(fs.readFileSync(w.target, "utf8"), "locked\n")
    }))

  it.effect("invalid_tool_params for an empty path, path_not_in_workspace outside the roots", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      assert.strictEqual((yield* Effect.flip(w.edit.call({ file_path: " ", old_string: "", new_string: "x" }))).code, "invalid_tool_params")
      assert.strictEqual((yield* Effect.flip(w.edit.call({ file_path: "/etc/passwd", old_string: "a", new_string: "b" }))).code, "path_not_in_workspace")
      assert.strictEqual((yield* Effect.flip(w.edit.call({ file_path: "../escape.txt", old_string: "", new_string: "b" }))).code, "path_not_in_workspace")
    }))
})

describe("edit: encodings, BOMs and line endings survive", () => {
  const cases: ReadonlyArray<{ name: string; before: Uint8Array; old: string; neu: string; after: Uint8Array }> = [
    {
      name: "UTF-8 with BOM",
      before: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a = 1\nb = 2\n")]),
      old: "b = 2",
      neu: "b = 3",
      after: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a = 1\nb = 3\n")])
    },
    {
      name: "UTF-16LE with BOM and CRLF",
      before: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("first\r\nsecond\r\n", "utf-16le")]),
      old: "second",
      neu: "2nd\nthird",
      after: Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode("first\r\n2nd\r\nthird\r\n", "utf-16le")])
    },
    {
      name: "CRLF stays CRLF (old_string given with LF)",
      before: Buffer.from("one\r\ntwo\r\nthree\r\n"),
      old: "one\ntwo",
      neu: "1\n2",
      after: Buffer.from("1\r\n2\r\nthree\r\n")
    },
    {
      name: "GBK stays GBK",
      before: iconv.encode("// 注释\nconst 名字 = \"张三\";\n", "gbk"),
      old: "const 名字 = \"张三\";",
      neu: "const 名字 = \"李四\";",
      after: iconv.encode("// 注释\nconst 名字 = \"李四\";\n", "gbk")
    },
    {
      name: "mixed line endings are kept where untouched",
      before: Buffer.from("a\r\nb\nc\r\n"),
      old: "b",
      neu: "B",
      after: Buffer.from("a\r\nB\nc\r\n")
    }
  ]
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const w = yield* readFileWith("enc.txt", c.before)
        yield* w.edit.call({ file_path: w.target, old_string: c.old, new_string: c.neu })
        assert.strictEqual(Buffer.compare(bytesOf(w.target), Buffer.from(c.after)), 0, bytesOf(w.target).toString("hex"))
      }))
  }

  it.effect("a new file is UTF-8 without BOM; utf-8-bom is configurable", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      yield* w.edit.call({ file_path: "plain.txt", old_string: "", new_string: "é" })
      assert.deepStrictEqual([...bytesOf(path.join(w.root, "plain.txt"))], [0xc3, 0xa9])
      const bomEdit = yield* makeEdit.pipe(
        Effect.provide(w.context),
        Effect.provideService(FileToolsConfig, { ...DEFAULT_FILE_TOOLS_SETTINGS, newFileEncoding: "utf-8-bom" })
      )
      yield* bomEdit.call({ file_path: "bom.txt", old_string: "", new_string: "é" })
      assert.deepStrictEqual([...bytesOf(path.join(w.root, "bom.txt"))], [0xef, 0xbb, 0xbf, 0xc3, 0xa9])
    }))

  it.effect("mode, owner and symlinks are kept: the link's target is written, the link stays a link", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const target = w.file("real.sh", "echo one\n")
      fs.chmodSync(target, 0o751)
      fs.chownSync(target, 65534, 65534)
      const link = path.join(w.root, "link.sh")
      fs.symlinkSync("real.sh", link)
      yield* w.read.call({ file_path: link })
      const r = yield* w.edit.call({ file_path: link, old_string: "one", new_string: "two" })
      assert.isTrue(fs.lstatSync(link).isSymbolicLink())
      assert.strictEqual(fs.readFileSync(target, "utf8"), "echo two\n")
      const st = fs.statSync(target)
      assert.strictEqual(st.mode & 0o7777, 0o751)
      assert.strictEqual(st.uid, 65534)
      assert.strictEqual(r.data.writtenPath, target)
      assert.strictEqual(r.data.method, "atomic")
    }))

  it.effect("a hard-linked file is written in place, so every link sees the change", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("h1.txt", "shared\n")
      const other = path.join(w.root, "h2.txt")
      fs.linkSync(w.target, other)
      const r = yield* w.edit.call({ file_path: w.target, old_string: "shared", new_string: "changed" })
      assert.strictEqual(r.data.method, "in-place")
      assert.strictEqual(fs.readFileSync(other, "utf8"), "changed\n")
    }))
})

describe("edit: history and the stricter read evidence", () => {
  it.effect("every edit leaves a before-image in <stateDir>/history/<session>", () =>
    Effect.gen(function*() {
      const w = yield* readFileWith("hist.txt", "v1\n")
      const r = yield* w.edit.call({ file_path: w.target, old_string: "v1", new_string: "v2" })
      const dir = path.join(w.state, "history", "session-test")
      assert.isDefined(r.data.historyId)
      assert.strictEqual(fs.readFileSync(path.join(dir, `${r.data.historyId}.bak`), "utf8"), "v1\n")
      const meta = JSON.parse(fs.readFileSync(path.join(dir, `${r.data.historyId}.json`), "utf8"))
      assert.strictEqual(meta.path, w.target)
      assert.strictEqual(meta.tool, "edit")
      assert.strictEqual(fs.statSync(dir).mode & 0o777, 0o700)
    }))

  it.effect("readEvidence ranges: an edit must target lines seen; paging in the rest makes it pass", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld({ readEvidence: "ranges" })
      const file = w.file("big.txt", Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n") + "\n")
      yield* w.read.call({ file_path: file, offset: 0, limit: 10 })
      const e = yield* Effect.flip(w.edit.call({ file_path: file, old_string: "row 20", new_string: "ROW 20" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.include(e.message, "This edit changes line 20 of")
      assert.include(e.message, "lines seen so far: 1-10")
      assert.include(e.message, "(offset: 19, limit: 1)")
      yield* w.read.call({ file_path: file, offset: 19, limit: 1 })
      yield* w.edit.call({ file_path: file, old_string: "row 20", new_string: "ROW 20" })
      assert.include(fs.readFileSync(file, "utf8"), "ROW 20")
    }))

  it.effect("default evidence: a partial read anywhere clears an edit anywhere (reference #3945)", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("any.txt", Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n"))
      yield* w.read.call({ file_path: file, offset: 0, limit: 1 })
      yield* w.edit.call({ file_path: file, old_string: "row 30", new_string: "last" })
      assert.isTrue(fs.readFileSync(file, "utf8").endsWith("last"))
    }))
})
