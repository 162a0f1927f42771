/**
 * Pure text helpers of the `edit` tool: the matching ladder that turns a model's approximate
 * old_string into the file's real slice, literal replacement, and the post-edit snippet.
 *
 * @since 0.1.0
 */

/** A half-open range of UTF-16 offsets. */
export type { Span } from "./replace.js"
/** The changed region of the new content with context lines, or null. */
export { extractEditSnippet } from "./snippet.js"
/** Context lines around the snippet's changed region (4). */
export { SNIPPET_CONTEXT_LINES } from "./snippet.js"
/** Largest changed region that still gets a snippet (1000 lines). */
export { SNIPPET_MAX_LINES } from "./snippet.js"
/** The snippet of an edited file (1-based inclusive lines). */
export type { EditSnippet } from "./snippet.js"
/** Runs the whole matching ladder and returns the match as data or a typed miss. */
export { resolveEdit } from "./resolve.js"
/** Options of `resolveEdit`: `replaceAll`, `expectedOccurrences`. */
export type { ResolveEditOptions } from "./resolve.js"
/** The result of `resolveEdit`. */
export type { EditResolution } from "./resolve.js"
/** A resolved edit with its rung, real slice, adjusted new_string, position and new content. */
export type { EditMatch } from "./resolve.js"
/** old_string matched nowhere, with the closest near-miss when there is one. */
export type { EditNoMatch } from "./resolve.js"
/** A non-exact needle matched several places; the edit is refused. */
export type { EditAmbiguous } from "./resolve.js"
/** The exact needle was found a different number of times than expected. */
export type { EditOccurrenceMismatch } from "./resolve.js"
/** The rung of the ladder that produced a match, a row of the ladder, and how a rung's places are judged. */
export type { Fuzziness, Rung, RungRow } from "./rungs.js"
/** The matching ladder as one table, in the order tried, and the row of a rung. */
export { RUNGS, rungRow } from "./rungs.js"
/** The closest near-miss: line, expected and actual text, and a short character diff. */
export type { NearMiss } from "./nearMiss.js"
/** A one-line character diff of expected vs actual text. */
export { characterDiff } from "./nearMiss.js"
/** The look-alike → ASCII folding table used for matching only. */
export { isJsWhitespace, UNICODE_EQUIVALENTS } from "./unicode.js"
/** Folds look-alike characters to ASCII without changing the length. */
export { normalizeUnicode } from "./unicode.js"
/** Text codec: encoding/BOM/line-ending detection and byte-exact round trips. */
export {
  bomBytes,
  decodeAs,
  decodeText,
  describeFormat,
  detectBom,
  detectEncoding,
  DETECTION_SAMPLE_BYTES,
  detectLineEnding,
  detectUtf16WithoutBom,
  encodeText,
  findUnrepresentable,
  fromLf,
  NEW_FILE_FORMAT,
  toLf
} from "./codec.js"
/** A file's encoding, BOM and line endings; a decoded file. */
export type { DecodedText, LineEnding, TextFormat } from "./codec.js"
/** Atomic compare-and-swap writes (temp file, fsync, rename; mode, owner, symlink target kept), under the file's write lock. */
export {
  atomicWrite,
  hashFile,
  readForChange,
  readForChangeHeld,
  resolveWriteTarget,
  sha256Hex,
  withWriteTarget
} from "./atomicWrite.js"
/** Options and result of `atomicWrite`; a resolved, locked write target. */
export type { AtomicWriteOptions, AtomicWriteResult, CurrentFile, HeldFile, HeldRead, Location, WriteTarget, WriteTargetOptions } from "./atomicWrite.js"
/** Resolving a path beneath the workspace roots without following links out of them. */
export { BeneathError, descriptorRealPath, fdPathsSupported, openBeneath } from "./beneath.js"
/** The per-file write locks (in the process, and a lock file across processes). */
export { awaitWriters, DEFAULT_LOCK_TIMEOUT_MS, WriteLocks } from "./writeLock.js"
/** Bounded per-session before-images of every file a mutation touches. */
export {
  DEFAULT_HISTORY_MAX_BYTES,
  DEFAULT_HISTORY_MAX_ENTRIES,
  DEFAULT_HISTORY_MAX_FILE_BYTES,
  makeFileHistory,
  sessionHistoryDir
} from "./history.js"
/** A history entry, the history service and its options. */
export type { FileHistory, FileHistoryOptions, HistoryEntry } from "./history.js"
/** Unified diffs, the model/user diff stat, and the old lines a change touches (whole texts, or a window around a known change). */
export {
  changedOldLines,
  changedOldLinesOf,
  createChangePatch,
  createPatchSmart,
  getChangeDiffStat,
  getDiffStat,
  hasHunks
} from "./diff.js"
/** One local change of a text, and the line windows around it that diffs and snippets use. */
export { applyChange, ChangeView, countBreaks } from "./change.js"
/** A change (`text[start, end)` replaced) and a window of whole lines around it. */
export type { ChangeWindow, TextChange } from "./change.js"
/** The snippet of an existing file's change, computed on a window around it. */
export { extractChangeSnippet } from "./snippet.js"
/** A changed file's bytes: its own bytes around the change plus the encoded replacement. */
export { encodeChange } from "./encodeChange.js"
/** Chunked whole-file reads hashed as they arrive, streamed hashes, and chunked writes. */
export { byteLengthOf, hashContents, IO_CHUNK_BYTES, readHashed, writeChunks } from "./fileIo.js"
/** Bytes to write: one buffer, or chunks in order. */
export type { WriteBytes } from "./fileIo.js"
/** Whether UTF-8 bytes certainly hold no look-alike character (the ladder then skips folding the file). */
export { utf8HasNoLookalikes } from "./unicode.js"
/** The diff stat and a changed line range. */
export type { ChangedLines, DiffStat } from "./diff.js"
