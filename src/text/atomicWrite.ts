/**
 * Atomic, compare-and-swap file writes.
 *
 * The new bytes go to a temp file in the target's own directory, are fsync'ed, get the target's
 * mode (and owner, where permitted), and are renamed over the target; the directory is fsync'ed
 * after. A reader, or a crash at any instant, sees the old file or the new one, never a mix.
 *
 * Compare-and-swap: the caller passes the bytes its new content was computed from, or their
 * sha256 (`null`: the file must not exist). Immediately before the rename the target is read again
 * and compared (or hashed); any difference — even an equal-size rewrite within the same mtime —
 * fails with `file_changed_since_read` and writes nothing.
 *
 * A symlink is followed: its final target is written and the link stays a link. Two cases write in
 * place instead (after the same check), as editors do: a file with several hard links (a rename
 * would split them) and a file whose directory refuses new entries while the file itself is writable.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { errnoCode } from "../session/fsEffect.js"
import { resolveRealPath } from "../session/realPath.js"
import { FileChangedSinceRead } from "../tool/errors.js"
import { byteLengthOf, hashContents, sameContents, sha256Hex, type WriteBytes, writeChunks } from "./fileIo.js"

/** A write failed at the OS level; `code` is the errno code (`EACCES`, `ENOSPC`, `EISDIR`, …). @category errors */
export class AtomicWriteError extends Data.TaggedError("AtomicWriteError")<{
  readonly op: string
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** Options of {@link atomicWrite}. @category models */
export interface AtomicWriteOptions {
  /**
   * sha256 (hex) of the current bytes the new content was computed from; `null` means the file
   * must not exist; omitted means no check.
   */
  readonly expectedHash?: string | null | undefined
  /**
   * The current bytes the new content was computed from, compared byte for byte (cheaper than
   * `expectedHash` when the caller still holds them); `null` means the file must not exist. When
   * both are given, the bytes are used.
   */
  readonly expectedBytes?: Uint8Array | null | undefined
  /** Mode of a new file before the umask (default 0o666). Existing files keep theirs. */
  readonly newFileMode?: number | undefined
}

/** What {@link atomicWrite} did. @category models */
export interface AtomicWriteResult {
  /** The path really written (symlinks resolved). */
  readonly path: string
  readonly bytes: number
  /** `atomic` (temp + rename) or `in-place` (hard-linked file, or a directory refusing new entries). */
  readonly method: "atomic" | "in-place"
  /** The file's stats after the write. */
  readonly stats: Stats
}

/** Hex sha256 of `bytes`. @category hashing */
export { sha256Hex }

const fail = (op: string, file: string) => (cause: unknown): AtomicWriteError => {
  const code = errnoCode(cause)
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new AtomicWriteError({ op, path: file, code, message: reason })
}

const attempt = <A>(op: string, file: string, f: () => Promise<A>): Effect.Effect<A, AtomicWriteError> =>
  Effect.tryPromise({ try: f, catch: fail(op, file) })

const statOrNone = (file: string): Effect.Effect<Option.Option<Stats>, AtomicWriteError> =>
  Effect.tryPromise({ try: () => fsp.stat(file), catch: fail("stat", file) }).pipe(
    Effect.map(Option.some),
    Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(Option.none<Stats>()))
  )

/** The sha256 of a file's current bytes (read in chunks), or `null` when it does not exist. @category hashing */
export const hashFile = (file: string): Effect.Effect<string | null, AtomicWriteError> =>
  Effect.acquireUseRelease(
    attempt("read", file, () => fsp.open(file, "r")),
    (handle) => attempt("read", file, (): Promise<string | null> => hashContents(handle)),
    (handle) => Effect.promise(() => handle.close())
  ).pipe(Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed(null)))

/** The path a write to `file` really lands on: symlinks (even dangling ones) followed. @category paths */
export const resolveWriteTarget = (file: string): Effect.Effect<string, AtomicWriteError> =>
  resolveRealPath(path.resolve(file)).pipe(
    Effect.mapError((e) => new AtomicWriteError({ op: "realpath", path: file, code: e.code, message: `cannot resolve ${file}` }))
  )

/** What the file must still hold for a write to go ahead: nothing (it must not exist), its bytes, or their hash. */
type Expected =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Bytes"; readonly bytes: Uint8Array }
  | { readonly _tag: "Hash"; readonly hash: string }

const expectedOf = ({ expectedBytes, expectedHash }: AtomicWriteOptions): Expected | undefined => {
  const given = expectedBytes !== undefined ? expectedBytes : expectedHash
  if (given === undefined) return undefined
  if (given === null) return { _tag: "Absent" }
  return typeof given === "string" ? { _tag: "Hash", hash: given } : { _tag: "Bytes", bytes: given }
}

/** Whether the file now holds what was expected: "same", "absent" (it does not exist) or "differs". */
const currentState = (file: string, expected: Expected): Effect.Effect<"same" | "absent" | "differs", AtomicWriteError> => {
  switch (expected._tag) {
    case "Absent":
      return Effect.map(statOrNone(file), (found) => (Option.isNone(found) ? "same" : "differs"))
    case "Hash":
      return Effect.map(hashFile(file), (actual) => (actual === expected.hash ? "same" : actual === null ? "absent" : "differs"))
    case "Bytes":
      return Effect.acquireUseRelease(
        attempt("read", file, () => fsp.open(file, "r")),
        (handle) => attempt("read", file, () => sameContents(handle, expected.bytes)),
        (handle) => Effect.promise(() => handle.close())
      ).pipe(
        Effect.map((same): "same" | "differs" => (same ? "same" : "differs")),
        Effect.catchIf((e) => e.code === "ENOENT", () => Effect.succeed("absent" as const))
      )
  }
}

