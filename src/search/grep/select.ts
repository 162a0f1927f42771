/**
 * Choosing a grep backend at run time: ripgrep when `rg` is on PATH, else `git grep` inside a
 * git work tree, else system `grep`, else the JS engine.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { runProcess, searchEnv } from "../process.js"
import { makeGitGrepBackend } from "./gitGrep.js"
import { jsGrepBackend } from "./js.js"
import { makeRipgrepBackend } from "./ripgrep.js"
import { makeSystemGrepBackend } from "./systemGrep.js"
import type { GrepBackend, GrepBackendName } from "./types.js"

/** True when `dir` lies inside a git work tree (per `git rev-parse`). @category probes */
export const insideGitWorkTree = Effect.fn("grep.insideGitWorkTree")(function*(dir: string) {
  const out: Array<string> = []
  const exit = yield* runProcess("git", ["rev-parse", "--is-inside-work-tree"], {
    cwd: dir,
    env: searchEnv(),
    onLine: (line) => out.push(line.toString("utf8").trim())
  }).pipe(Effect.result)
  return Result.isSuccess(exit) && exit.success.exitCode === 0 && out[0] === "true"
})

/** Picks the backend for a search root: `force` names one (failing when it is unavailable). @category constructors */
export const selectGrepBackend = Effect.fn("grep.select")(function*(
  root: string,
  options: { readonly force?: GrepBackendName } = {}
) {
  switch (options.force) {
    case "ripgrep":
      return yield* makeRipgrepBackend()
    case "git-grep":
      return yield* makeGitGrepBackend()
    case "grep":
      return yield* makeSystemGrepBackend()
    case "js":
      return jsGrepBackend
    case undefined:
      break
  }
  const rg = yield* Effect.result(makeRipgrepBackend())
  if (Result.isSuccess(rg)) return rg.success
  const stat = yield* Effect.promise(() => fs.stat(root).catch(() => undefined))
  const dir = stat?.isDirectory() === false ? path.dirname(root) : root
  if (yield* insideGitWorkTree(dir)) {
    const git = yield* Effect.result(makeGitGrepBackend())
    if (Result.isSuccess(git)) return git.success
  }
  const grep = yield* Effect.result(makeSystemGrepBackend())
  if (Result.isSuccess(grep)) return grep.success
  const fallback: GrepBackend = jsGrepBackend
  return fallback
})
