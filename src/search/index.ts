/**
 * The search engines behind `grep_search`, `glob` and `list_directory`.
 *
 * Inputs are plain objects with absolute paths already resolved inside the workspace; the tool
 * layer wraps these functions. Grep has four interchangeable backends (ripgrep, git grep,
 * system grep, JS) that return identical results; `selectGrepBackend` picks one at run time.
 * The tools themselves (`makeGrepSearch`, `makeGlob`, `makeListDirectory`) are in `./tools/`.
 *
 * @since 0.1.0
 */
export { countBraceExpansions, validateBraceExpansion } from "./braces.js"
export {
  DEFAULT_EXCLUDED_NAMES,
  GREP_MAX_OUTPUT_CHARS,
  GREP_TIMEOUT_MS,
  MATCH_LINE_CHARS_BEFORE_HIT,
  MAX_ENTRY_COUNT,
  MAX_FILE_COUNT,
  MAX_GLOB_BRACE_EXPANSIONS,
  MAX_GLOB_COLLECTED_ENTRIES,
  MAX_MATCH_LINE_CHARS,
  MAX_SEARCH_FILE_BYTES,
  RECENCY_THRESHOLD_MS,
  REGEX_BATCH_TIMEOUT_MS,
  REGEX_WORKER_HEAP_MB,
  TOOLWRIGHT_IGNORE_FILE,
  TRUNCATE_TOOL_OUTPUT_LINES,
  TRUNCATE_TOOL_OUTPUT_THRESHOLD
} from "./constants.js"
export {
  describeGlobLocation,
  formatGlobResult,
  type GlobEntry,
  type GlobLocation,
  type GlobOutput,
  type GlobRequest,
  type GlobResult,
  globSearch,
  sortFileEntries,
  validateGlobPattern
} from "./glob.js"
export { makeGitGrepBackend } from "./grep/gitGrep.js"
export { describeGrepLocation, formatGrepResult, type GrepFormatOptions, type SearchLocation, type SearchOutput } from "./grep/format.js"
export { jsGrepBackend } from "./grep/js.js"
export { makeRipgrepBackend } from "./grep/ripgrep.js"
export { grepSearch } from "./grep/search.js"
export { type GrepBackendSelector, insideGitWorkTree, makeGrepBackendSelector, selectGrepBackend } from "./grep/select.js"
export { type GrepDialect, makeSystemGrepBackend } from "./grep/systemGrep.js"
export type { GrepBackend, GrepBackendName, GrepMatch, GrepRequest, GrepResult } from "./grep/types.js"
export type { IgnoreOptions } from "./ignore/tree.js"
export {
  formatListDirectory,
  type ListDirectoryRequest,
  type ListDirectoryResult,
  listDirectory,
  type ListEntry,
  matchesIgnoreGlob
} from "./listDirectory.js"
export { compileGrepPattern, type CompiledPattern, validateGrepPattern } from "./regex/compile.js"
export {
  GREP_BACKEND_CHOICES,
  GREP_BACKEND_ENV_VAR,
  type GrepBackendChoice,
  grepBackendChoice
} from "./tools/backend.js"
export { globDeclaration } from "./tools/glob.decl.js"
export { GLOB_MAX_COLLECTED_ENV_VAR, type GlobData, GlobParams, type GlobToolOptions, makeGlob, makeGlobTool } from "./tools/globTool.js"
export { lineRuns, recordGrepReads } from "./tools/grepReads.js"
export { grepSearchDeclaration } from "./tools/grepSearch.decl.js"
export {
  type GrepSearchData,
  GrepSearchParams,
  type GrepSearchToolOptions,
  makeGrepSearch,
  makeGrepSearchTool
} from "./tools/grepSearchTool.js"
export { listDirectoryDeclaration } from "./tools/listDirectory.decl.js"
export { type ListDirectoryData, ListDirectoryParams, makeListDirectory } from "./tools/listDirectoryTool.js"
export { cleanPathInput } from "./tools/paths.js"
