/**
 * A prior-read check that lands in the middle of another call's write (after its rename, before
 * its read-cache record) saw a new inode this session had no record of and refused with
 * `edit_requires_prior_read` — 1 of 100 overlapping edits in one CI run. The check now waits for
 * the file's writers and looks again. Here the other write is held open deterministically: the
 * rename is done under the file's lock, the record comes only when the lock is released.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Fiber } from "effect"
import { WriteLocks } from "../../src/text/index.js"
import { fileWorld } from "../files/helpers.js"

describe("a prior-read check during another write of the same file", () => {
  it.live("waits for the write to be recorded, then plans on its result instead of refusing", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("shared.txt", "alpha\nbeta\ngamma\n")
      yield* w.read.call({ file_path: file })
      const locks = yield* WriteLocks
      const other = path.join(w.root, ".other-write.tmp")
      const edit = yield* locks.withLock(
        file,
        Effect.gen(function*() {
          // The other writer's rename: a new inode with its change, not yet recorded as this session's.
          fs.writeFileSync(other, "ALPHA\nbeta\ngamma\n")
          fs.renameSync(other, file)
          const edit = yield* Effect.forkChild(w.edit.call({ file_path: file, old_string: "gamma", new_string: "GAMMA" }))
          yield* Effect.sleep("150 millis")
          // Before the fix the check had refused by now; it must be waiting for this writer instead.
          assert.isUndefined(edit.pollUnsafe(), "the edit finished while the other write was still in flight")
          yield* w.cache.recordWrite(file, fs.statSync(file))
          return edit
        })
      )
      const result = yield* Fiber.join(edit)
      assert.strictEqual(result.data.match?.rung, "exact")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "ALPHA\nbeta\nGAMMA\n")
    }))

  it.live("a file this session never read is still refused once the writers are done", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const file = w.file("unread.txt", "one\n")
      const e = yield* Effect.flip(w.edit.call({ file_path: file, old_string: "one", new_string: "1" }))
      assert.strictEqual(e.code, "edit_requires_prior_read")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "one\n")
    }))
})
