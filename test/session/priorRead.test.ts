import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { checkPriorRead, type PriorReadVerb } from "../../src/session/priorRead.js"
import { makeFileReadCache } from "../../src/session/readCache.js"
import {
  EditRequiresPriorRead,
  FileChangedSinceRead,
  FileNotFound,
  PriorReadVerificationFailed,
  TargetIsDirectory
} from "../../src/tool/errors.js"
import { tempDir, write } from "./helpers.js"

const verbs: ReadonlyArray<{ verb: PriorReadVerb; base: string }> = [
  { verb: "editing", base: "edit" },
  { verb: "overwriting", base: "overwrite" }
]

const setup = Effect.gen(function*() {
  const tmp = yield* tempDir
  const cache = yield* makeFileReadCache()
  const file = path.join(tmp, "a.ts")
  write(file, "line 1\nline 2\n")
  return { tmp, cache, file }
})

describe("checkPriorRead (reference §4.2, row by row)", () => {
  it.effect("row 1: a missing file passes when not expected to exist", () =>
    Effect.gen(function*() {
      const { tmp, cache } = yield* setup
      for (const { verb } of verbs) {
        yield* checkPriorRead(cache, path.join(tmp, "new.ts"), verb)
        yield* checkPriorRead(cache, path.join(tmp, "new.ts"), verb, { expectExisting: false })
      }
      assert.strictEqual(yield* cache.size, 0)
    }))

  it.effect("row 2: a file that disappeared after the read → file_changed_since_read", () =>
    Effect.gen(function*() {
      const { cache, file } = yield* setup
      yield* cache.recordRead(file, fs.statSync(file), { full: true, cacheable: true })
      fs.unlinkSync(file)
      for (const { verb } of verbs) {
        const e = yield* Effect.flip(checkPriorRead(cache, file, verb, { expectExisting: true }))
        assert.instanceOf(e, FileChangedSinceRead)
        assert.strictEqual(e.code, "file_changed_since_read")
        assert.strictEqual(
          e.message,
          `File ${file} disappeared after the model read it (stat now returns ENOENT). Re-read with the read_file tool — the path may have been deleted or moved — before retrying ${verb} it.`
        )
        assert.strictEqual(e.display, "file disappeared after last read; re-run read_file first.")
      }
    }))

  it.effect("row 3: a parent that is a file (ENOTDIR) → file_not_found, not a verification failure", () =>
    Effect.gen(function*() {
      const { cache, file } = yield* setup
      const p = path.join(file, "child") // a path under a regular file: ENOTDIR
      for (const { verb, base } of verbs) {
        for (const options of [{}, { expectExisting: true }]) {
          const e = yield* Effect.flip(checkPriorRead(cache, p, verb, options))
          assert.instanceOf(e, FileNotFound)
          assert.strictEqual(e.code, "file_not_found")
          assert.strictEqual(
            e.message,
            `Cannot ${base} ${p}: part of its parent path is a file, not a directory, so no file exists or can be ` +
              `created there. Check the path (list the parent directory) and use the path of a regular file.`
          )
        }
      }
    }))

  it.effect("row 3: any other stat error → prior_read_verification_failed with the errno code", () =>
    Effect.gen(function*() {
      const { cache, tmp } = yield* setup
      const p = path.join(tmp, "loop")
      fs.symlinkSync(p, p) // a link to itself: stat fails with ELOOP
      for (const { verb } of verbs) {
        const e = yield* Effect.flip(checkPriorRead(cache, p, verb))
        assert.instanceOf(e, PriorReadVerificationFailed)
        assert.strictEqual(e.code, "prior_read_verification_failed")
        assert.strictEqual(
          e.message,
          `Could not stat ${p} to verify prior read (ELOOP). Re-read with the read_file tool, then retry ${verb} it.`
        )
        assert.strictEqual(e.display, `cannot verify prior read of ${p}; re-run read_file before ${verb} this file.`)
      }
    }))

  it.effect("row 4: a directory → target_is_directory, even if recorded", () =>
    Effect.gen(function*() {
      const { tmp, cache } = yield* setup
      yield* cache.recordRead(tmp, fs.statSync(tmp), { full: true, cacheable: true })
      for (const { verb, base } of verbs) {
        const e = yield* Effect.flip(checkPriorRead(cache, tmp, verb, { expectExisting: true }))
        assert.instanceOf(e, TargetIsDirectory)
        assert.strictEqual(e.code, "target_is_directory")
        assert.strictEqual(
          e.message,
          `${tmp} is a directory. The Edit / WriteFile tools only operate on regular files. Use a different mechanism (e.g. the shell tool) if you need to ${base} the contents of this directory.`
        )
        assert.strictEqual(e.display, `path is a directory; cannot ${base} via this tool.`)
      }
    }))

  it.effect("row 5: a FIFO or a character device → edit_requires_prior_read (special file)", () =>
    Effect.gen(function*() {
      const { tmp, cache } = yield* setup
      const fifo = path.join(tmp, "pipe")
      execFileSync("mkfifo", [fifo])
      assert.isTrue(fs.statSync(fifo).isFIFO())
      for (const p of [fifo, "/dev/null"]) {
        for (const { verb, base } of verbs) {
          const e = yield* Effect.flip(checkPriorRead(cache, p, verb))
          assert.instanceOf(e, EditRequiresPriorRead)
          assert.strictEqual(e.code, "edit_requires_prior_read")
          assert.strictEqual(
            e.message,
            `${p} is a FIFO / socket / character or block device. The Edit / WriteFile tools only operate on regular files; the read_file tool also rejects these targets. Use a different mechanism (e.g. shell tool with the appropriate command) if you need to ${base} this path.`
          )
          assert.strictEqual(e.display, `special file; cannot ${base} via this tool.`)
        }
      }
    }))

  it.effect("row 6: a fresh text read passes — partial, truncated, through a symlink, or after a write", () =>
    Effect.gen(function*() {
      const { tmp, cache, file } = yield* setup
      yield* cache.recordRead(file, fs.statSync(file), { full: false, cacheable: true })
      fs.symlinkSync(file, path.join(tmp, "link.ts"))
      for (const { verb } of verbs) {
        yield* checkPriorRead(cache, file, verb)
        yield* checkPriorRead(cache, file, verb, { expectExisting: true })
        yield* checkPriorRead(cache, path.join(tmp, "link.ts"), verb)
      }
      const created = path.join(tmp, "created.ts")
      write(created, "new\n")
      yield* cache.recordWrite(created, fs.statSync(created))
      yield* checkPriorRead(cache, created, "editing", { expectExisting: true })
      assert.strictEqual(yield* cache.size, 2)
    }))

  it.effect("row 7: touched by another process (mtime or size) → file_changed_since_read", () =>
    Effect.gen(function*() {
      const { cache, file } = yield* setup
      const before = fs.statSync(file)
      yield* cache.recordRead(file, before, { full: true, cacheable: true })
      fs.utimesSync(file, before.atime, new Date(before.mtimeMs + 5000))
      for (const { verb } of verbs) {
        const e = yield* Effect.flip(checkPriorRead(cache, file, verb))
        assert.instanceOf(e, FileChangedSinceRead)
        assert.strictEqual(
          e.message,
          `File ${file} has been modified since you last read it (mtime or size changed). Re-read it with the read_file tool before ${verb} it to ensure your changes are based on current content.`
        )
        assert.strictEqual(e.display, "file changed since last read; re-run read_file first.")
      }
      // Size only: same mtime restored after appending.
      yield* cache.recordRead(file, fs.statSync(file), { full: true, cacheable: true })
      const again = fs.statSync(file)
      fs.appendFileSync(file, "line 3\n")
      fs.utimesSync(file, again.atime, again.mtime)
      assert.strictEqual(fs.statSync(file).mtimeMs, again.mtimeMs)
      assert.instanceOf(yield* Effect.flip(checkPriorRead(cache, file, "editing")), FileChangedSinceRead)
      // A stale non-text read reports the drift first (row 7 before row 8).
      yield* cache.recordRead(file, fs.statSync(file), { full: true, cacheable: false })
      fs.appendFileSync(file, "line 4\n")
      assert.instanceOf(yield* Effect.flip(checkPriorRead(cache, file, "editing")), FileChangedSinceRead)
    }))

  it.effect("row 8: a fresh non-text read → edit_requires_prior_read (payload)", () =>
    Effect.gen(function*() {
      const { tmp, cache } = yield* setup
      const png = path.join(tmp, "img.png")
      write(png, "\x89PNG")
      yield* cache.recordRead(png, fs.statSync(png), { full: true, cacheable: false })
      for (const { verb, base } of verbs) {
        const e = yield* Effect.flip(checkPriorRead(cache, png, verb))
        assert.instanceOf(e, EditRequiresPriorRead)
        assert.strictEqual(
          e.message,
          `File ${png} is a binary / image / audio / video / PDF / notebook payload that the read_file tool returns as a structured value rather than as plain text. The Edit / WriteFile tools cannot mutate that payload safely — re-reading it would not change this. If this is a Jupyter notebook (.ipynb), use the notebook_edit tool for cell-level edits after reading it. For other non-text files, use a different mechanism (e.g. shell tool with an appropriate writer) if you need to ${base} it.`
        )
        assert.strictEqual(e.display, `non-text payload; cannot ${base} via this tool.`)
      }
    }))

  it.effect("row 9: never read → edit_requires_prior_read with the verb's guidance", () =>
    Effect.gen(function*() {
      const { cache, file } = yield* setup
      const editing = yield* Effect.flip(checkPriorRead(cache, file, "editing"))
      assert.instanceOf(editing, EditRequiresPriorRead)
      assert.strictEqual(
        editing.message,
        `File ${file} has not been read in this session. Use the read_file tool first to load the current content (a partial read with offset / limit is fine — you only need to have seen the bytes you intend to edit) before editing it.`
      )
      assert.strictEqual(editing.display, "read_file required before editing this file.")
      const overwriting = yield* Effect.flip(checkPriorRead(cache, file, "overwriting", { expectExisting: true }))
      assert.strictEqual(
        overwriting.message,
        `File ${file} has not been read in this session. Use the read_file tool first to load the current content (read the full file — overwriting replaces every byte, so any unseen bytes would be discarded) before overwriting it.`
      )
      assert.strictEqual(overwriting.display, "read_file required before overwriting this file.")
    }))

  it.effect("skipped entirely when the cache is disabled (opt-out)", () =>
    Effect.gen(function*() {
      const { tmp, file } = yield* setup
      const cache = yield* makeFileReadCache({ disabled: true })
      yield* checkPriorRead(cache, file, "overwriting")
      yield* checkPriorRead(cache, tmp, "editing")
      yield* checkPriorRead(cache, path.join(tmp, "gone"), "editing", { expectExisting: true })
      assert.isTrue(cache.disabled)
    }))
})
