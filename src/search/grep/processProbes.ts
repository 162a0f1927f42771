/**
 * The grep backends' program probes, once per process. Finding a backend runs its program
 * (`rg --version`, `git --version` and a PCRE probe, `grep --version` and a dialect probe), and the
 * ripgrep backend it yields keeps what it learns about search directories (the `.rgignore` walk
 * of ripgrep 13, a directory holding a file over the size cap; see `ripgrep.ts`). Every session
 * of a process sees the same programs and the same directories, so these are kept in the
 * process's one-time checks (`ProcessChecks`, on the launch gate every session of a process
 * shares): a hundred sessions probe once, not a hundred times, and share one `.rgignore` walk
 * per directory. A lone session (its own gate) or a caller without a gate keeps its own.
 *
 * A probe that succeeded is kept for the process; a program found missing is probed again on the
 * next search (installing it is noticed), and so is a probe given up in the launch queue.
 *
 * @since 0.3.0
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { LaunchGate, makeProcessChecks, type ProcessChecks } from "../../process/index.js"
import type { GrepExecutionError, LaunchQueueTimeout } from "../../tool/index.js"
import { makeGitGrepBackend } from "./gitGrep.js"
import { makeRipgrepBackend } from "./ripgrep.js"
import { makeSystemGrepBackend } from "./systemGrep.js"
import type { GrepBackend } from "./types.js"

/** How a backend is obtained (probing its program): one effect per external backend. @category models */
export interface BackendProbes {
  readonly ripgrep: Effect.Effect<GrepBackend, GrepExecutionError | LaunchQueueTimeout>
  readonly gitGrep: Effect.Effect<GrepBackend, GrepExecutionError | LaunchQueueTimeout>
  readonly grep: Effect.Effect<GrepBackend, GrepExecutionError | LaunchQueueTimeout>
}

const untilFailure = (exit: Exit.Exit<GrepBackend, GrepExecutionError | LaunchQueueTimeout>) =>
  Exit.isSuccess(exit) ? Duration.infinity : Duration.zero

/** The backend probes kept in `checks` (a success for good, a failure not at all). @category constructors */
export const backendProbesIn = (checks: ProcessChecks): BackendProbes => ({
  ripgrep: checks.once("search/grep-backend/ripgrep", makeRipgrepBackend(), untilFailure),
  gitGrep: checks.once("search/grep-backend/git-grep", makeGitGrepBackend(), untilFailure),
  grep: checks.once("search/grep-backend/grep", makeSystemGrepBackend(), untilFailure)
})

/**
 * The backend probes of this process: kept in the one-time checks of the launch gate in context
 * (shared by every session of the process), else in checks of their own.
 * @category constructors
 */
export const processBackendProbes: Effect.Effect<BackendProbes> = Effect.map(
  Effect.serviceOption(LaunchGate),
  (gate) => backendProbesIn(Option.isSome(gate) ? gate.value.checks : makeProcessChecks())
)
