/**
 * Limits and fixed strings shared by the search engines (grep, glob, list_directory).
 *
 * The numeric limits carry over verbatim from the reference tool layer (§10.1, §11).
 *
 * @since 0.1.0
 */

/** Line cap of a tool's text output (`truncateToolOutputLines`). @category constants */
export const TRUNCATE_TOOL_OUTPUT_LINES = 1_000

/** Character cap of a tool's text output (`truncateToolOutputThreshold`). @category constants */
export const TRUNCATE_TOOL_OUTPUT_THRESHOLD = 25_000

/** The scheduler-level `maxOutputChars` of `grep_search` (applied by the tool layer, not here). @category constants */
export const GREP_MAX_OUTPUT_CHARS = 20_000

/** Glob: most paths shown (`MAX_FILE_COUNT`). @category constants */
export const MAX_FILE_COUNT = 100

/** Glob: most matching entries collected before the walk stops (`MAX_GLOB_COLLECTED_ENTRIES`). @category constants */
export const MAX_GLOB_COLLECTED_ENTRIES = MAX_FILE_COUNT * 10

/** Glob: files modified within this window sort first, newest first. @category constants */
export const RECENCY_THRESHOLD_MS = 24 * 60 * 60 * 1000

/**
 * Glob: most patterns a pattern's `{…}` groups may expand into (`{a,b}{c,d}` is 4). Past it the
 * call fails as `invalid_tool_params` before anything is expanded. @category constants
 */
export const MAX_GLOB_BRACE_EXPANSIONS = 1_024

/**
 * Longest pattern a search param may carry: `grep_search`'s `pattern` and `glob`, `glob`'s
 * `pattern`, each of `list_directory`'s `ignore` globs. Longer ones fail as `invalid_tool_params`:
 * V8 refuses to compile regexes from sources past ~60 KB ("Regular expression too large"), and a
 * glob grows several-fold on its way to one. @category constants
 */
export const MAX_SEARCH_PATTERN_CHARS = 10_000

/** list_directory: most entries shown (`MAX_ENTRY_COUNT`). @category constants */
export const MAX_ENTRY_COUNT = 100

/**
 * Grep: longest matching line shown whole. A longer line (minified code, a data blob) is shown as
 * a window of this many characters around its first hit, with a marker on each cut side saying how
 * many characters were left out, so one such line cannot take the whole output budget (an
 * 18,745-character line once filled it: 10 of 100 requested matches came back). @category constants
 */
export const MAX_MATCH_LINE_CHARS = 500

/** Grep: characters a cut line keeps before its first hit (the rest of the window follows it). @category constants */
export const MATCH_LINE_CHARS_BEFORE_HIT = 100

/** Grep: files larger than this are skipped by every backend (ripgrep: see `grep/sizeWatch.ts`). @category constants */
export const MAX_SEARCH_FILE_BYTES = 20 * 1024 * 1024

/**
 * Grep: wall-clock budget of one `grep_search` call (every root, every backend). Past it the search
 * is interrupted (processes killed, regex worker terminated) and the call fails as
 * `execution_timeout`. A tree search takes well under a second with ripgrep on an idle machine
 * (100,000 files: 0.4 s), but 12 s on a heavily loaded one, so this is a last resort, not the
 * guard against a backtracking pattern (that is {@link REGEX_BATCH_TIMEOUT_MS}). @category constants
 */
export const GREP_TIMEOUT_MS = 60_000

/**
 * Grep, JS engine: longest time its regex worker may take to match one batch of lines (at most
 * 128 files or 8 MiB). An ordinary pattern needs milliseconds; one that backtracks catastrophically
 * (`(a+)+$` on 31 characters: 2^31 steps) never finishes, and is stopped here with
 * `execution_timeout`. @category constants
 */
export const REGEX_BATCH_TIMEOUT_MS = 5_000

/**
 * Grep, JS engine: heap cap of its regex worker (`resourceLimits.maxOldGenerationSizeMb`); a batch
 * of lines is at most ~2 × 8 MiB of UTF-16 text. Past it the search fails with
 * `grep_execution_error`. @category constants
 */
export const REGEX_WORKER_HEAP_MB = 256

/** Directory names never searched or globbed (version-control metadata). @category constants */
export const DEFAULT_EXCLUDED_NAMES: ReadonlySet<string> = new Set([".git", ".hg", ".svn"])

/** Name of the per-directory ignore file that hides paths from the agent. @category constants */
export const TOOLWRIGHT_IGNORE_FILE = ".toolwrightignore"

/** Name of git's per-directory ignore file. @category constants */
export const GIT_IGNORE_FILE = ".gitignore"
