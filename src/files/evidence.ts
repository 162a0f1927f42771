/**
 * The opt-in stricter prior-read mode (`readEvidence: "ranges"`): an edit may only change lines
 * the session has seen, and an overwrite needs every line seen. Paging can always achieve both,
 * so large files never deadlock (the reason the reference dropped its full-read rule, #3945).
 * In the default `"fingerprint"` mode these checks pass whenever the file was read at all.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type FileIdentity, type FileReadCacheService, inodeKey, type LineRange, sameFile } from "../session/index.js"
import type { ChangedLines } from "../text/index.js"
import { EditRequiresPriorRead } from "../tool/index.js"

/** Lines of a text: `\n`-terminated lines plus a final unterminated one (a trailing `\n` adds none). @category lines */
export const countTextLines = (text: string): number => {
  if (text === "") return 0
  let count = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return text.endsWith("\n") ? count : count + 1
}

const describeRanges = (ranges: ReadonlyArray<LineRange>): string =>
  ranges.length === 0
    ? "none"
    : ranges.map((r) => (r.end === Number.POSITIVE_INFINITY ? `${r.start}-end` : r.start === r.end ? `${r.start}` : `${r.start}-${r.end}`)).join(", ")

/** The lines seen of this very file: an entry left by an earlier file with the same inode shows none. */
const seenSoFar = (cache: FileReadCacheService, stats: FileIdentity) =>
  Effect.map(cache.get(inodeKey(stats)), (found) => {
    const entry = Option.getOrUndefined(found)
    return describeRanges(entry !== undefined && sameFile(entry, stats) ? entry.seenLines ?? [] : [])
  })

/**
 * Fails with `edit_requires_prior_read` when some changed line range was not seen in this session.
 * @category enforcement
 */
export const requireSeenLines = Effect.fnUntraced(function*(
  cache: FileReadCacheService,
  abs: string,
  stats: FileIdentity,
  changed: ReadonlyArray<ChangedLines>
) {
  if (cache.disabled || cache.readEvidence !== "ranges") return
  for (const range of changed) {
    if (yield* cache.hasSeenLines(stats, range.start, range.end)) continue
    const lines = range.start === range.end ? `line ${range.start}` : `lines ${range.start}-${range.end}`
    return yield* new EditRequiresPriorRead({
      message: `This edit changes ${lines} of ${abs}, which this session has not read (lines seen so far: ` +
        `${yield* seenSoFar(cache, stats)}). An edit may only change lines you have seen. Read them first with ` +
        `the read_file tool (offset: ${range.start - 1}, limit: ${range.end - range.start + 1}), then retry the edit.`,
      display: `read ${lines} before editing them.`
    })
  }
})

/**
 * Fails with `edit_requires_prior_read` when an overwrite would replace lines this session has not seen.
 * @category enforcement
 */
export const requireSeenWholeFile = Effect.fnUntraced(function*(
  cache: FileReadCacheService,
  abs: string,
  stats: FileIdentity,
  totalLines: number
) {
  if (cache.disabled || cache.readEvidence !== "ranges") return
  if (yield* cache.hasSeenWholeFile(stats, totalLines)) return
  return yield* new EditRequiresPriorRead({
    message: `Overwriting ${abs} replaces all ${totalLines} of its lines, but this session has only seen lines ` +
      `${yield* seenSoFar(cache, stats)}. Read the rest with the read_file tool (offset / limit pages) before ` +
      `overwriting it, or use the edit tool to change only lines you have seen.`,
    display: "read the whole file before overwriting it."
  })
})
