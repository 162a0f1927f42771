/**
 * The grep engine model: one request shape, one result shape, one backend interface for the
 * four implementations (ripgrep, git grep, system grep, JS).
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import type { ExecutionTimeout, GrepExecutionError, LaunchQueueTimeout } from "../../tool/index.js"
import type { IgnoreOptions } from "../ignore/tree.js"
import type { SkippedIgnoreLineAt } from "../patternLimits.js"

/** The four grep engines. @category models */
export type GrepBackendName = "ripgrep" | "git-grep" | "grep" | "js"

/** A search: a JS-syntax regex, case-insensitive, over a file or a directory tree. @category models */
export interface GrepRequest {
  /** Regular expression in JavaScript syntax (validate it with `validateGrepPattern`). */
  readonly pattern: string
  /** Absolute path of the directory or file to search, already resolved inside the workspace. */
  readonly root: string
  /** Optional file filter in ripgrep `--iglob` syntax (`*.ts`, `*.{ts,tsx}`, `src/**`, `!*.min.js`). */
  readonly glob?: string
  /** Most matching lines wanted (the output never shows more than 1,000). */
  readonly limit?: number
  /** Which ignore files to respect. */
  readonly ignore: IgnoreOptions
  /** Match letters in their own case only (default false: case-insensitive). */
  readonly caseSensitive?: boolean
}

/** One matching line. @category models */
export interface GrepMatch {
  /** Path relative to the search root with `/` separators (the base name when the root is a file). */
  readonly path: string
  /** Absolute path of the file. */
  readonly absolutePath: string
  /** 1-based line number. */
  readonly line: number
  /**
   * The line without its line ending (`\n`, `\r\n`); a line longer than `MAX_MATCH_LINE_CHARS`
   * is only the window around its first hit (see `cutBefore`, `cutAfter`).
   */
  readonly text: string
  /** Characters of the line cut before `text` (present, with `cutAfter`, only on a cut line). */
  readonly cutBefore?: number
  /** Characters of the line cut after `text` (present, with `cutBefore`, only on a cut line). */
  readonly cutAfter?: number
}

/** The outcome of a search, identical whichever backend produced it. @category models */
export interface GrepResult {
  /** The first matches in (path, line) order, paths in tree order: at most `min(limit, 1000)` of them. */
  readonly matches: ReadonlyArray<GrepMatch>
  /**
   * How many matching lines exist in total; when more than `min(limit, 1000)` do, the search
   * stops counting and this is that cap plus one, with `totalIsLowerBound` set.
   */
  readonly totalMatches: number
  /** True when the search stopped at its cap: at least `totalMatches` lines match. */
  readonly totalIsLowerBound?: boolean
  /** The engine that actually ran (differs from the chosen backend after a fallback). */
  readonly engine: GrepBackendName
  /** Why the chosen backend handed the query to the JS engine, when it did. */
  readonly fallbackReason?: string
  /**
   * Files over `MAX_SEARCH_FILE_BYTES` that were not searched, as far as the backend can tell: all of
   * them for the JS engine and a file root, those with a matching line for git grep and grep, none
   * for ripgrep in a tree (it skips them silently: `--max-filesize`, or its watched run's matches dropped).
   */
  readonly skippedLargeFiles?: ReadonlyArray<string>
  /** Ignore-file lines not applied because they cannot compile (see `MAX_SEARCH_PATTERN_CHARS`). */
  readonly skippedIgnoreLines?: ReadonlyArray<SkippedIgnoreLineAt>
}

/** A grep engine. @category models */
export interface GrepBackend {
  readonly name: GrepBackendName
  /**
   * Fails with `ExecutionTimeout` when the JS engine's regex worker runs past its deadline, with
   * `LaunchQueueTimeout` when its process waited too long at the launch gate.
   */
  readonly search: (request: GrepRequest) => Effect.Effect<GrepResult, GrepExecutionError | ExecutionTimeout | LaunchQueueTimeout>
}
