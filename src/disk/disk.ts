/**
 * The one disk adapter: small Effect-returning calls over `node:fs`, each failing with a
 * {@link DiskError} that keeps the operation, the path and the errno `code`, so every room above
 * branches on `ENOENT`, `EACCES`, … the same way and maps refusals through one table
 * (tool/errno.ts). This room imports no other room: it is the ground floor.
 *
 * Calls on paths a model names (the workspace: `realpath`, `stat`, `lstat`, `readlink`, `access`,
 * lock files beside the file they guard) stay on the thread pool although a synchronous call costs
 * less CPU (an async `lstat` 37 µs against 9 µs sync, `realpath` 96 against 10 µs; session 19):
 * on a hung network mount a synchronous call would stop the event loop, and with it every session,
 * timeout and cancellation of the process, where an async one holds one pool thread. Only the state
 * directory's own small files and listings ({@link writeSmallFile}, {@link sizesOf},
 * {@link readdirOfState}) are written and read synchronously.
 *
 * @since 0.3.0
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import type { Stats } from "node:fs"
import * as fsp from "node:fs/promises"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

/**
 * A failed file-system call: what was being done (`op`: `open`, `rename`, `lock`, …), the path
 * (the real one, never a `/proc/self/fd` path), the errno code when there is one, and the reason.
 * @category errors
 */
export class DiskError extends Data.TaggedError("DiskError")<{
  readonly op: string
  readonly path: string
  readonly code: string | undefined
  readonly message: string
}> {}

/** The errno code (`ENOENT`, `EACCES`, …) of a thrown Node error (or of a {@link DiskError}), if any. @category errno */
export const errnoCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined

const PROC_FD_PATH = /\/proc\/self\/fd\/\d+/g

/**
 * The {@link DiskError} of a thrown failure. `dirPath`: the real path of a directory addressed
 * through its descriptor (`/proc/self/fd/<fd>/<name>`), named in the message instead.
 * @category errors
 */
export const diskError = (op: string, path: string, cause: unknown, dirPath?: string): DiskError => {
  const raw = cause instanceof Error ? cause.message : String(cause)
  const message = dirPath === undefined ? raw : raw.replace(PROC_FD_PATH, dirPath)
  return new DiskError({ op, path, code: errnoCode(cause), message })
}

/**
 * Runs one file-system call (`f`, a promise) as an Effect failing with a {@link DiskError}; the
 * way to run a call this module has no named function for (an operation on an open handle).
 * @category calls
 */
export const call = <A>(op: string, path: string, f: () => Promise<A>, dirPath?: string): Effect.Effect<A, DiskError> =>
  Effect.tryPromise({ try: f, catch: (cause) => diskError(op, path, cause, dirPath) })

/**
 * Several calls on one file in one promise, so one Effect step (and one fiber resume) instead of
 * one per call: `f` names the call under way with `at(op)`, and a failure is the {@link DiskError}
 * of that op. `f` must release what it opens itself (`finally`), since an interruption stops
 * waiting for it but not the calls already started.
 * @category calls
 */
export const callSteps = <A>(
  path: string,
  f: (at: (op: string) => void) => Promise<A>,
  dirPath?: string
): Effect.Effect<A, DiskError> =>
  Effect.suspend(() => {
    let op = "open"
    return Effect.tryPromise({ try: () => f((next) => void (op = next)), catch: (cause) => diskError(op, path, cause, dirPath) })
  })

/**
 * Opens `path`, runs `use` on the handle and closes it, in one step ({@link callSteps}: the handle
 * is closed by the promise itself, however the caller's fiber ends). A failure of the open is op
 * `options.op` (default `open`); `use` names its own calls with `at`.
 * @category calls
 */
export const useOpened = <A>(
  path: string,
  flags: string | number,
  use: (handle: fsp.FileHandle, at: (op: string) => void) => Promise<A>,
  options: { readonly mode?: number; readonly op?: string; readonly shownAs?: string; readonly dirPath?: string } = {}
): Effect.Effect<A, DiskError> =>
  callSteps(options.shownAs ?? path, async (at) => {
    at(options.op ?? "open")
    const handle = await fsp.open(path, flags, options.mode)
    try {
      return await use(handle, at)
    } finally {
      // A failed close has nothing left to undo: the descriptor is released either way.
      await handle.close().catch(() => undefined)
    }
  }, options.dirPath)

/** {@link call} for a synchronous call (the metadata calls: see the module's comment). @category calls */
export const callSync = <A>(op: string, path: string, f: () => A, dirPath?: string): Effect.Effect<A, DiskError> =>
  Effect.try({ try: f, catch: (cause) => diskError(op, path, cause, dirPath) })

/** Whether a failure is "does not exist" (ENOENT). @category errno */
export const isNotFound = (e: DiskError): boolean => e.code === "ENOENT"

/** `effect`, or `undefined` when its path does not exist (ENOENT). @category combinators */
export const ifExists = <A, R>(effect: Effect.Effect<A, DiskError, R>): Effect.Effect<A | undefined, DiskError, R> =>
  Effect.catchIf(effect, isNotFound, () => Effect.succeed(undefined))

