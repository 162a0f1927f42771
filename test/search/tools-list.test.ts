/**
 * `list_directory` as a tool, through the real scheduler: the reference contract (§11.3), its
 * listing vector, `ignore` globs, the ignore-file counts and options, the 100-entry cap at its
 * edge, the empty directory, and every error code.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { ToolRegistry } from "../../src/registry/registry.js"
import type { ListDirectoryData } from "../../src/search/index.js"
import { call, dataOf, failure, okText, searchSession, tempDir, write } from "./tools.support.js"

const withSession = <A, E>(roots: ReadonlyArray<string>, body: Effect.Effect<A, E, any>) =>
  Effect.gen(function*() {
    const stateDir = yield* tempDir("tw-search-state-")
    return yield* body.pipe(Effect.provide(searchSession({ roots, stateDir })))
  })

describe("list_directory: declaration", () => {
  it.live("follows the reference contract: name, display, Kind Search, params, path param", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      yield* withSession([root], Effect.gen(function*() {
        const tool = yield* ToolRegistry.use((r) => r.ensure("list_directory"))
        assert.strictEqual(tool.displayName, "ListFiles")
        assert.strictEqual(tool.kind, "search")
        assert.isUndefined(tool.maxOutputChars)
        assert.deepStrictEqual(tool.pathFields, ["path"])
        const schema = tool.parametersJsonSchema as { properties: Record<string, { properties?: Record<string, unknown> }>; required: Array<string> }
        assert.deepStrictEqual(Object.keys(schema.properties), ["path", "ignore", "file_filtering_options"])
        assert.deepStrictEqual(Object.keys(schema.properties.file_filtering_options!.properties!), ["respect_git_ignore", "respect_toolwright_ignore"])
        assert.deepStrictEqual(schema.required, ["path"])
        assert.strictEqual((yield* tool.build({ path: root })).description, ".")
      }))
    }))
})

describe("list_directory: listings", () => {
  it.live("the reference vector: directories first with [DIR], then files by name", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const p = path.join(root, "p")
      write(p, "b.txt", "b")
      write(p, "a.txt", "a")
      fs.mkdirSync(path.join(p, "src"))
      yield* withSession([root], Effect.gen(function*() {
        const out = yield* call("list_directory", { path: p })
        assert.strictEqual(okText(out), `Listed 3 item(s) in ${p}:\n---\n[DIR] src\na.txt\nb.txt`)
        assert.strictEqual(out._tag === "Success" && out.display, "Listed 3 item(s)")
        const data = dataOf<ListDirectoryData>(out)
        assert.deepStrictEqual(data.entries.map((e) => [e.name, e.isDirectory, e.size]), [["src", true, 0], ["a.txt", false, 1], ["b.txt", false, 1]])
        // relative paths resolve against the first root; shell escapes and a trailing space are removed
        assert.strictEqual(okText(yield* call("list_directory", { path: "p " })), okText(out))
        write(root, "my dir/x.txt")
        assert.include(okText(yield* call("list_directory", { path: "my\\ dir" })), "x.txt")
      }))
    }))

  it.live("an empty directory is not an error", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const empty = path.join(root, "empty")
      fs.mkdirSync(empty)
      yield* withSession([root], Effect.gen(function*() {
        const out = yield* call("list_directory", { path: "empty" })
        assert.strictEqual(okText(out), `Directory ${empty} is empty.`)
        assert.strictEqual(out._tag === "Success" && out.display, "Directory is empty.")
      }))
    }))

  it.live("ignore globs on base names; git- and toolwright-ignored entries counted, or shown when asked", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      fs.mkdirSync(path.join(root, ".git"))
      write(root, ".gitignore", "dist/\n*.log\n")
      write(root, ".toolwrightignore", "secret.txt\n")
      for (const f of ["dist/x.js", "a.log", "secret.txt", "keep.ts", "notes.md", "tmp1.bak", "tmp22.bak"]) write(root, f)
      yield* withSession([root], Effect.gen(function*() {
        const out = yield* call("list_directory", { path: ".", ignore: ["*.md", "tmp?.bak"] })
        assert.strictEqual(
          okText(out),
          `Listed 4 item(s) in ${root}:\n---\n.gitignore\n.toolwrightignore\nkeep.ts\ntmp22.bak\n\n(3 git-ignored, 1 toolwright-ignored)`
        )
        assert.strictEqual(out._tag === "Success" && out.display, "Listed 4 item(s) (3 git-ignored, 1 toolwright-ignored)")
        const all = yield* call("list_directory", {
          path: ".",
          file_filtering_options: { respect_git_ignore: false, respect_toolwright_ignore: false }
        })
        assert.strictEqual(
          okText(all),
          `Listed 10 item(s) in ${root}:\n---\n[DIR] .git\n[DIR] dist\n.gitignore\n.toolwrightignore\na.log\nkeep.ts\nnotes.md\nsecret.txt\ntmp1.bak\ntmp22.bak`
        )
        const gitOnly = okText(yield* call("list_directory", { path: ".", file_filtering_options: { respect_toolwright_ignore: false } }))
        assert.include(gitOnly, "secret.txt")
        assert.match(gitOnly, /\(3 git-ignored\)$/)
      }))
    }))

  it.live("100 entries shown at most, at the edge", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      for (let i = 0; i < 100; i++) write(root, `hundred/f${String(i).padStart(3, "0")}`)
      for (let i = 0; i < 101; i++) write(root, `more/f${String(i).padStart(3, "0")}`)
      for (let i = 0; i < 102; i++) write(root, `most/f${String(i).padStart(3, "0")}`)
      yield* withSession([root], Effect.gen(function*() {
        const exact = okText(yield* call("list_directory", { path: "hundred" }))
        assert.strictEqual(exact.split("\n").length, 2 + 100)
        assert.notInclude(exact, "truncated")
        const over = yield* call("list_directory", { path: "more" })
        const lines = okText(over).split("\n")
        assert.strictEqual(lines[0], `Listed 101 item(s) in ${path.join(root, "more")}:`)
        assert.strictEqual(lines.length, 2 + 100 + 2)
        assert.strictEqual(lines.at(-3), "f099")
        assert.strictEqual(lines.at(-1), "[1 item truncated] ...")
        assert.strictEqual(over._tag === "Success" && over.display, "Listed 101 item(s) (truncated)")
        assert.strictEqual(okText(yield* call("list_directory", { path: "most" })).split("\n").at(-1), "[2 items truncated] ...")
      }))
    }))
})

describe("list_directory: errors", () => {
  it.live("path_is_not_a_directory, ls_execution_error, path_not_in_workspace, invalid_tool_params", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const outside = yield* tempDir("tw-outside-")
      const file = write(root, "a.txt", "x")
      yield* withSession([root], Effect.gen(function*() {
        assert.deepStrictEqual(failure(yield* call("list_directory", { path: "a.txt" })), {
          code: "path_is_not_a_directory",
          message: `Error: Path is not a directory: ${file}`,
          display: "Error: Path is not a directory."
        })
        const missing = failure(yield* call("list_directory", { path: "nope" }))
        assert.strictEqual(missing.code, "ls_execution_error")
        assert.match(missing.message, /^Error listing directory: ENOENT: no such file or directory/)
        assert.include(missing.message, "list its parent directory or use glob")
        assert.strictEqual(missing.display, "Error: Failed to list directory.")
        for (const where of [outside, "..", "/"]) {
          assert.strictEqual(failure(yield* call("list_directory", { path: where })).code, "path_not_in_workspace", where)
        }
        assert.strictEqual(failure(yield* call("list_directory", {})).code, "invalid_tool_params")
        assert.strictEqual(failure(yield* call("list_directory", { path: "" })).code, "invalid_tool_params")
        assert.strictEqual(failure(yield* call("list_directory", { path: ".", ignore: "*.md" })).code, "invalid_tool_params")
        assert.strictEqual(
          failure(yield* call("list_directory", { path: ".", file_filtering_options: { respect_qwen_ignore: false } })).code,
          "invalid_tool_params"
        )
      }))
    }))
})
