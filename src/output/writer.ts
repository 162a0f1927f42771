/**
 * The output store's streaming write: an output that arrives in chunks is appended to a temp file
 * as it comes (SHA-256, byte and line counts updated per chunk), its bytes claimed from the
 * session cap chunk by chunk, and renamed to `<id>.output` when it ends. Memory holds one chunk.
 *
 * A cap reached or a write that fails does not fail the writer: the first failure is kept, the
 * temp file is removed and its room given back, and later chunks are only hashed and counted, so
 * the caller still gets the size and digest of the whole output for its note.
 *
 * @since 0.2.0
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import type * as FileSystem from "effect/FileSystem"
import * as Result from "effect/Result"
import * as Scope from "effect/Scope"
import { ByteRing } from "./ring.js"
import { chunkEnd, encodeChunk, WRITE_BUFFER_BYTES } from "./encode.js"
import { OutputTooLarge, OutputWriteFailed, type PersistError, SessionBudgetExhausted } from "./errors.js"
import type { PersistedOutput } from "./store.js"

/** Size, digest and line count of everything appended. @category models */
export interface OutputFacts {
  /** UTF-8 bytes. */
  readonly bytes: number
  /** Hex SHA-256. */
  readonly sha256: string
  /** Lines, counted as `countLines` does (a final line without `\n` counts). */
  readonly lines: number
}

/** How a streamed save ended: the facts of the whole output and the saved record or why there is none. @category models */
export interface WriterOutcome {
  readonly facts: OutputFacts
  readonly saved: Result.Result<PersistedOutput, PersistError>
}

/**
 * An output being saved as it arrives ({@link OutputStore.Service.openWriter}). `append` never
 * fails (see the module note); `finish` renames the file into place and records it. Closing the
 * writer's scope before `finish` removes the temp file and gives its room back.
 *
 * @category models
 */
export interface OutputWriter {
  /** The path the output will have once finished. */
  readonly path: string
  readonly append: (chunk: string | Uint8Array) => Effect.Effect<void>
  readonly finish: Effect.Effect<WriterOutcome>
  /** The last `tailChars` chars appended (see {@link WriterOptions}); "" without them. */
  readonly tail: () => string
}

/** Options of a streamed save. @category models */
export interface WriterOptions {
  /**
   * Keep the last this many chars of the output, as UTF-8 bytes in a fixed ring: a tail window
   * that holds no string of the stream (each would live on in the collector's old space).
   */
  readonly tailChars?: number | undefined
}

/** What the store lends a writer. @internal */
export interface WriterHost {
  readonly fs: FileSystem.FileSystem
  readonly maxFileBytes: number
  readonly maxSessionBytes: number
  /** Claims `bytes` of the session cap if they fit whole (returns false and the bytes used otherwise). */
  readonly claimSession: (bytes: number) => { readonly ok: boolean; readonly used: number }
  readonly releaseSession: (bytes: number) => void
  /** Makes the store's directory if it is not made yet. */
  readonly ensureDir: Effect.Effect<void, unknown>
  /** A fresh id with its final and temp paths. */
  readonly newSlot: (toolName: string) => { readonly id: string; readonly target: string; readonly temp: string }
  /** Records a finished output. */
  readonly record: (entry: PersistedOutput) => Effect.Effect<void>
}

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** Counts `\n` bytes. */
const newlinesIn = (bytes: Uint8Array): number => {
  let count = 0
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) count++
  return count
}

/**
 * Opens a streamed save of `toolName`'s output in the current scope.
 *
 * @internal
 */
