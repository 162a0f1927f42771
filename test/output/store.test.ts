import * as nodeFs from "node:fs/promises"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { sha, withStore } from "./support/store.js"
import { Effect, FileSystem, Path } from "effect"
import { countLines, OutputStore, pageOf, safeToolName } from "../../src/output/index.js"


const stat = (file: string) => Effect.promise(() => nodeFs.stat(file))

describe("OutputStore.persist", () => {
  it.effect("writes the full text atomically to <dir>/<tool>_<16 hex>.output, 0600 in a 0700 dir", () =>
    withStore({}, (store, dir) =>
      Effect.gen(function*() {
        const content = "héllo\nwörld\n"
        const saved = yield* store.persist("run_shell_command", content)
        assert.strictEqual(store.dir, dir)
        assert.match(saved.path, /\/run_shell_command_[0-9a-f]{16}\.output$/)
        assert.strictEqual(saved.path, `${dir}/${saved.id}.output`)
        assert.strictEqual(saved.toolName, "run_shell_command")
        assert.strictEqual(saved.bytes, Buffer.byteLength(content))
        assert.strictEqual(saved.bytes, 14)
        assert.strictEqual(saved.sha256, sha(content))
        assert.strictEqual(saved.lines, 2)
        assert.strictEqual(store.pathLength("run_shell_command"), saved.path.length)
        assert.strictEqual(yield* Effect.promise(() => nodeFs.readFile(saved.path, "utf8")), content)
        assert.strictEqual((yield* stat(saved.path)).mode & 0o777, 0o600)
        assert.strictEqual((yield* stat(dir)).mode & 0o777, 0o700)
        assert.deepStrictEqual(yield* Effect.promise(() => nodeFs.readdir(dir)), [`${saved.id}.output`])
        assert.deepStrictEqual(yield* store.usage, {
          usedBytes: 14,
          maxSessionBytes: 500 * 1024 * 1024,
          maxFileBytes: 50 * 1024 * 1024
        })
      })))

  it.effect("ids are unique and tool names are made safe for file names", () =>
    withStore({}, (store, dir) =>
      Effect.gen(function*() {
        const a = yield* store.persist("../../etc/passwd", "a")
        const b = yield* store.persist("../../etc/passwd", "b")
        assert.notStrictEqual(a.id, b.id)
        assert.match(a.id, /^_.._etc_passwd_[0-9a-f]{16}$/)
        assert.strictEqual(a.path, `${dir}/${a.id}.output`)
        assert.strictEqual(safeToolName("mcp__github__search issues"), "mcp__github__search_issues")
        assert.strictEqual(safeToolName("..."), "tool")
        assert.strictEqual(safeToolName(""), "tool")
        assert.strictEqual(safeToolName("x".repeat(100)).length, 64)
      })))

  it.effect("the per-file cap admits exactly maxFileBytes and rejects one byte more with OutputTooLarge", () =>
    withStore({ maxFileBytes: 10 }, (store, dir) =>
      Effect.gen(function*() {
        yield* store.persist("shell", "0123456789")
        const error = yield* Effect.flip(store.persist("shell", "é".repeat(6)))
        assert.strictEqual(error._tag, "OutputTooLarge")
        if (error._tag !== "OutputTooLarge") return
        assert.strictEqual(error.bytes, 12)
        assert.strictEqual(error.maxBytes, 10)
        assert.strictEqual(
          error.message,
          "The output of shell is 12 bytes, over the 10-byte limit for one saved output, so it was not saved to a file."
        )
        assert.strictEqual((yield* Effect.promise(() => nodeFs.readdir(dir))).length, 1)
        assert.strictEqual((yield* store.usage).usedBytes, 10)
      })))

  it.effect("the session budget is tracked across calls and fails with SessionBudgetExhausted past the cap", () =>
    withStore({ maxSessionBytes: 10 }, (store) =>
      Effect.gen(function*() {
        yield* store.persist("a", "123456")
        const error = yield* Effect.flip(store.persist("b", "12345"))
        assert.strictEqual(error._tag, "SessionBudgetExhausted")
        if (error._tag !== "SessionBudgetExhausted") return
        assert.deepStrictEqual([error.bytes, error.usedBytes, error.maxBytes], [5, 6, 10])
        assert.include(error.message, "would exceed this session's 10-byte budget for saved outputs (6 bytes used)")
        yield* store.persist("c", "1234")
        assert.strictEqual((yield* store.usage).usedBytes, 10)
        assert.strictEqual((yield* store.list).length, 2)
      })))

  it.effect("parallel persists cannot overrun the session budget", () =>
    withStore({ maxSessionBytes: 100 }, (store) =>
      Effect.gen(function*() {
        const results = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i),
          (i) => Effect.result(store.persist(`t${i}`, "0123456789")),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(results.filter((r) => r._tag === "Success").length, 10)
        assert.strictEqual((yield* store.usage).usedBytes, 100)
        assert.strictEqual((yield* store.list).length, 10)
      })))

  it.effect("a write failure is OutputWriteFailed and gives the reserved bytes back", () =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const path = yield* Path.Path
      const root = yield* fs.makeTempDirectoryScoped()
      const blocker = path.join(root, "not-a-dir")
      yield* fs.writeFileString(blocker, "")
      const store = yield* OutputStore.pipe(Effect.provide(OutputStore.layer({ dir: path.join(blocker, "outputs") })))
      const error = yield* Effect.flip(store.persist("shell", "data"))
      assert.strictEqual(error._tag, "OutputWriteFailed")
      if (error._tag !== "OutputWriteFailed") return
      assert.isTrue(error.message.startsWith(`Could not save the output of shell to ${blocker}/outputs/shell_`))
      assert.strictEqual((yield* store.usage).usedBytes, 0)
      assert.deepStrictEqual(yield* store.list, [])
    }).pipe(Effect.provide(NodeServices.layer)))
})

