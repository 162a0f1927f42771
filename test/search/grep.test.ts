import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { afterAll } from "vitest"
import { grepSearch } from "../../src/search/grep/search.js"
import { insideGitWorkTree, selectGrepBackend } from "../../src/search/grep/select.js"
import type { GrepBackendName, GrepRequest } from "../../src/search/grep/types.js"
import { runProcess } from "../../src/search/process.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const BACKENDS: ReadonlyArray<GrepBackendName> = ["ripgrep", "git-grep", "grep", "js"]
const IGNORE = { gitignore: true, toolwrightIgnore: true } as const
const made: Array<string> = []
afterAll(() => made.forEach(removeTree))

const tmp = (files: Record<string, string | Buffer>): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-grep-")))
  made.push(root)
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), content)
  }
  return root
}

/** The absolute path of a tool on the current PATH. */
const which = (tool: string): string => {
  const dirs = (process.env.PATH ?? "").split(path.delimiter)
  const found = dirs.map((d) => path.join(d, tool)).find((p) => fs.existsSync(p))
  if (found === undefined) throw new Error(`${tool} not on PATH`)
  return found
}

const everyBackend = (request: GrepRequest) =>
  Effect.forEach(BACKENDS, (force) =>
    Effect.flatMap(selectGrepBackend(request.root, { force }), (backend) =>
      Effect.map(backend.search(request), (r) => ({ force, paths: r.matches.map((m) => `${m.path}:${m.line}`), total: r.totalMatches }))))

describe("grep backends at the edges", () => {
  it.effect("skip files over 20 MiB", () =>
    Effect.gen(function*() {
      const root = tmp({ "big.txt": "needle big\n" + `${"b".repeat(1023)}\n`.repeat(20 * 1024 + 1), "small.txt": "needle small\n" })
      for (const r of yield* everyBackend({ pattern: "needle", root, ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, ["small.txt:1"], r.force)
      }
    }), 60_000)

  it.effect("search files a .rgignore would hide from ripgrep", () =>
    Effect.gen(function*() {
      const root = tmp({ ".rgignore": "hidden.txt\n", "hidden.txt": "needle\n", "shown.txt": "needle\n" })
      for (const r of yield* everyBackend({ pattern: "needle", root, ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, ["hidden.txt:1", "shown.txt:1"], r.force)
      }
      const nested = tmp({ "sub/.rgignore": "deep.txt\n", "sub/deep.txt": "needle\n", "top.txt": "needle\n" })
      for (const r of yield* everyBackend({ pattern: "needle", root: nested, ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, ["sub/deep.txt:1", "top.txt:1"], r.force)
      }
    }), 60_000)

  it.effect("keep the first `limit` matches in path order but count them all", () =>
    Effect.gen(function*() {
      const root = tmp({ "b.txt": "x\nx\n", "a.txt": "x\n", "c/d.txt": "x\n" })
      for (const force of BACKENDS) {
        const backend = yield* selectGrepBackend(root, { force })
        const r = yield* backend.search({ pattern: "x", root, limit: 2, ignore: IGNORE })
        assert.deepStrictEqual(r.matches.map((m) => `${m.path}:${m.line}`), ["a.txt:1", "b.txt:1"], force)
        assert.strictEqual(r.totalMatches, 4)
        assert.strictEqual(r.matches[0]!.absolutePath, path.join(root, "a.txt"))
      }
    }), 60_000)
})

describe("grepSearch", () => {
  const fixture = makeSearchFixture()
  made.push(fixture)

  it.effect("reports an invalid regex as invalid_tool_params with the reference message", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(grepSearch({ pattern: "a(b", root: fixture, ignore: IGNORE }))
      assert.strictEqual(error._tag, "InvalidToolParams")
      assert.strictEqual(error.message, "Invalid regular expression pattern: a(b. Error: Invalid regular expression: /a(b/: Unterminated group")
    }))

  it.effect("reports a missing root as search_path_not_found and a bad limit as invalid_tool_params", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(grepSearch({ pattern: "a", root: `${fixture}/nope`, ignore: IGNORE }))
      assert.strictEqual(missing._tag, "SearchPathNotFound")
      assert.strictEqual(missing.message, `Path does not exist: ${fixture}/nope`)
      const limit = yield* Effect.flip(grepSearch({ pattern: "a", root: fixture, limit: 0, ignore: IGNORE }))
      assert.strictEqual(limit.message, "limit must be a positive integer")
    }))

  it.effect("picks ripgrep when it is installed and honours a forced backend", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* selectGrepBackend(fixture)).name, "ripgrep")
      for (const force of BACKENDS) assert.strictEqual((yield* selectGrepBackend(fixture, { force })).name, force)
      const result = yield* grepSearch({ pattern: "hello world", root: fixture, ignore: IGNORE }, { force: "grep" })
      assert.strictEqual(result.engine, "grep")
      assert.deepStrictEqual(result.matches.map((m) => m.text), ["Hello World"])
    }))

  it.effect("falls back from ripgrep to git grep (inside a work tree), then grep, then JS", () =>
    Effect.gen(function*() {
      const bin = tmp({})
      const pathOnly = (tools: ReadonlyArray<string>) =>
        Effect.acquireRelease(
          Effect.sync(() => {
            const dir = fs.mkdtempSync(path.join(bin, "path-"))
            for (const tool of tools) fs.symlinkSync(which(tool), path.join(dir, tool))
            const saved = process.env.PATH
            process.env.PATH = dir
            return saved
          }),
          (saved) => Effect.sync(() => void (process.env.PATH = saved))
        )
      const chosen = (tools: ReadonlyArray<string>, root: string) =>
        Effect.scoped(Effect.flatMap(pathOnly(tools), () => Effect.map(selectGrepBackend(root), (b) => b.name)))
      assert.strictEqual(yield* chosen(["git", "grep"], fixture), "git-grep")
      assert.strictEqual(yield* chosen(["git", "grep"], tmp({ "a.txt": "" })), "grep")
      assert.strictEqual(yield* chosen(["grep"], fixture), "grep")
      assert.strictEqual(yield* chosen([], fixture), "js")
      const forced = yield* Effect.flip(Effect.scoped(Effect.flatMap(pathOnly([]), () => selectGrepBackend(fixture, { force: "ripgrep" }))))
      assert.strictEqual(forced.message, "ripgrep (rg) is not available on PATH")
    }))

  it.effect("detects git work trees", () =>
    Effect.gen(function*() {
      assert.isTrue(yield* insideGitWorkTree(path.join(fixture, "src")))
      assert.isFalse(yield* insideGitWorkTree(tmp({ "a.txt": "" })))
    }))
})

describe("runProcess", () => {
  it.live("kills the child when the fiber is interrupted", () =>
    Effect.gen(function*() {
      const dir = tmp({})
      const pidFile = path.join(dir, "pid")
      const run = runProcess("sh", ["-c", `echo $$ > '${pidFile}'; exec sleep 30`], { cwd: dir })
      const outcome = yield* Effect.result(Effect.timeout(run, "500 millis"))
      assert.isTrue(Result.isFailure(outcome))
      const pid = Number(fs.readFileSync(pidFile, "utf8"))
      yield* Effect.sleep("100 millis")
      assert.throws(() => process.kill(pid, 0))
    }))
})
