/**
 * Grep hits count as reads (reference §4.1, `recordGrepResultFileReads`): every file shown in a
 * `grep_search` result is recorded in the session's read cache as a partial read, so the model
 * can edit a file it saw only through grep. With `readEvidence: "ranges"` the lines shown whole
 * are the ranges seen (a line cut by the character cap is not).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { FileReadCacheService, LineRange } from "../../session/index.js"
import type { GrepMatch } from "../grep/types.js"

/** A file's stats, or undefined when it cannot be stat'ed (a synchronous `stat`: no thread-pool round trip per file). */
const statOf = (abs: string): fs.Stats | undefined => {
  try {
    return fs.statSync(abs, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
}

/** Sorted line numbers as contiguous ranges (`[3, 4, 5, 9]` → `3-5`, `9-9`). @category ranges */
export const lineRuns = (lines: ReadonlyArray<number>): ReadonlyArray<LineRange> => {
  const sorted = [...new Set(lines)].sort((a, b) => a - b)
  const runs: Array<{ start: number; end: number }> = []
  for (const line of sorted) {
    const last = runs[runs.length - 1]
    if (last !== undefined && line === last.end + 1) last.end = line
    else runs.push({ start: line, end: line })
  }
  return runs
}

/**
 * Records the files of a grep result as partial reads: `files` are the absolute paths shown,
 * `wholeLines` the matches shown in full. A file modified after `searchStartedMs` (wall clock)
 * is skipped: the model may have seen older bytes than the ones now on disk.
 * @category recording
 */
export const recordGrepReads = Effect.fnUntraced(function*(
  cache: FileReadCacheService,
  files: ReadonlyArray<string>,
  wholeLines: ReadonlyArray<GrepMatch>,
  searchStartedMs: number
) {
  if (cache.disabled || files.length === 0) return 0
  const linesOf = new Map<string, Array<number>>()
  for (const match of wholeLines) {
    const lines = linesOf.get(match.absolutePath)
    if (lines === undefined) linesOf.set(match.absolutePath, [match.line])
    else lines.push(match.line)
  }
  let recorded = 0
  for (const abs of files) {
    const stats = statOf(abs)
    if (stats === undefined || !stats.isFile() || stats.mtimeMs > searchStartedMs) continue
    const cacheable = path.extname(abs).toLowerCase() !== ".ipynb"
    const runs = cache.readEvidence === "ranges" ? lineRuns(linesOf.get(abs) ?? []) : []
    if (runs.length === 0) yield* cache.recordRead(abs, stats, { full: false, cacheable })
    for (const lines of runs) yield* cache.recordRead(abs, stats, { full: false, cacheable, lines })
    recorded++
  }
  return recorded
})
