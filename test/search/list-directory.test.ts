import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { formatListDirectory, listDirectory, matchesIgnoreGlob } from "../../src/search/listDirectory.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const BOTH = { gitignore: true, toolwrightIgnore: true } as const
const made: Array<string> = []
afterAll(() => made.forEach(removeTree))

const tmp = (files: Record<string, string>, dirs: ReadonlyArray<string> = []): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-ls-")))
  made.push(root)
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  for (const dir of dirs) fs.mkdirSync(path.join(root, dir), { recursive: true })
  return root
}

describe("listDirectory", () => {
  it.effect("lists directories first with [DIR], then files by name (reference vector)", () =>
    Effect.gen(function*() {
      const root = tmp({ "b.txt": "bb", "a.txt": "a" }, ["src"])
      const result = yield* listDirectory({ path: root, fileFiltering: BOTH })
      const out = formatListDirectory(result)
      assert.strictEqual(out.llmContent, `Listed 3 item(s) in ${root}:\n---\n[DIR] src\na.txt\nb.txt`)
      assert.strictEqual(out.display, "Listed 3 item(s)")
      assert.deepStrictEqual(result.entries.map((e) => [e.name, e.isDirectory, e.size]), [["src", true, 0], ["a.txt", false, 1], ["b.txt", false, 2]])
    }))

  it.effect("reports an empty directory without an error", () =>
    Effect.gen(function*() {
      const root = tmp({})
      const out = formatListDirectory(yield* listDirectory({ path: root, fileFiltering: BOTH }))
      assert.strictEqual(out.llmContent, `Directory ${root} is empty.`)
      assert.strictEqual(out.display, "Directory is empty.")
    }))

  it.effect("leaves out entries matching the ignore globs (on base names, uncounted)", () =>
    Effect.gen(function*() {
      const root = tmp({ "a.txt": "", "b.md": "", "c.md": "", "cc.md": "" }, ["src"])
      const result = yield* listDirectory({ path: root, ignore: ["*.txt", "?.md"], fileFiltering: BOTH })
      assert.deepStrictEqual(result.entries.map((e) => e.name), ["src", "cc.md"])
      assert.strictEqual(formatListDirectory(result).display, "Listed 2 item(s)")
      assert.isTrue(matchesIgnoreGlob("a.b", ["a.b"]))
      assert.isFalse(matchesIgnoreGlob("axb", ["a.b"]))
      assert.isFalse(matchesIgnoreGlob("A.txt", ["a.*"]))
    }))

  it.effect("counts what .gitignore and .toolwrightignore hide", () =>
    Effect.gen(function*() {
      const fixture = makeSearchFixture()
      made.push(fixture)
      const result = yield* listDirectory({ path: fixture, fileFiltering: BOTH })
      // git: .git, debug.log, dist, secret-top.txt; toolwright: cert.pem, private
      assert.strictEqual(result.gitIgnored, 4)
      assert.strictEqual(result.toolwrightIgnored, 2)
      const out = formatListDirectory(result)
      assert.isTrue(out.llmContent.endsWith("\n\n(4 git-ignored, 2 toolwright-ignored)"))
      assert.strictEqual(out.display, `Listed ${result.entries.length} item(s) (4 git-ignored, 2 toolwright-ignored)`)
      assert.isFalse(result.entries.some((e) => ["dist", "private", "cert.pem", ".git"].includes(e.name)))
      const sub = yield* listDirectory({ path: path.join(fixture, "sub"), fileFiltering: BOTH })
      assert.deepStrictEqual(sub.entries.map((e) => e.name), [".gitignore", "keep2.log"])
      assert.strictEqual(formatListDirectory(sub).llmContent, `Listed 2 item(s) in ${fixture}/sub:\n---\n.gitignore\nkeep2.log\n\n(1 git-ignored)`)
      const all = yield* listDirectory({ path: fixture, fileFiltering: { gitignore: false, toolwrightIgnore: false } })
      assert.strictEqual(all.gitIgnored + all.toolwrightIgnored, 0)
      assert.strictEqual(all.entries.length, result.entries.length + 6)
    }))

  it.effect("shows at most 100 entries with the item(s) trailer", () =>
    Effect.gen(function*() {
      const files = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(3, "0")}.txt`, ""]))
      const one = formatListDirectory(yield* listDirectory({ path: tmp(files(101)), fileFiltering: BOTH }))
      assert.isTrue(one.llmContent.endsWith("\nf099.txt\n---\n[1 item truncated] ..."))
      assert.strictEqual(one.display, "Listed 101 item(s) (truncated)")
      const five = formatListDirectory(yield* listDirectory({ path: tmp(files(105)), fileFiltering: BOTH }))
      assert.isTrue(five.llmContent.endsWith("\n---\n[5 items truncated] ..."))
    }))

  it.effect("fails with path_is_not_a_directory and ls_execution_error", () =>
    Effect.gen(function*() {
      const root = tmp({ "a.txt": "" })
      const file = yield* Effect.flip(listDirectory({ path: path.join(root, "a.txt"), fileFiltering: BOTH }))
      assert.strictEqual(file._tag, "PathIsNotADirectory")
      assert.strictEqual(file.message, `Error: Path is not a directory: ${root}/a.txt`)
      assert.strictEqual(file.display, "Error: Path is not a directory.")
      const missing = yield* Effect.flip(listDirectory({ path: path.join(root, "nope"), fileFiltering: BOTH }))
      assert.strictEqual(missing._tag, "LsExecutionError")
      assert.strictEqual(missing.message, `Error listing directory: ENOENT: no such file or directory, stat '${root}/nope'`)
      assert.strictEqual(missing.display, "Error: Failed to list directory.")
    }))
})
