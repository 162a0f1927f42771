/**
 * Prior-read enforcement: may a mutating tool (edit / write_file) touch this file?
 *
 * The contract (reference §4.2): any prior read of the current bytes — even partial or truncated —
 * clears enforcement; the mtime/size drift check is the safety net. The checks run in a fixed
 * order, and every rejection carries a model-facing message that says what to do next.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  EditRequiresPriorRead,
  FileChangedSinceRead,
  FileNotFound,
  PriorReadVerificationFailed,
  TargetIsDirectory
} from "../tool/index.js"
import { stat } from "../disk/index.js"
import type { FileReadCacheService } from "./readCache.js"

/** The gerund used in the messages. @category models */
export type PriorReadVerb = "editing" | "overwriting"

/** Options of {@link checkPriorRead}. @category models */
export interface CheckPriorReadOptions {
  /** The caller saw the file exist (post-read, or pre-write of a file that existed at read time). */
  readonly expectExisting?: boolean
}

/** Every way {@link checkPriorRead} can reject. @category errors */
export type PriorReadError =
  | EditRequiresPriorRead
  | FileChangedSinceRead
  | FileNotFound
  | PriorReadVerificationFailed
  | TargetIsDirectory

const READ_FILE = "read_file"

const GUIDANCE: Record<PriorReadVerb, string> = {
  editing: "(a partial read with offset / limit is fine — you only need to have seen the bytes you intend to edit)",
  overwriting:
    "(read the full file — overwriting replaces every byte, so any unseen bytes would be discarded)"
}

const BASE_VERB: Record<PriorReadVerb, string> = { editing: "edit", overwriting: "overwrite" }

/**
 * Checks that `absPath` may be edited or overwritten, in the reference's order: missing file
 * (ok, or `file_changed_since_read` when `expectExisting`), a parent that is a file (`file_not_found`),
 * any other stat failure, directory, special
 * file, fresh text read (ok), drift, non-text payload, replaced by another file since the read, never read. Skipped when the cache is
 * disabled. Follows symlinks (the cache is keyed by the target's inode).
 * @category enforcement
 */
export const checkPriorRead: (
  cache: FileReadCacheService,
  absPath: string,
  verb: PriorReadVerb,
  options?: CheckPriorReadOptions
) => Effect.Effect<void, PriorReadError> = Effect.fn("checkPriorRead")(function*(
  cache: FileReadCacheService,
  absPath: string,
  verb: PriorReadVerb,
  options: CheckPriorReadOptions = {}
) {
  if (cache.disabled) return
  const p = absPath
  const base = BASE_VERB[verb]
  const stats = yield* Effect.result(stat(p))
  if (Result.isFailure(stats)) {
    const code = stats.failure.code
    if (code === "ENOENT") {
      if (options.expectExisting !== true) return
      return yield* new FileChangedSinceRead({
        message: `File ${p} disappeared after the model read it (stat now returns ENOENT). Re-read with the ` +
          `${READ_FILE} tool — the path may have been deleted or moved — before retrying ${verb} it.`,
        display: `file disappeared after last read; re-run ${READ_FILE} first.`
      })
    }
    if (code === "ENOTDIR") {
      // Not a failure to verify: no file can exist at a path whose parent is a file.
      return yield* new FileNotFound({
        message: `Cannot ${base} ${p}: part of its parent path is a file, not a directory, so no file exists or can ` +
          `be created there. Check the path (list the parent directory) and use the path of a regular file.`,
        display: `File not found: a parent of ${p} is a file.`
      })
    }
    return yield* new PriorReadVerificationFailed({
      message: `Could not stat ${p} to verify prior read (${code ?? "unknown error"}). Re-read with the ` +
        `${READ_FILE} tool, then retry ${verb} it.`,
      display: `cannot verify prior read of ${p}; re-run ${READ_FILE} before ${verb} this file.`
    })
  }
  if (stats.success.isDirectory()) {
    return yield* new TargetIsDirectory({
      message: `${p} is a directory. The Edit / WriteFile tools only operate on regular files. Use a different ` +
        `mechanism (e.g. the shell tool) if you need to ${base} the contents of this directory.`,
      display: `path is a directory; cannot ${base} via this tool.`
    })
  }
  if (!stats.success.isFile()) {
    return yield* new EditRequiresPriorRead({
      message: `${p} is a FIFO / socket / character or block device. The Edit / WriteFile tools only operate on ` +
        `regular files; the ${READ_FILE} tool also rejects these targets. Use a different mechanism (e.g. shell ` +
        `tool with the appropriate command) if you need to ${base} this path.`,
      display: `special file; cannot ${base} via this tool.`
    })
  }
  const status = yield* cache.check(stats.success, p)
  const wasRead = status.state === "fresh" && status.entry.lastReadAt !== undefined
  if (wasRead && status.entry.lastReadCacheable) return
  if (status.state === "stale") {
    return yield* new FileChangedSinceRead({
      message: `File ${p} has been modified since you last read it (mtime or size changed). Re-read it with the ` +
        `${READ_FILE} tool before ${verb} it to ensure your changes are based on current content.`,
      display: `file changed since last read; re-run ${READ_FILE} first.`
    })
  }
  if (wasRead) {
    return yield* new EditRequiresPriorRead({
      message: `File ${p} is a binary / image / audio / video / PDF / notebook payload that the ${READ_FILE} tool ` +
        `returns as a structured value rather than as plain text. The Edit / WriteFile tools cannot mutate that ` +
        `payload safely — re-reading it would not change this. If this is a Jupyter notebook (.ipynb), use the ` +
        `notebook_edit tool for cell-level edits after reading it. For other non-text files, use a different ` +
        `mechanism (e.g. shell tool with an appropriate writer) if you need to ${base} it.`,
      display: `non-text payload; cannot ${base} via this tool.`
    })
  }
  if (yield* cache.seenAt(p)) {
    // Read before, but the file there now is another one (a new inode: replaced by a rename).
    return yield* new FileChangedSinceRead({
      message: `File ${p} was replaced since you last read it (another program or process wrote a new file in its ` +
        `place). Re-read it with the ${READ_FILE} tool before ${verb} it to ensure your changes are based on current content.`,
      display: `file replaced since last read; re-run ${READ_FILE} first.`
    })
  }
  return yield* new EditRequiresPriorRead({
    message: `File ${p} has not been read in this session. Use the ${READ_FILE} tool first to load the current ` +
      `content ${GUIDANCE[verb]} before ${verb} it.`,
    display: `${READ_FILE} required before ${verb} this file.`
  })
})
