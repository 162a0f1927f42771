import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import { afterAll } from "vitest"
import { grepSearch } from "../../src/search/grep/search.js"
import { insideGitWorkTree, makeGrepBackendSelector, selectGrepBackend } from "../../src/search/grep/select.js"
import { ripgrepBackend, rgIgnoreHandling } from "../../src/search/grep/ripgrep.js"
import type { GrepBackendName, GrepRequest } from "../../src/search/grep/types.js"
import { runProcess } from "../../src/search/searchProcess.js"
import { realWorkTestClock } from "../support/logs.js"
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
  it.effect("skip files over 20 MiB, and search one of exactly 20 MiB", () =>
    Effect.gen(function*() {
      // 20 MiB = 20,480 lines of 1,024 bytes; every 1,024th line holds a match
      const file = (extra: string) => {
        const lines = Array.from({ length: 20 * 1024 }, (_, i) => (i % 1024 === 0 ? "needle" : "b").padEnd(1023, ".") + "\n")
        return lines.join("") + extra
      }
      // far-over-cap.txt also has matches past the cap (ripgrep prints them; they are skipped unread)
      const root = tmp({
        "at-cap.txt": file(""),
        "over-cap.txt": file("\n"),
        "far-over-cap.txt": file("needle past\n".repeat(50)),
        "small.txt": "needle small\n"
      })
      assert.strictEqual(fs.statSync(path.join(root, "at-cap.txt")).size, 20 * 1024 * 1024)
      assert.strictEqual(fs.statSync(path.join(root, "over-cap.txt")).size, 20 * 1024 * 1024 + 1)
      for (const r of yield* everyBackend({ pattern: "needle", root, ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, [...Array.from({ length: 20 }, (_, i) => `at-cap.txt:${i * 1024 + 1}`), "small.txt:1"], r.force)
        assert.strictEqual(r.total, 21, r.force)
      }
      // a file root over the cap shows nothing either
      for (const r of yield* everyBackend({ pattern: "needle", root: path.join(root, "over-cap.txt"), ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, [], r.force)
      }
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)

  it.effect("ignore files ripgrep reads beyond the canonical rules neither hide nor add files", () =>
    Effect.gen(function*() {
      // inside a work tree: .gitignore hides *.log; a .rgignore re-including one must not show it, one hiding nothing changes nothing
      const root = tmp({
        ".git/HEAD": "ref: refs/heads/main\n",
        ".gitignore": "*.log\n",
        "sub/.rgignore": "!keep.log\nnothing-here\n",
        "sub/keep.log": "needle\n",
        "sub/a.txt": "needle\n",
        "top.txt": "needle\n"
      })
      for (const r of yield* everyBackend({ pattern: "needle", root, ignore: IGNORE })) {
        assert.deepStrictEqual(r.paths, ["sub/a.txt:1", "top.txt:1"], r.force)
      }
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)

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
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)

  it.effect("walk for .rgignore files once per root while the walk holds, and again once it is older than its recheck time", () =>
    Effect.gen(function*() {
      const root = tmp({ "top.txt": "needle\n", "sub/deep.txt": "needle\n" })
      const paths = (r: { readonly matches: ReadonlyArray<{ readonly path: string; readonly line: number }> }) => r.matches.map((m) => `${m.path}:${m.line}`)
      const remembering = ripgrepBackend("detect")
      const rechecking = ripgrepBackend("detect", { recheckMs: 0 })
      for (const rg of [remembering, rechecking]) assert.deepStrictEqual(paths(yield* rg.search({ pattern: "needle", root, ignore: IGNORE })), ["sub/deep.txt:1", "top.txt:1"])
      // a .rgignore appears below the root (no modification time the cache watches changes)
      fs.writeFileSync(path.join(root, "sub/.rgignore"), "deep.txt\n")
      // the remembered walk (found none) is trusted: ripgrep reads the new file and hides deep.txt, proof that no second walk ran
      assert.deepStrictEqual(paths(yield* remembering.search({ pattern: "needle", root, ignore: IGNORE })), ["top.txt:1"])
      // past its recheck time the walk runs again and finds it: the search runs with --no-ignore
      assert.deepStrictEqual(paths(yield* rechecking.search({ pattern: "needle", root, ignore: IGNORE })), ["sub/deep.txt:1", "top.txt:1"])
      // a walk that found a .rgignore is redone when that file changes: removed, the search is right either way
      fs.rmSync(path.join(root, "sub/.rgignore"))
      assert.deepStrictEqual(paths(yield* rechecking.search({ pattern: "needle", root, ignore: IGNORE })), ["sub/deep.txt:1", "top.txt:1"])
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)

  it.effect("a capped search stops ripgrep: files past the cap are never read", () =>
    Effect.gen(function*() {
      // a.txt, b.txt and c.txt match; then a file whose read never ends, then files that are never reached.
      // rg runs each file through a --pre script that logs it; for the sentinel, the script blocks on a FIFO,
      // so rg cannot get past it: the search returns only because it stopped rg. (--line-buffered: rg's
      // output reaches the tool before rg blocks, not when its buffer fills.)
      const root = tmp({ "a.txt": "needle\n", "b.txt": "needle\n", "c.txt": "needle\n", "m/sentinel.txt": "needle\n", "z/tail.txt": "needle\n" })
      const bin = tmp({})
      const fifo = path.join(bin, "gate")
      const log = path.join(bin, "read.log")
      spawnSync("mkfifo", [fifo])
      const pre = path.join(bin, "pre.sh")
      fs.writeFileSync(pre, `#!/bin/sh\necho "$1" >> '${log}'\ncase "$1" in *sentinel*) cat '${fifo}' > /dev/null ;; esac\nexec cat "$1"\n`, { mode: 0o755 })
      fs.writeFileSync(path.join(bin, "rg"), `#!/bin/sh\nexec '${which("rg")}' --line-buffered --pre '${pre}' "$@"\n`, { mode: 0o755 })
      const savedPath = process.env.PATH
      const r = yield* Effect.gen(function*() {
        process.env.PATH = `${bin}${path.delimiter}${savedPath}`
        const rg = yield* selectGrepBackend(root, { force: "ripgrep" })
        return yield* rg.search({ pattern: "needle", root, limit: 2, ignore: IGNORE })
      }).pipe(Effect.ensuring(Effect.sync(() => {
        process.env.PATH = savedPath
        // release a --pre script still waiting at the gate (its rg is gone); ENXIO: none is waiting
        try {
          fs.closeSync(fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK))
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "ENXIO") throw e
        }
      })))
      assert.deepStrictEqual(r.matches.map((m) => `${m.path}:${m.line}`), ["a.txt:1", "b.txt:1"])
      assert.strictEqual(r.totalMatches, 3)
      assert.isTrue(r.totalIsLowerBound)
      const read = fs.readFileSync(log, "utf8").trim().split("\n").map((p) => p.replace(/^\.\//, ""))
      assert.deepStrictEqual(read.slice(0, 3), ["a.txt", "b.txt", "c.txt"])
      assert.notInclude(read, "z/tail.txt")
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)

  it("reads ripgrep's version: 14 and later skip .rgignore with --no-ignore-dot, 13 and unknown versions are checked", () => {
    assert.strictEqual(rgIgnoreHandling("ripgrep 13.0.0"), "detect")
    assert.strictEqual(rgIgnoreHandling("ripgrep 14.1.0 (rev e50df40a19)"), "obeys-flags")
    assert.strictEqual(rgIgnoreHandling("ripgrep 15.0.0"), "obeys-flags")
    assert.strictEqual(rgIgnoreHandling("rg something else"), "detect")
  })

  it.effect("keep the first `limit` matches in tree order, and count only up to one past the limit", () =>
    Effect.gen(function*() {
      // tree order: c/d.txt before c.txt (a directory's files come before a longer sibling name)
      const root = tmp({ "b.txt": "x\nx\n", "a.txt": "x\n", "c/d.txt": "x\n", "c.txt": "x\n", "c-e.txt": "x\n" })
      for (const force of BACKENDS) {
        const backend = yield* selectGrepBackend(root, { force })
        const r = yield* backend.search({ pattern: "x", root, limit: 2, ignore: IGNORE })
        assert.deepStrictEqual(r.matches.map((m) => `${m.path}:${m.line}`), ["a.txt:1", "b.txt:1"], force)
        assert.strictEqual(r.totalMatches, 3, force)
        assert.isTrue(r.totalIsLowerBound, force)
        assert.strictEqual(r.matches[0]!.absolutePath, path.join(root, "a.txt"))
        const all = yield* backend.search({ pattern: "x", root, limit: 6, ignore: IGNORE })
        assert.deepStrictEqual(all.matches.map((m) => `${m.path}:${m.line}`), ["a.txt:1", "b.txt:1", "b.txt:2", "c/d.txt:1", "c-e.txt:1", "c.txt:1"], force)
        assert.strictEqual(all.totalMatches, 6, force)
        assert.isUndefined(all.totalIsLowerBound, force)
      }
    }).pipe(Effect.provide(realWorkTestClock)), 60_000)
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

  it.effect("a tool's selector remembers a found program and probes a missing one again", () =>
    Effect.gen(function*() {
      const empty = tmp({})
      const hidePath = Effect.acquireRelease(
        Effect.sync(() => {
          const saved = process.env.PATH
          process.env.PATH = empty
          return saved
        }),
        (saved) => Effect.sync(() => void (process.env.PATH = saved))
      )
      const root = tmp({ "a.txt": "needle\n" })
      const found = yield* makeGrepBackendSelector()
      assert.strictEqual((yield* found(root)).name, "ripgrep")
      // rg vanished after it was found: the search says so (spawn ENOENT), with the not-installed message
      const vanished = yield* Effect.scoped(Effect.flatMap(hidePath, () =>
        Effect.flatMap(found(root, { force: "ripgrep" }), (backend) =>
          Effect.flip(backend.search({ pattern: "needle", root, ignore: IGNORE })))))
      assert.strictEqual(vanished.message, "ripgrep (rg) is not available on PATH")
      const missing = yield* makeGrepBackendSelector()
      assert.strictEqual((yield* Effect.scoped(Effect.flatMap(hidePath, () => missing(root)))).name, "js")
      assert.strictEqual((yield* missing(root)).name, "ripgrep")
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