describe("OutputStore.list / get / read", () => {
  it.effect("list returns the session's outputs oldest first; get finds one or fails with OutputNotFound", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* store.list, [])
        const a = yield* store.persist("a", "1")
        const b = yield* store.persist("b", "2")
        assert.deepStrictEqual(yield* store.list, [a, b])
        assert.deepStrictEqual(yield* store.get(b.id), b)
        const error = yield* Effect.flip(store.get("nope"))
        assert.strictEqual(error._tag, "OutputNotFound")
        assert.strictEqual(error.message, "No saved output with id 'nope' exists in this session.")
      })))

  it.effect("reads pages of lines that concatenate back to the exact content", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const content = Array.from({ length: 10 }, (_, i) => `l${i}`).join("\n") + "\n"
        const saved = yield* store.persist("shell", content)
        const first = yield* store.read(saved.id, { offsetLine: 0, limitLines: 3 })
        assert.deepStrictEqual(first, {
          id: saved.id,
          path: saved.path,
          offsetLine: 0,
          lineCount: 3,
          totalLines: 10,
          nextOffsetLine: 3,
          hasMore: true,
          content: "l0\nl1\nl2\n"
        })
        let offsetLine = 0
        let joined = ""
        for (;;) {
          const page = yield* store.read(saved.id, { offsetLine, limitLines: 4 })
          joined += page.content
          offsetLine = page.nextOffsetLine
          if (!page.hasMore) break
        }
        assert.strictEqual(joined, content)
        assert.strictEqual(offsetLine, 10)
        const whole = yield* store.read(saved.id)
        assert.strictEqual(whole.content, content)
        assert.isFalse(whole.hasMore)
        const past = yield* store.read(saved.id, { offsetLine: 50 })
        assert.deepStrictEqual([past.content, past.lineCount, past.hasMore], ["", 0, false])
      })))

  it.effect("invalid ranges fail with InvalidOutputPage; a vanished file with OutputReadFailed", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const saved = yield* store.persist("shell", "x\ny")
        const negative = yield* Effect.flip(store.read(saved.id, { offsetLine: -1 }))
        assert.strictEqual(negative._tag, "InvalidOutputPage")
        assert.strictEqual(negative.message, "offsetLine must be a non-negative integer, got -1.")
        const zero = yield* Effect.flip(store.read(saved.id, { limitLines: 0 }))
        assert.strictEqual(zero.message, "limitLines must be a positive integer, got 0.")
        const fraction = yield* Effect.flip(store.read(saved.id, { limitLines: 1.5 }))
        assert.strictEqual(fraction._tag, "InvalidOutputPage")
        yield* Effect.promise(() => nodeFs.rm(saved.path))
        const gone = yield* Effect.flip(store.read(saved.id))
        assert.strictEqual(gone._tag, "OutputReadFailed")
        assert.isTrue(gone.message.startsWith(`Could not read saved output '${saved.id}' at ${saved.path}: `))
        assert.strictEqual((yield* Effect.flip(store.read("missing")))._tag, "OutputNotFound")
      })))
})

describe("line counting and paging (pure)", () => {
  it("counts terminated lines plus a final unterminated one", () => {
    assert.deepStrictEqual(["", "a", "a\n", "a\nb", "\n\n", "a\n\nb\n"].map(countLines), [0, 1, 1, 2, 2, 3])
  })

  it("pages without a trailing newline keep the last line whole", () => {
    assert.deepStrictEqual(pageOf("a\nb\nc", 1, 5), {
      content: "b\nc",
      lineCount: 2,
      totalLines: 3,
      nextOffsetLine: 3,
      hasMore: false
    })
  })
})