const verify = Effect.fnUntraced(function*(target: string, expected: Expected | undefined) {
  if (expected === undefined) return
  const state = yield* currentState(target, expected)
  if (state === "same") return
  const what = expected._tag === "Absent"
    ? "was created by someone else"
    : state === "absent"
    ? "was deleted"
    : "was modified (its bytes no longer match the ones the change was computed from)"
  return yield* new FileChangedSinceRead({
    message: `File ${target} ${what} after it was read for this change, so nothing was written. Re-read it ` +
      `with the read_file tool and redo the change against the current content.`,
    display: "file changed on disk before the write; nothing written."
  })
})

const tempPathFor = (target: string): string =>
  path.join(path.dirname(target), `.${path.basename(target)}.tw-${randomBytes(6).toString("hex")}.tmp`)

const syncDirectory = (dir: string): Effect.Effect<void> =>
  Effect.acquireUseRelease(
    attempt("open", dir, () => fsp.open(dir, "r")),
    (handle) => attempt("fsync", dir, () => handle.sync()),
    (handle) => Effect.promise(() => handle.close())
  ).pipe(Effect.ignore)

const writeInPlace = Effect.fnUntraced(function*(target: string, bytes: WriteBytes, expected: Expected | undefined) {
  yield* verify(target, expected)
  yield* Effect.acquireUseRelease(
    attempt("open", target, () => fsp.open(target, "r+")),
    (handle) =>
      Effect.gen(function*() {
        yield* attempt("write", target, () => writeChunks(handle, bytes))
        yield* attempt("truncate", target, () => handle.truncate(byteLengthOf(bytes)))
        yield* attempt("fsync", target, () => handle.sync())
      }),
    (handle) => Effect.promise(() => handle.close())
  )
})

const writeTemp = Effect.fnUntraced(function*(temp: string, bytes: WriteBytes, existing: Option.Option<Stats>, mode: number) {
  yield* Effect.acquireUseRelease(
    attempt("open", temp, () => fsp.open(temp, "wx", Option.isSome(existing) ? 0o600 : mode)),
    (handle) =>
      Effect.gen(function*() {
        yield* attempt("write", temp, () => writeChunks(handle, bytes))
        yield* attempt("fsync", temp, () => handle.sync())
        if (Option.isSome(existing)) {
          const { mode: m, uid, gid } = existing.value
          // Owner first (chown may clear set-id bits), then the exact mode.
          yield* attempt("chown", temp, () => handle.chown(uid, gid)).pipe(Effect.ignore)
          yield* attempt("chmod", temp, () => handle.chmod(m & 0o7777))
        }
      }),
    (handle) => Effect.promise(() => handle.close())
  )
})

const statAfter = (target: string) => attempt("stat", target, () => fsp.stat(target))

/**
 * Writes `bytes` (one buffer, or chunks written in order) to `file` atomically, after checking
 * that the file still holds the bytes the change was computed from. Fails with {@link FileChangedSinceRead} (nothing written) when it
 * does not, and with {@link AtomicWriteError} (nothing written) when the OS refuses. The temp file
 * never outlives the call, whatever ends it (failure, interruption).
 * @category writing
 */
export const atomicWrite: (
  file: string,
  bytes: WriteBytes,
  options?: AtomicWriteOptions
) => Effect.Effect<AtomicWriteResult, AtomicWriteError | FileChangedSinceRead> = Effect.fn("atomicWrite")(
  function*(file: string, bytes: WriteBytes, options: AtomicWriteOptions = {}) {
    const target = yield* resolveWriteTarget(file)
    const existing = yield* statOrNone(target)
    const length = byteLengthOf(bytes)
    const expected = expectedOf(options)
    const inPlace = Effect.gen(function*() {
      yield* writeInPlace(target, bytes, expected)
      return { path: target, bytes: length, method: "in-place", stats: yield* statAfter(target) } as const
    })
    if (Option.isSome(existing)) {
      const stats = existing.value
      if (stats.isDirectory()) {
        return yield* new AtomicWriteError({ op: "open", path: target, code: "EISDIR", message: `${target} is a directory` })
      }
      if (!stats.isFile()) {
        return yield* new AtomicWriteError({ op: "open", path: target, code: undefined, message: `${target} is not a regular file` })
      }
      // Temp + rename needs only the directory to be writable; a read-only file must stay refused.
      yield* attempt("access", target, () => fsp.access(target, fsp.constants.W_OK))
      if (stats.nlink > 1) return yield* inPlace
    }
    const temp = tempPathFor(target)
    // After a successful rename the temp name is gone, so removing it is a no-op; on any other
    // ending (failure, interruption) it removes the half-written temp file.
    const written = yield* Effect.gen(function*() {
      const created = yield* Effect.result(writeTemp(temp, bytes, existing, options.newFileMode ?? 0o666))
      if (Result.isFailure(created)) return created.failure
      yield* verify(target, expected)
      yield* attempt("rename", target, () => fsp.rename(temp, target))
      return undefined
    }).pipe(Effect.ensuring(Effect.tryPromise(() => fsp.rm(temp, { force: true })).pipe(Effect.ignore)))
    if (written !== undefined) {
      const refused = written.code === "EACCES" || written.code === "EPERM"
      if (Option.isSome(existing) && refused) return yield* inPlace
      return yield* written
    }
    yield* syncDirectory(path.dirname(target))
    return { path: target, bytes: length, method: "atomic", stats: yield* statAfter(target) } as const
  }
)