export const openWriter = (
  host: WriterHost,
  toolName: string,
  options: WriterOptions = {}
): Effect.Effect<OutputWriter, never, Scope.Scope> =>
  Effect.gen(function*() {
    const scope = yield* Scope.Scope
    const { fs } = host
    const slot = host.newSlot(toolName)
    const hash = createHash("sha256")
    const tailChars = options.tailChars ?? 0
    // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
    const ring = tailChars > 0 ? new ByteRing(3 * tailChars + 4) : undefined
    const state = {
      bytes: 0,
      newlines: 0,
      endsWithNewline: true,
      claimed: 0,
      failure: undefined as PersistError | undefined,
      file: undefined as FileSystem.File | undefined,
      done: false
    }

    const discard = Effect.suspend(() => {
      const claimed = state.claimed
      state.claimed = 0
      state.file = undefined
      host.releaseSession(claimed)
      return fs.remove(slot.temp, { force: true }).pipe(Effect.ignore)
    })
    yield* Scope.addFinalizer(scope, Effect.suspend(() => (state.done ? Effect.void : discard)))

    const fail = (failure: PersistError) =>
      Effect.suspend(() => {
        state.failure = failure
        return discard // the caller logs it with the note it shows
      })
    const writeFailed = (cause: unknown) =>
      new OutputWriteFailed({
        toolName,
        path: slot.target,
        message: `Could not save the output of ${toolName} to ${slot.target}: ${messageOf(cause)}`,
        cause
      })

    const openFile = Effect.gen(function*() {
      yield* host.ensureDir
      const file = yield* fs.open(slot.temp, { flag: "wx", mode: 0o600 }).pipe(Scope.provide(scope))
      yield* fs.chmod(slot.temp, 0o600) // the mode given to open() is filtered by the umask
      return file
    })

    /** Claims and writes one encoded chunk; the first failure is kept. */
    const store = (bytes: Uint8Array) =>
      Effect.gen(function*() {
        if (state.bytes > host.maxFileBytes) {
          return yield* fail(
            new OutputTooLarge({
              toolName,
              bytes: state.bytes,
              maxBytes: host.maxFileBytes,
              message:
                `The output of ${toolName} is over ${host.maxFileBytes} bytes, the limit for one saved output, so it was not saved to a file.`
            })
          )
        }
        const claim = host.claimSession(bytes.length)
        if (!claim.ok) {
          return yield* fail(
            new SessionBudgetExhausted({
              toolName,
              bytes: state.bytes,
              usedBytes: claim.used,
              maxBytes: host.maxSessionBytes,
              message:
                `Saving the output of ${toolName} (${state.bytes} bytes so far) would exceed this session's ${host.maxSessionBytes}-byte budget for saved outputs (${claim.used} bytes used), so it was not saved to a file.`
            })
          )
        }
        state.claimed += bytes.length
        const written = yield* Effect.gen(function*() {
          const file = state.file ?? (state.file = yield* openFile)
          yield* file.writeAll(bytes)
        }).pipe(Effect.result)
        if (Result.isFailure(written)) yield* fail(writeFailed(written.failure))
      })

    const appendBytes = (bytes: Uint8Array): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (bytes.length === 0 || state.done) return Effect.void
        hash.update(bytes)
        ring?.push(bytes)
        state.bytes += bytes.length
        state.newlines += newlinesIn(bytes)
        state.endsWithNewline = bytes[bytes.length - 1] === 10
        return state.failure === undefined ? store(bytes) : Effect.void
      })

    // Text is encoded through one reused buffer (each piece is written before the next is
    // encoded): a long stream leaves no encoded copies behind for the collector.
    let buffer: Buffer | undefined
    const appendText = Effect.fnUntraced(function*(text: string) {
      const into = (buffer ??= Buffer.allocUnsafeSlow(WRITE_BUFFER_BYTES))
      for (let start = 0; start < text.length;) {
        const end = chunkEnd(text, start, false, into.length)
        yield* appendBytes(into.subarray(0, encodeChunk(into, text, start, end, false)))
        start = end
      }
    })

    const append = (chunk: string | Uint8Array): Effect.Effect<void> =>
      typeof chunk === "string" ? appendText(chunk) : appendBytes(chunk)

    const finish: Effect.Effect<WriterOutcome> = Effect.uninterruptible(Effect.gen(function*() {
      const facts: OutputFacts = {
        bytes: state.bytes,
        sha256: hash.digest("hex"),
        lines: state.newlines + (state.endsWithNewline ? 0 : 1)
      }
      if (state.failure === undefined) {
        const placed = yield* Effect.gen(function*() {
          if (state.file === undefined) state.file = yield* openFile // an empty output is an empty file
          yield* fs.rename(slot.temp, slot.target)
        }).pipe(Effect.result)
        if (Result.isFailure(placed)) yield* fail(writeFailed(placed.failure))
      }
      state.done = true
      if (state.failure !== undefined) return { facts, saved: Result.fail(state.failure) }
      const entry: PersistedOutput = { id: slot.id, path: slot.target, toolName, ...facts }
      yield* host.record(entry)
      return { facts, saved: Result.succeed(entry) }
    }))

    return { path: slot.target, append, finish, tail: () => ring?.text(tailChars) ?? "" } satisfies OutputWriter
  })
