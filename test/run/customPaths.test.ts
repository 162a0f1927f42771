/**
 * Custom tools are safe by default: a path param declared with `PathParam` is resolved against the
 * workspace and boundary-checked before the tool's `invoke`, with the built-ins' errors. The tool
 * under test is docs/embedding.md's `word_count` example, imported as written from
 * examples/embedding.ts (a docs test keeps the two in step).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { wordCount } from "../../examples/embedding.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { testSession } from "../support/session.js"

const run = (args: unknown) => Scheduler.use((scheduler) => scheduler.runOne({ callId: "1", name: "word_count", args }))

describe("a custom tool's path params (docs/embedding.md word_count)", () => {
  it.effect("refuses /etc/passwd and ../ with path_not_in_workspace; a relative path resolves against the first root", () => {
    const s = testSession([wordCount])
    // README.md exists in the process's working directory too (this repo): the count tells which was read
    fs.writeFileSync(path.join(s.root, "README.md"), "one two three\n")
    fs.mkdirSync(path.join(s.root, "sub"))
    fs.writeFileSync(path.join(s.root, "sub", "notes.txt"), "a b\n")
    return Effect.gen(function*() {
      const passwd = yield* run({ file_path: "/etc/passwd" })
      assert.strictEqual(passwd._tag, "Failure")
      assert.strictEqual(passwd._tag === "Failure" ? passwd.code : "", "path_not_in_workspace")
      assert.include(passwd._tag === "Failure" ? passwd.message : "", s.root)

      const up = yield* run({ file_path: "../outside.txt" })
      assert.strictEqual(up._tag === "Failure" ? up.code : up._tag, "path_not_in_workspace")

      const readme = yield* run({ file_path: "README.md" })
      assert.strictEqual(readme._tag, "Success")
      assert.deepStrictEqual(readme._tag === "Success" ? readme.data : undefined, { words: 3 })

      const nested = yield* run({ file_path: "sub/../sub/notes.txt" })
      assert.deepStrictEqual(nested._tag === "Success" ? nested.data : nested, { words: 2 })
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("a symlink out of the workspace is refused, one inside is followed", () => {
    const s = testSession([wordCount])
    fs.writeFileSync(path.join(s.root, "real.txt"), "x y z w\n")
    fs.symlinkSync("/etc/passwd", path.join(s.root, "escape.txt"))
    fs.symlinkSync("real.txt", path.join(s.root, "alias.txt"))
    return Effect.gen(function*() {
      const escape = yield* run({ file_path: "escape.txt" })
      assert.strictEqual(escape._tag === "Failure" ? escape.code : escape._tag, "path_not_in_workspace")
      const alias = yield* run({ file_path: "alias.txt" })
      assert.deepStrictEqual(alias._tag === "Success" ? alias.data : alias, { words: 4 })
    }).pipe(Effect.provide(s.layer))
  })

  it.effect("the invocation carries the resolved path (what hooks, policy and the tool see)", () => {
    const s = testSession([wordCount])
    fs.writeFileSync(path.join(s.root, "n.txt"), "1\n")
    return Effect.gen(function*() {
      const result = yield* run({ file_path: "./n.txt" })
      assert.strictEqual(result._tag, "Success")
      const batch = yield* Scheduler.use((scheduler) => scheduler.runBatch([{ callId: "2", name: "word_count", args: { file_path: "n.txt" } }]))
      assert.deepStrictEqual(batch.touchedPaths, [path.join(s.root, "n.txt")])
    }).pipe(Effect.provide(s.layer))
  })
})