/** `fs.realpath`: the canonical path, every symlink resolved. @category fs */
export const realpath = (path: string): Effect.Effect<string, DiskError> => call("realpath", path, () => fsp.realpath(path))

/** `fs.stat`: follows symlinks. @category fs */
export const stat = (path: string): Effect.Effect<Stats, DiskError> => call("stat", path, () => fsp.stat(path))

/** `fs.lstat`: does not follow a final symlink; a failure names `shownAs`. @category fs */
export const lstat = (path: string, shownAs = path, dirPath?: string): Effect.Effect<Stats, DiskError> =>
  call("lstat", shownAs, () => fsp.lstat(path), dirPath)

/** `fs.readlink`: the raw target of a symlink. @category fs */
export const readlink = (path: string): Effect.Effect<string, DiskError> => call("readlink", path, () => fsp.readlink(path))

/** `fs.access(path, mode)`. @category fs */
export const access = (path: string, mode: number, shownAs = path, dirPath?: string): Effect.Effect<void, DiskError> =>
  call("access", shownAs, () => fsp.access(path, mode), dirPath)

/** `fs.mkdir(path, { recursive: true, mode })`: the first directory created, if any. @category fs */
export const mkdirp = (path: string, mode = 0o777): Effect.Effect<string | undefined, DiskError> =>
  call("mkdir", path, () => fsp.mkdir(path, { recursive: true, mode }))

/** `fs.mkdir(path, mode)`: one directory, its parent must exist. @category fs */
export const mkdir = (path: string, mode: number, shownAs = path): Effect.Effect<void, DiskError> =>
  call("mkdir", shownAs, () => fsp.mkdir(path, mode))

/** `fs.chmod`. @category fs */
export const chmod = (path: string, mode: number): Effect.Effect<void, DiskError> => call("chmod", path, () => fsp.chmod(path, mode))

/** `fs.rename(from, to)`; a failure names `shownAs` (the target, by default). @category fs */
export const rename = (from: string, to: string, shownAs = to, dirPath?: string): Effect.Effect<void, DiskError> =>
  call("rename", shownAs, () => fsp.rename(from, to), dirPath)

/** Removes a file or (with `recursive`) a tree; a missing path is not an error. @category fs */
export const remove = (path: string, options: { readonly recursive?: boolean } = {}): Effect.Effect<void, DiskError> =>
  call("rm", path, () => fsp.rm(path, { force: true, recursive: options.recursive === true }))

/**
 * Removes one file (`unlink`, one system call: {@link remove} is an `lstat` or two before it); a
 * missing file is not an error.
 * @category fs
 */
export const removeFile = (path: string, shownAs = path, dirPath?: string): Effect.Effect<void, DiskError> =>
  call("rm", shownAs, () => fsp.unlink(path).catch((e: unknown) => (errnoCode(e) === "ENOENT" ? undefined : Promise.reject(e))), dirPath)

/** `fs.readdir`: the names in a directory. @category fs */
export const readdir = (path: string): Effect.Effect<Array<string>, DiskError> => call("readdir", path, () => fsp.readdir(path))

/**
 * The names in one of the state directory's own directories, read synchronously (see the module's
 * comment: never a path a model names).
 * @category fs
 */
export const readdirOfState = (path: string): Effect.Effect<Array<string>, DiskError> =>
  callSync("readdir", path, () => fs.readdirSync(path))

/** The whole file's bytes. @category fs */
export const readFile = (path: string): Effect.Effect<Uint8Array, DiskError> => call("read", path, () => fsp.readFile(path))

/** The whole file as UTF-8 text. @category fs */
export const readText = (path: string): Effect.Effect<string, DiskError> => call("read", path, () => fsp.readFile(path, "utf8"))

/** `fs.writeFile` (not atomic: see {@link writeFileAtomic}). @category fs */
export const writeFile = (
  path: string,
  data: string | Uint8Array,
  options: { readonly mode?: number; readonly flag?: string } = {}
): Effect.Effect<void, DiskError> => call("write", path, () => fsp.writeFile(path, data, options))

/** Data up to this many bytes is written synchronously by {@link writeSmallFile} and {@link createSmallFile}. @category constants */
export const SMALL_WRITE_BYTES = 64 * 1024

const byteLength = (data: string | Uint8Array): number => typeof data === "string" ? Buffer.byteLength(data) : data.byteLength

