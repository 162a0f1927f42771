import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { formatGlobResult, type GlobEntry, type GlobResult, globSearch, sortFileEntries } from "../../src/search/glob.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const IGNORE = { gitignore: true, toolwrightIgnore: true } as const
const made: Array<string> = []
afterAll(() => made.forEach(removeTree))
const fixture = makeSearchFixture()
made.push(fixture)

const tmp = (files: Record<string, string>): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-glob-")))
  made.push(root)
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

const HOUR = 3_600_000
const DAY = 24 * HOUR
const NOW = Date.parse("2024-01-15T12:00:00Z")
const names = (entries: ReadonlyArray<{ readonly path: string }>) => entries.map((e) => e.path)

describe("sortFileEntries (reference vectors)", () => {
  it("puts recent files first, newest first, then older files by path", () => {
    const entries = [
      { path: "older_zebra", mtimeMs: NOW - 26 * HOUR }, { path: "recent_alpha", mtimeMs: NOW - HOUR },
      { path: "older_apple", mtimeMs: NOW - 25 * HOUR }, { path: "recent_beta", mtimeMs: NOW - 2 * HOUR },
      { path: "older_banana", mtimeMs: NOW - 25 * HOUR }
    ]
    assert.deepStrictEqual(names(sortFileEntries(entries, NOW, DAY)), ["recent_alpha", "recent_beta", "older_apple", "older_banana", "older_zebra"])
  })

  it("orders all-recent by mtime and all-older by path; [] stays []", () => {
    const recent = [{ path: "c", mtimeMs: NOW - 2000 }, { path: "a", mtimeMs: NOW - 3000 }, { path: "b", mtimeMs: NOW - 1000 }]
    assert.deepStrictEqual(names(sortFileEntries(recent, NOW, DAY)), ["b", "c", "a"])
    const older = ["zebra", "apple", "banana"].map((p) => ({ path: p, mtimeMs: NOW - 2 * DAY }))
    assert.deepStrictEqual(names(sortFileEntries(older, NOW, DAY)), ["apple", "banana", "zebra"])
    assert.deepStrictEqual(sortFileEntries([], NOW, DAY), [])
  })

  it("keeps recent files with the same mtime together (order unspecified)", () => {
    const same = [{ path: "x", mtimeMs: NOW - 10 }, { path: "y", mtimeMs: NOW - 10 }, { path: "old", mtimeMs: 0 }]
    const sorted = names(sortFileEntries(same, NOW, DAY))
    assert.deepStrictEqual([...sorted.slice(0, 2)].sort(), ["x", "y"])
    assert.strictEqual(sorted[2], "old")
  })

  it("uses a strict threshold and treats a missing mtime as 0", () => {
    const entries = [{ path: "b_old", mtimeMs: NOW - 1001 }, { path: "a_none" }, { path: "c_recent", mtimeMs: NOW - 999 }]
    assert.deepStrictEqual(names(sortFileEntries(entries, NOW, 1000)), ["c_recent", "a_none", "b_old"])
  })
})

const entries = (n: number): ReadonlyArray<GlobEntry> => Array.from({ length: n }, (_, i) => ({ path: `/p/f${i}`, mtimeMs: 0 }))

describe("formatGlobResult", () => {
  it("writes the reference texts", () => {
    const none = formatGlobResult({ entries: [], hitCollectionLimit: false }, { pattern: "*.zz", location: { _tag: "Path", path: "/p" } })
    assert.strictEqual(none.llmContent, `No files found matching pattern "*.zz" within /p`)
    assert.strictEqual(none.display, "No files found")
    const two = formatGlobResult({ entries: entries(2), hitCollectionLimit: false }, { pattern: "*", location: { _tag: "Workspace", directories: 1 } })
    assert.strictEqual(two.llmContent, `Found 2 file(s) matching "*" in the workspace directory, sorted by modification time (newest first):\n---\n/p/f0\n/p/f1`)
    assert.strictEqual(two.display, "Found 2 matching file(s)")
    assert.deepStrictEqual(two.resultFilePaths, ["/p/f0", "/p/f1"])
  })

  it("shows at most 100 paths with the file(s) trailer", () => {
    const one = formatGlobResult({ entries: entries(101), hitCollectionLimit: false }, { pattern: "*", location: { _tag: "Workspace", directories: 2 } })
    assert.isTrue(one.llmContent.startsWith(`Found 101 file(s) matching "*" across 2 workspace directories, sorted`))
    assert.isTrue(one.llmContent.endsWith("\n/p/f99\n---\n[1 file truncated] ..."))
    assert.strictEqual(one.display, "Found 101 matching file(s) (truncated)")
    assert.strictEqual(one.resultFilePaths.length, 100)
    const two = formatGlobResult({ entries: entries(102), hitCollectionLimit: false }, { pattern: "*", location: { _tag: "Path", path: "/p" } })
    assert.isTrue(two.llmContent.endsWith("\n---\n[2 files truncated] ..."))
  })

  it("says 'at least' when the collection cap stopped the walk", () => {
    const result: GlobResult = { entries: entries(1000), hitCollectionLimit: true }
    const out = formatGlobResult(result, { pattern: "**", location: { _tag: "Path", path: "/p" } })
    assert.isTrue(out.llmContent.startsWith(`Found at least 1000 file(s) matching "**" within /p, sorted by modification time (newest first):\n---\n/p/f0\n`))
    assert.isTrue(out.llmContent.endsWith("\n/p/f99\n---\n[Results truncated after scanning 1000 matching files. Narrow the pattern or path.]"))
    assert.strictEqual(out.display, "Found at least 1000 matching file(s) (truncated)")
  })
})

