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
import type { GrepExecutionError, LaunchQueueTimeout } from "../../tool/index.js"
import { runProcess, searchEnv } from "../searchProcess.js"
import { makeGitGrepBackend } from "./gitGrep.js"
import { jsGrepBackend } from "./js.js"
import { type BackendProbes, processBackendProbes } from "./processProbes.js"
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
  }).pipe(
    Effect.map((exit) => exit.exitCode === 0),
    Effect.catchTag("ProcessError", () => Effect.succeed(false))
  )
  return exit && out[0] === "true"
})

const freshProbes: BackendProbes = {
  ripgrep: makeRipgrepBackend(),
  gitGrep: makeGitGrepBackend(),
  grep: makeSystemGrepBackend()
}

/** Picks a backend with the given probes. */
const selectWith = Effect.fnUntraced(function*(
  probes: BackendProbes,
  root: string,
  options: { readonly force?: GrepBackendName }
) {
  switch (options.force) {
    case "ripgrep":
      return yield* probes.ripgrep
    case "git-grep":
      return yield* probes.gitGrep
    case "grep":
      return yield* probes.grep
    case "js":
      return jsGrepBackend
    case undefined:
      break
  }
  // a program that is missing moves on to the next one; a launch given up in the queue fails the search
  const available = (probe: Effect.Effect<GrepBackend, GrepExecutionError | LaunchQueueTimeout>) =>
    probe.pipe(Effect.map(Result.succeed), Effect.catchTag("GrepExecutionError", (e) => Effect.succeed(Result.fail(e))))
  const rg = yield* available(probes.ripgrep)
  if (Result.isSuccess(rg)) return rg.success
  const stat = yield* Effect.promise(() => fs.stat(root).catch(() => undefined))
  const dir = stat?.isDirectory() === false ? path.dirname(root) : root
  if (yield* insideGitWorkTree(dir)) {
    const git = yield* available(probes.gitGrep)
    if (Result.isSuccess(git)) return git.success
  }
  const grep = yield* available(probes.grep)
  if (Result.isSuccess(grep)) return grep.success
  const fallback: GrepBackend = jsGrepBackend
  return fallback
})

/** Picks the backend for a search root: `force` names one (failing when it is unavailable). @category constructors */
export const selectGrepBackend = Effect.fn("grep.select")(function*(
  root: string,
  options: { readonly force?: GrepBackendName } = {}
) {
  return yield* selectWith(freshProbes, root, options)
})

/** Picks a backend for a search root (see {@link selectGrepBackend}). @category models */
export type GrepBackendSelector = (
  root: string,
  options?: { readonly force?: GrepBackendName }
) => Effect.Effect<GrepBackend, GrepExecutionError | LaunchQueueTimeout>

/**
 * A {@link selectGrepBackend} that remembers each program probe once it succeeds (one process
 * spawn less per search); a missing program is probed again on the next search, so installing it
 * mid-session is noticed. The probes are kept once per process when a launch gate is in context
 * (every session of a process shares it; see `processProbes.ts`), else per selector.
 * @category constructors
 */
export const makeGrepBackendSelector = Effect.fnUntraced(function*() {
  const probes = yield* processBackendProbes
  const select: GrepBackendSelector = (root, options = {}) => selectWith(probes, root, options)
  return select
})