/** open, write, close, synchronously; the descriptor is closed whatever fails. */
const writeWholeSync = (path: string, data: string | Uint8Array, flags: string | number, mode: number | undefined): void => {
  const fd = fs.openSync(path, flags, mode)
  try {
    fs.writeFileSync(fd, data)
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * {@link writeFile}, synchronously when the data is small (up to {@link SMALL_WRITE_BYTES}): three
 * syscalls into the page cache instead of three thread-pool round trips (open, write, close).
 * Nothing is flushed either way. A failure names the operation that failed as `write`.
 * @category fs
 */
export const writeSmallFile = (
  path: string,
  data: string | Uint8Array,
  options: { readonly mode?: number } = {}
): Effect.Effect<void, DiskError> =>
  byteLength(data) <= SMALL_WRITE_BYTES
    ? callSync("write", path, () => writeWholeSync(path, data, "w", options.mode))
    : writeFile(path, data, options)

/**
 * Creates a file with `flags` (e.g. `O_CREAT | O_EXCL`) holding a few bytes (a lock file's owner
 * line, beside the file it guards: on the thread pool, see the module's comment), and returns its
 * `fstat`; `op` of a failure is `open` (EEXIST: it exists), `write` or `stat`.
 * @category fs
 */
export const createSmallFile = (path: string, flags: number, mode: number, data: string): Effect.Effect<Stats, DiskError> =>
  useOpened(path, flags, async (handle, at) => {
    at("write")
    await handle.writeFile(data)
    // The created file's own stats (its inode: the very file this call created).
    at("stat")
    return await handle.stat()
  }, { mode })

/**
 * Removes the file at `path` only while it is the file with inode `ino` (an `lstat`, then the
 * `unlink`, in one step); whether it was removed. A missing file is not an error.
 * @category fs
 */
export const removeFileIfInode = (path: string, ino: number): Effect.Effect<boolean, DiskError> =>
  callSteps(path, async (at) => {
    at("lstat")
    const stats = await fsp.lstat(path).catch((e: unknown) => (errnoCode(e) === "ENOENT" ? undefined : Promise.reject(e)))
    if (stats === undefined || stats.ino !== ino) return false
    at("rm")
    await fsp.unlink(path).catch((e: unknown) => (errnoCode(e) === "ENOENT" ? undefined : Promise.reject(e)))
    return true
  })

/**
 * Opens a file for the span of the scope (closed when it ends). `op`: what a failure says was
 * being done (default `open`); `shownAs`/`dirPath`: how it names the file when `path` is a
 * descriptor path.
 * @category fs
 */
export const open = (
  path: string,
  flags: string | number,
  options: { readonly mode?: number; readonly op?: string; readonly shownAs?: string; readonly dirPath?: string } = {}
): Effect.Effect<fsp.FileHandle, DiskError, Scope.Scope> =>
  Effect.acquireRelease(
    call(options.op ?? "open", options.shownAs ?? path, () => fsp.open(path, flags, options.mode), options.dirPath),
    // A failed close has nothing left to undo: the descriptor is released either way.
    (handle) => Effect.tryPromise(() => handle.close()).pipe(Effect.ignore)
  )

/**
 * The sizes of many files (0 for one that is gone or unreadable), read synchronously on purpose:
 * a stat from the dentry cache costs a few µs, where an async one costs a thread-pool round trip
 * and a promise per file (200 of them were ~3 ms per history record).
 * @category fs
 */
export const sizesOf = (paths: ReadonlyArray<string>): Effect.Effect<Array<number>> =>
  Effect.sync(() =>
    paths.map((p) => {
      try {
        return fs.statSync(p, { throwIfNoEntry: false })?.size ?? 0
      } catch {
        return 0
      }
    })
  )

const writeAndSync = (path: string, data: string, mode: number): Effect.Effect<void, DiskError> =>
  Effect.scoped(Effect.gen(function*() {
    const handle = yield* open(path, "wx", { mode })
    yield* call("write", path, () => handle.writeFile(data, "utf8"))
    yield* call("fsync", path, () => handle.sync())
  }))

/**
 * Creates `path` with `data` only if nothing exists there (`O_EXCL`), flushed: true when this
 * call created it, false when the path already existed.
 * @category fs
 */
export const createExclusive = (path: string, data: string, mode: number): Effect.Effect<boolean, DiskError> =>
  writeAndSync(path, data, mode).pipe(
    Effect.as(true),
    Effect.catchIf((e) => e.code === "EEXIST" && e.op === "open", () => Effect.succeed(false))
  )

/**
 * Replaces `path` with `data` atomically (temp file next to it, fsync, rename), so a reader sees
 * the old bytes or the new ones, never a torn file; on failure the temp file is removed and the
 * target is untouched. For small state files; a change to a user's file goes through
 * text/atomicWrite.ts (compare-and-swap, lock, mode and owner kept).
 * @category fs
 */
export const writeFileAtomic = (path: string, data: string, mode: number): Effect.Effect<void, DiskError> =>
  Effect.suspend(() => {
    const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`
    return writeAndSync(temp, data, mode).pipe(
      Effect.andThen(call("rename", path, () => fsp.rename(temp, path))),
      Effect.onError(() => remove(temp).pipe(Effect.ignore))
    )
  })

/** A one-line description of a failure: `rename /a/b: EISDIR`. @category errors */
export const describeDiskError = (error: DiskError): string => `${error.op} ${error.path}: ${error.code ?? error.message}`