const rel = (root: string, result: GlobResult) => result.entries.map((e) => path.relative(root, e.path)).sort()

describe("globSearch", () => {
  it.live("includes dot files, matches case-insensitively and respects both ignore files", () =>
    Effect.gen(function*() {
      const yml = yield* globSearch({ pattern: "**/*.YML", roots: [fixture], ignore: IGNORE })
      assert.deepStrictEqual(rel(fixture, yml), [".hidden/config.yml"])
      const js = yield* globSearch({ pattern: "**/*.js", roots: [fixture], ignore: IGNORE })
      assert.deepStrictEqual(rel(fixture, js), ["src/util/numbers.js"])
      const md = yield* globSearch({ pattern: "**/*.md", roots: [fixture], ignore: IGNORE })
      assert.deepStrictEqual(rel(fixture, md), ["README.md"])
      const all = yield* globSearch({ pattern: "**/*.md", roots: [fixture], ignore: { gitignore: false, toolwrightIgnore: false } })
      assert.deepStrictEqual(rel(fixture, all), ["README.md", "private/notes.md"])
      const log = yield* globSearch({ pattern: "**/*.log", roots: [fixture], ignore: IGNORE })
      assert.deepStrictEqual(rel(fixture, log), ["keep.log", "sub/keep2.log"])
      const statics = yield* globSearch({ pattern: "debug.log", roots: [fixture], ignore: IGNORE })
      assert.deepStrictEqual(rel(fixture, statics), [])
      const git = yield* globSearch({ pattern: "**/HEAD", roots: [fixture], ignore: { gitignore: false, toolwrightIgnore: false } })
      assert.deepStrictEqual(rel(fixture, git), [])
    }))

  it.live("does not follow symlinked directories, matches literal names with glob characters, dedupes roots", () =>
    Effect.gen(function*() {
      const root = tmp({ "real/a.txt": "", "file[1].txt": "", "src/b.ts": "", "src/c.ts": "" })
      fs.symlinkSync(path.join(root, "real"), path.join(root, "linked"))
      fs.symlinkSync(path.join(root, "real/a.txt"), path.join(root, "alias.txt"))
      const txt = yield* globSearch({ pattern: "**/*.txt", roots: [root], ignore: IGNORE })
      assert.deepStrictEqual(rel(root, txt), ["alias.txt", "file[1].txt", "real/a.txt"])
      const literal = yield* globSearch({ pattern: "file[1].txt", roots: [root], ignore: IGNORE })
      assert.deepStrictEqual(rel(root, literal), ["file[1].txt"])
      const twice = yield* globSearch({ pattern: "**/*.ts", roots: [root, path.join(root, "src")], ignore: IGNORE })
      assert.deepStrictEqual(rel(root, twice), ["src/b.ts", "src/c.ts"])
    }))

  it.live("sorts recent files first (newest first), then older ones by path", () =>
    Effect.gen(function*() {
      const root = tmp({ "b_old.txt": "", "a_old.txt": "", "new1.txt": "", "new2.txt": "" })
      const now = Date.now() / 1000
      fs.utimesSync(path.join(root, "b_old.txt"), now - 3 * 86400, now - 3 * 86400)
      fs.utimesSync(path.join(root, "a_old.txt"), now - 2 * 86400, now - 2 * 86400)
      fs.utimesSync(path.join(root, "new1.txt"), now - 60, now - 60)
      fs.utimesSync(path.join(root, "new2.txt"), now - 30, now - 30)
      const result = yield* globSearch({ pattern: "*.txt", roots: [root], ignore: IGNORE })
      assert.deepStrictEqual(result.entries.map((e) => path.basename(e.path)), ["new2.txt", "new1.txt", "a_old.txt", "b_old.txt"])
    }))

  it.live("caps the collection at 1,000 entries", () =>
    Effect.gen(function*() {
      const files: Record<string, string> = {}
      for (let i = 0; i < 1_050; i++) files[`d${i % 7}/f${i}.txt`] = ""
      const root = tmp(files)
      const result = yield* globSearch({ pattern: "**/*.txt", roots: [root], ignore: IGNORE })
      assert.isTrue(result.hitCollectionLimit)
      assert.strictEqual(result.entries.length, 1_000)
      const under = yield* globSearch({ pattern: "d1/*.txt", roots: [root], ignore: IGNORE })
      assert.isFalse(under.hitCollectionLimit)
      assert.strictEqual(under.entries.length, 150)
    }))

  it.effect("fails with the reference errors", () =>
    Effect.gen(function*() {
      const empty = yield* Effect.flip(globSearch({ pattern: "  ", roots: [fixture], ignore: IGNORE }))
      assert.strictEqual(empty.message, "The 'pattern' parameter cannot be empty.")
      const missing = yield* Effect.flip(globSearch({ pattern: "*", roots: [`${fixture}/nope`], ignore: IGNORE }))
      assert.strictEqual(missing._tag, "SearchPathNotFound")
      assert.strictEqual(missing.message, `Path does not exist: ${fixture}/nope`)
      const file = yield* Effect.flip(globSearch({ pattern: "*", roots: [`${fixture}/README.md`], ignore: IGNORE }))
      assert.strictEqual(file._tag, "SearchPathNotADirectory")
      assert.strictEqual(file.message, `Path is not a directory: ${fixture}/README.md`)
    }))
})
