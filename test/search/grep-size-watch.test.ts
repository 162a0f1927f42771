/**
 * The size watch of the ripgrep backend (src/search/grep/sizeWatch.ts): which open files of a
 * process it sees, on real processes holding real (sparse) files open.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll } from "vitest"
import { MAX_SEARCH_FILE_BYTES } from "../../src/search/constants.js"
import { ripgrepBackend } from "../../src/search/grep/ripgrep.js"
import { canWatchOpenFiles, openFileOverCap } from "../../src/search/grep/sizeWatch.js"

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-size-watch-")))
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

/** A sparse file of `size` bytes (nothing written). */
const sparse = (name: string, size: number): string => {
  const file = path.join(root, name)
  fs.writeFileSync(file, "")
  fs.truncateSync(file, size)
  return file
}

/**
 * A process holding `file` open as its descriptor 3 (0–2, the stdio a run is given, are not
 * looked at), until the scope ends; `wrapped`: under a shell that does not exec it.
 */
const holding = (file: string, wrapped = false) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      if (wrapped) return spawn("sh", ["-c", `sleep 30 3< '${file}'; true`], { stdio: "ignore" })
      const fd = fs.openSync(file, "r")
      const child = spawn("sleep", ["30"], { stdio: ["ignore", "ignore", "ignore", fd] })
      fs.closeSync(fd)
      return child
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

/** Asks until `probe` answers something other than undefined (a wrapped child needs a moment to start), at most ~5 s. */
const settle = (probe: () => string | undefined) =>
  Effect.gen(function*() {
    for (let i = 0; i < 100; i++) {
      const found = probe()
      if (found !== undefined) return found
      yield* Effect.sleep("50 millis")
    }
    return undefined
  })

describe("grep size watch", () => {
  it("is available on Linux", () => {
    assert.strictEqual(canWatchOpenFiles(), process.platform === "linux")
  })

  it.live("sees a file over the cap held open by a process, or by its child under a shell that does not exec", () =>
    Effect.gen(function*() {
      if (!canWatchOpenFiles()) return
      const big = sparse("big.bin", MAX_SEARCH_FILE_BYTES + 1)
      const atCap = sparse("at-cap.bin", MAX_SEARCH_FILE_BYTES)
      const direct = yield* holding(big)
      assert.strictEqual(yield* settle(() => openFileOverCap(direct.pid!)), big)
      const wrapped = yield* holding(big, true)
      assert.strictEqual(yield* settle(() => openFileOverCap(wrapped.pid!)), big)
      // a file of exactly the cap is searched (ripgrep's --max-filesize skips only larger ones)
      const small = yield* holding(atCap)
      yield* Effect.sleep("200 millis")
      assert.isUndefined(openFileOverCap(small.pid!))
      // a process that has ended holds nothing
      const ended = spawn("true")
      yield* Effect.promise(() => new Promise((resolve) => ended.on("close", resolve)))
      assert.isUndefined(openFileOverCap(ended.pid!))
    }).pipe(Effect.scoped), 30_000)

  it.live("a run stopped for a file over the cap is done again with --max-filesize, which the directory keeps until its recheck time", () =>
    Effect.gen(function*() {
      if (!canWatchOpenFiles()) return
      const dir = fs.mkdtempSync(path.join(root, "remember-"))
      fs.writeFileSync(path.join(dir, "a.txt"), "needle\n")
      const big = sparse("held.bin", MAX_SEARCH_FILE_BYTES + 1)
      // an rg that logs its arguments and holds a file over the cap open (descriptor 3) for its whole run,
      // which lasts at least 1 s: a look of a watched run (every 200 ms) sees it, whatever ripgrep reads
      const bin = fs.mkdtempSync(path.join(root, "bin-"))
      const log = path.join(bin, "args.log")
      const real = (process.env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "rg")).find((p) => fs.existsSync(p))!
      fs.writeFileSync(path.join(bin, "rg"), `#!/bin/sh\necho "$*" >> '${log}'\nexec 3< '${big}'\nsleep 1\nexec '${real}' "$@"\n`, { mode: 0o755 })
      const runs = () => fs.readFileSync(log, "utf8").trim().split("\n").map((line) => line.includes("--max-filesize") ? "capped" : "watched")
      const request = { pattern: "needle", root: dir, ignore: { gitignore: true, toolwrightIgnore: true } } as const
      const savedPath = process.env.PATH
      yield* Effect.gen(function*() {
        process.env.PATH = `${bin}${path.delimiter}${savedPath}`
        const remembering = ripgrepBackend("obeys-flags", { watch: true })
        const rechecking = ripgrepBackend("obeys-flags", { watch: true, recheckMs: 0 })
        for (const backend of [remembering, remembering, rechecking, rechecking]) {
          assert.deepStrictEqual((yield* backend.search(request)).matches.map((m) => m.path), ["a.txt"])
        }
      }).pipe(Effect.ensuring(Effect.sync(() => {
        process.env.PATH = savedPath
      })))
      // remembering: stopped and redone, then capped at once; rechecking: stopped and redone each time
      assert.deepStrictEqual(runs(), ["watched", "capped", "capped", "watched", "capped", "watched", "capped"])
    }), 30_000)

  // live: the watch polls on the Effect clock (a test clock would never let it look)
  it.live("a watched search and one with --max-filesize find the same lines, before and after a file over the cap appears", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(root, "tree-"))
      fs.mkdirSync(path.join(dir, "src"))
      fs.writeFileSync(path.join(dir, "src", "a.ts"), "const needle = 1\n")
      fs.writeFileSync(path.join(dir, "b.txt"), "needle\nnone\nneedle again\n")
      const request = { pattern: "needle", root: dir, ignore: { gitignore: true, toolwrightIgnore: true } } as const
      const lines = (r: { readonly matches: ReadonlyArray<{ readonly path: string; readonly line: number }> }) => r.matches.map((m) => `${m.path}:${m.line}`)
      const watched = ripgrepBackend("detect", { watch: true })
      const capped = ripgrepBackend("detect", { watch: false })
      const expected = ["b.txt:1", "b.txt:3", "src/a.ts:1"]
      assert.deepStrictEqual(lines(yield* watched.search(request)), expected)
      assert.deepStrictEqual(lines(yield* capped.search(request)), expected)
      // 30 MiB of matching lines over the cap: ripgrep reads them (watched) or skips them (capped); neither shows them
      fs.writeFileSync(path.join(dir, "src", "big.log"), "needle in a big log line\n".repeat(Math.ceil(30 * 1024 * 1024 / 25)))
      for (const backend of [watched, watched, capped]) {
        const r = yield* backend.search(request)
        assert.deepStrictEqual(lines(r), expected)
        assert.strictEqual(r.totalMatches, 3)
      }
    }), 60_000)
})
