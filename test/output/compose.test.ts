import * as nodeFs from "node:fs/promises"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FileSystem, Path } from "effect"
import {
  applyTextBudget,
  OutputStore,
  persistForBudget,
  persistWithStub,
  planTextBudget,
  sha256Hex,
  truncateAndPersist
} from "../../src/output/index.js"

const SEP = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"

const withStore = <A, E>(
  options: { readonly maxFileBytes?: number; readonly maxSessionBytes?: number; readonly blocked?: boolean },
  body: (store: OutputStore["Service"]) => Effect.Effect<A, E, OutputStore>
) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const root = yield* fs.makeTempDirectoryScoped({ prefix: "toolwright-compose-" })
    if (options.blocked) yield* fs.writeFileString(path.join(root, "file"), "")
    const dir = options.blocked ? path.join(root, "file", "outputs") : path.join(root, "outputs")
    return yield* Effect.gen(function*() {
      return yield* body(yield* OutputStore)
    }).pipe(Effect.provide(OutputStore.layer({ dir, maxFileBytes: options.maxFileBytes, maxSessionBytes: options.maxSessionBytes })))
  }).pipe(Effect.provide(NodeServices.layer))

const readText = (file: string) => Effect.promise(() => nodeFs.readFile(file, "utf8"))

describe("truncateAndPersist (§10.2 with the store)", () => {
  it.effect("2 000 short lines → file written with the full text, message names it", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const lines = Array.from({ length: 2000 }, () => "short")
        const content = lines.join("\n")
        const out = yield* truncateAndPersist("shell", content, { chars: 40_000, lines: 1000 })
        assert.isTrue(out.replaced)
        const saved = out.persisted!
        assert.strictEqual(yield* readText(saved.path), content)
        assert.include(out.content, `The full output has been saved to: ${saved.path}\n`)
        assert.isTrue(out.content.endsWith(lines.slice(0, 200).join("\n") + SEP + lines.slice(-800).join("\n")))
        assert.deepStrictEqual(yield* store.list, [saved])
      })))

  it.effect("'x'×60 at 50 chars: unchanged and no file", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const out = yield* truncateAndPersist("shell", "x".repeat(60), { chars: 50, lines: 1000 })
        assert.deepStrictEqual(out, { content: "x".repeat(60), replaced: false })
        assert.deepStrictEqual(yield* store.list, [])
      })))

  it.effect("'a'×10 000, preview 500 → <dir>/<name>.output and a message under 2 000 chars", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const out = yield* truncateAndPersist("shell", "a".repeat(10_000), {
          chars: 5000,
          lines: Infinity,
          previewChars: 500
        })
        assert.match(out.persisted!.path, new RegExp(`^${store.dir}/shell_[0-9a-f]{16}\\.output$`))
        assert.isBelow(out.content.length, 2000)
      })))

  it.effect("empty output becomes the no-output message", () =>
    withStore({}, () =>
      Effect.gen(function*() {
        const out = yield* truncateAndPersist("glob", " \n\t", { chars: 25_000, lines: 1000 })
        assert.deepStrictEqual(out, { content: "(glob completed with no output)", replaced: true })
      })))

  it.effect("a failed save keeps the bounded preview and appends the could-not-save note", () =>
    withStore({ maxFileBytes: 100 }, (store) =>
      Effect.gen(function*() {
        // one line: keep "both" gives it to the head (max(floor(1/5), 1) = 1), the tail gets none
        const out = yield* truncateAndPersist("shell", "a".repeat(200_000), { chars: 1000, lines: 1000 })
        assert.isTrue(out.replaced)
        assert.isUndefined(out.persisted)
        assert.strictEqual(
          out.content,
          "a".repeat(197) + "..." + SEP + "\n[Note: Could not save full output to file]"
        )
        assert.deepStrictEqual(yield* store.list, [])
      })))
})

describe("persistWithStub (§10.3 with the store)", () => {
  it.effect("saves and returns the <persisted-output> stub with path and digest", () =>
    withStore({}, () =>
      Effect.gen(function*() {
        const content = "r".repeat(30_000)
        const out = yield* persistWithStub("grep_search", content)
        const saved = out.persisted!
        assert.isTrue(out.content.startsWith(`<persisted-output>\nOutput too large (29 KB). Full output saved to: ${saved.path}\nSHA-256: ${sha256Hex(content)}\n`))
        assert.isTrue(out.content.endsWith("r".repeat(2000) + "\n...\n</persisted-output>"))
        assert.strictEqual(yield* readText(saved.path), content)
      })))

  it.effect("too large → (file too large to persist); budget gone → (session disk budget exhausted)", () =>
    Effect.gen(function*() {
      const big = yield* withStore({ maxFileBytes: 10 }, () => persistWithStub("shell", "y".repeat(2048)))
      assert.isTrue(big.content.startsWith("Output too large (2 KB). (file too large to persist)\nSHA-256: "))
      assert.isUndefined(big.persisted)
      const spent = yield* withStore({ maxSessionBytes: 3000 }, () =>
        Effect.gen(function*() {
          yield* persistWithStub("shell", "1".repeat(2048))
          return yield* persistWithStub("shell", "2".repeat(2048))
        }))
      assert.isTrue(spent.content.startsWith("Output too large (2 KB). (session disk budget exhausted)\n"))
    }))

  it.effect("a write failure → (disk persistence unavailable)", () =>
    withStore({ blocked: true }, () =>
      Effect.gen(function*() {
        const out = yield* persistWithStub("shell", "z".repeat(5000), 100)
        assert.isTrue(out.content.startsWith("Output too large (5 KB). (disk persistence unavailable)\n"))
        assert.isTrue(out.content.endsWith("Preview (up to 100 chars):\n" + "z".repeat(100) + "\n..."))
      })))
})

describe("batch budget with the store", () => {
  it.effect("persists each over-budget entry, then fits it under a header naming the file", () =>
    withStore({}, (store) =>
      Effect.gen(function*() {
        const texts = Array.from({ length: 10 }, (_, i) => String(i).repeat(25_000))
        const plan = planTextBudget(texts.map((t) => t.length), 200_000)
        const files = yield* Effect.forEach(plan.overBudget, (i) => persistForBudget("read_file", [texts[i]!]))
        const fitted = applyTextBudget(texts.map((text, i) => ({ text, persistedFiles: files[i]! })), 200_000)
        for (const [i, text] of fitted.entries()) {
          assert.strictEqual(text.length, 20_000)
          assert.isTrue(text.startsWith(`Tool output truncated. Persisted tool-output artifact: ${files[i]![0]}\n\n`))
          assert.strictEqual(yield* readText(files[i]![0]!), texts[i])
        }
        assert.strictEqual((yield* store.list).length, 10)
      })))

  it.effect("joins an entry's slots with a blank line; a failed save yields no files", () =>
    Effect.gen(function*() {
      const joined = yield* withStore({}, (store) =>
        Effect.gen(function*() {
          const [file] = yield* persistForBudget("shell", ["out", "err"])
          return yield* readText(file!)
        }))
      assert.strictEqual(joined, "out\n\nerr")
      const none = yield* withStore({ maxFileBytes: 1 }, () => persistForBudget("shell", ["out"]))
      assert.deepStrictEqual(none, [])
    }))
})
