/**
 * `OutputStore`: the session's saved tool outputs. Full texts that truncation or the batch budget
 * cut are written to `<dir>/<toolName>_<16 hex>.output` (mode 0600, directory 0700, temp file +
 * rename), capped per file and per session, and can be listed and read back in pages of lines
 * (for the MCP resource door). Scratch files written beside them (shell spill files, background
 * logs) draw on the same session cap and are removed when the session ends; saved outputs stay.
 *
 * @since 0.1.0
 */
import { createHash, randomBytes } from "node:crypto"
import * as nodeFs from "node:fs"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Ref from "effect/Ref"
import type * as Scope from "effect/Scope"
import { DEFAULT_MAX_OUTPUT_FILE_BYTES, DEFAULT_MAX_SESSION_OUTPUT_BYTES, DEFAULT_TRUNCATE_LINES } from "./constants.js"
import {
  InvalidOutputPage,
  OutputNotFound,
  OutputReadFailed,
  OutputTooLarge,
  OutputWriteFailed,
  type PersistError,
  type ReadError,
  SessionBudgetExhausted
} from "./errors.js"
import { bufferPool, chunkEnd, encodeChunk, SMALL_SAVE_BYTES } from "./encode.js"
// floors: start-up — text/index.ts loads the matching ladder, the diff and the codecs; the core needs only the hash
import { sha256Hex as sha256HexOfBytes } from "../text/fileIo.js"
import { encodeUtf8, utf8Bytes } from "./stub.js"
import { type OutputFacts, openWriter, type OutputWriter, type WriterOptions } from "./writer.js"

/** One saved output. @category models */
export interface PersistedOutput {
  /** Stable id within the session: the file name without `.output`. */
  readonly id: string
  /** Absolute path of the file. */
  readonly path: string
  readonly toolName: string
  /** UTF-8 size of the content. */
  readonly bytes: number
  /** Hex SHA-256 of the content. */
  readonly sha256: string
  /** Number of lines (a final line without `\n` counts; an empty file has 0). */
  readonly lines: number
}

/** Which lines to read: `offsetLine` is 0-based (default 0), `limitLines` ≥1 (default 1 000). @category models */
export interface ReadPageOptions {
  readonly offsetLine?: number | undefined
  readonly limitLines?: number | undefined
}

/** One page of a saved output; concatenating all pages' `content` gives the file back exactly. @category models */
export interface OutputPage {
  readonly id: string
  readonly path: string
  readonly offsetLine: number
  /** Lines in this page. */
  readonly lineCount: number
  readonly totalLines: number
  /** `offsetLine + lineCount`: where the next page starts. */
  readonly nextOffsetLine: number
  readonly hasMore: boolean
  /** The lines, each with its `\n` terminator if it has one. */
  readonly content: string
}

/**
 * Room reserved for one save by {@link OutputStore.Service.reserve}: both caps were checked when it
 * was made. Run `save` to write the content, or `cancel` to give the room back.
 *
 * @category models
 */
export interface Reservation {
  /** UTF-8 size of the content. */
  readonly bytes: number
  /** Writes the content (once; a second run fails); a failed write gives the room back. Not interruptible once started. */
  readonly save: Effect.Effect<PersistedOutput, OutputWriteFailed>
  /** Gives the room back unless the save has started. */
  readonly cancel: Effect.Effect<void>
}

/** Bytes saved so far in this session and the caps. @category models */
export interface OutputStoreUsage {
  readonly usedBytes: number
  readonly maxSessionBytes: number
  readonly maxFileBytes: number
}

/**
 * The session's room for scratch files written synchronously beside the saved outputs (a shell
 * command's spill file, a background command's log): each write first claims its bytes from the
 * session cap shared with saved outputs. Scratch files are removed when the session ends.
 *
 * @category models
 */
export interface ScratchSpace {
  /** Where scratch files go: the store's directory. */
  readonly dir: string
  /** Claims up to `bytes` bytes of the session cap; returns how many were granted (0 once it is spent). */
  readonly claim: (bytes: number) => number
  /** Gives back bytes claimed but not written. */
  readonly release: (bytes: number) => void
  /**
   * Turns a finished scratch file (its bytes already claimed) into a saved output of `toolName`:
   * renamed to `<id>.output` and recorded with the given facts, so it stays after the session.
   * Returns the record, or undefined when the rename failed (the file then stays scratch).
   */
  readonly keep?: ((path: string, toolName: string, facts: OutputFacts) => PersistedOutput | undefined) | undefined
}

/** Types of the {@link OutputStore} service. @category models */
export declare namespace OutputStore {
  /** Options of {@link OutputStore.layer}. */
  export interface Options {
    /** Directory of the files; created (0700) on first use. */
    readonly dir: string
    /** Per-file cap in bytes; default 50 MiB. */
    readonly maxFileBytes?: number | undefined
    /** Per-session cap in bytes; default 500 MiB. */
    readonly maxSessionBytes?: number | undefined
  }
  /** The service shape. */
  export interface Service {
    /** Absolute directory of the files. */
    readonly dir: string
    /** Saves `content` as a new file and returns its record. */
    readonly persist: (toolName: string, content: string) => Effect.Effect<PersistedOutput, PersistError>
    /**
     * Checks both caps for `content` now and reserves its room; the write runs later (several
     * reservations made in call order can then be written at once).
     */
    readonly reserve: (toolName: string, content: string) => Effect.Effect<Reservation, OutputTooLarge | SessionBudgetExhausted>
    /** The record of a saved output. */
    readonly get: (id: string) => Effect.Effect<PersistedOutput, OutputNotFound>
    /** Every output saved in this session, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<PersistedOutput>>
    /**
     * Takes in outputs an earlier process of this session saved (a resumed named session): each
     * whose file is in this store's directory and still has its recorded size is listed, read and
     * kept like the session's own, and counts toward the session cap. Returns those taken; the
     * others (file gone or changed, id already known) are left out.
     */
    readonly adopt: (outputs: ReadonlyArray<PersistedOutput>) => Effect.Effect<ReadonlyArray<PersistedOutput>>
    /** Reads a page of lines of a saved output. */
    readonly read: (id: string, options?: ReadPageOptions) => Effect.Effect<OutputPage, ReadError>
    /** Bytes used and caps. */
    readonly usage: Effect.Effect<OutputStoreUsage>
    /** Exact length of the path `persist(toolName, …)` will produce (for `truncateToolOutput`'s `pathChars`). */
    readonly pathLength: (toolName: string) => number
    /** Room for scratch files in the session cap; they are removed when the session ends. */
    readonly scratch: ScratchSpace
    /**
     * Saves an output as it arrives, chunk by chunk (see {@link OutputWriter}); the file is the
     * scope's until `finish`.
     */
    readonly openWriter: (toolName: string, options?: WriterOptions) => Effect.Effect<OutputWriter, never, Scope.Scope>
  }
}

const ID_HEX_CHARS = 16

/** A tool name made safe as a file-name prefix: `[A-Za-z0-9_.-]`, no leading dot, ≤64 chars. @category constructors */
export const safeToolName = (toolName: string): string => {
  const safe = toolName.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "").slice(0, 64)
  return safe === "" ? "tool" : safe
}

/** Number of lines of `text`: `\n`-terminated lines plus a final unterminated one. @category paging */
export const countLines = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return text.length > 0 && !text.endsWith("\n") ? count + 1 : count
}

/** Char offset after skipping `lines` lines from `from` (clamped to the end). */
const skipLines = (text: string, from: number, lines: number): number => {
  let at = from
  for (let i = 0; i < lines && at < text.length; i++) {
    const newline = text.indexOf("\n", at)
    at = newline === -1 ? text.length : newline + 1
  }
  return at
}

/** Cuts one page of lines out of `text` (pure part of {@link OutputStore.Service.read}). @category paging */
export const pageOf = (text: string, offsetLine: number, limitLines: number) => {
  const totalLines = countLines(text)
  const start = skipLines(text, 0, offsetLine)
  const end = skipLines(text, start, limitLines)
  const lineCount = Math.min(limitLines, Math.max(0, totalLines - offsetLine))
  const nextOffsetLine = offsetLine + lineCount
  return { content: text.slice(start, end), lineCount, totalLines, nextOffsetLine, hasMore: nextOffsetLine < totalLines }
}

/** A fresh id for a saved output of `toolName`. */
const newId = (toolName: string): string => `${safeToolName(toolName)}_${randomBytes(ID_HEX_CHARS / 2).toString("hex")}`

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/**
 * Builds the service; needs `FileSystem` and `Path`. When the scope closes, everything in the
 * directory but the saved outputs (scratch files, leftover temp files) is removed.
 *
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options: OutputStore.Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.resolve(options.dir)
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_OUTPUT_FILE_BYTES
  const maxSessionBytes = options.maxSessionBytes ?? DEFAULT_MAX_SESSION_OUTPUT_BYTES
  // Bytes of the session cap in use, saved outputs and scratch files alike. A plain counter: scratch
  // writers claim synchronously, between their synchronous writes.
  const budget = { used: 0 }
  // The saved outputs. A plain map: a shell capture keeps its spill file synchronously.
  const entries = new Map<string, PersistedOutput>()

  const scratch: ScratchSpace = {
    dir,
    claim: (bytes) => {
      const granted = Math.max(0, Math.min(bytes, maxSessionBytes - budget.used))
      budget.used += granted
      return granted
    },
    release: (bytes) => {
      budget.used -= bytes
    },
    keep: (from, toolName, facts) => {
      if (facts.bytes > maxFileBytes) return undefined // over the per-file cap: it stays scratch
      const id = newId(toolName)
      const target = path.join(dir, `${id}.output`)
      try {
        nodeFs.renameSync(from, target)
      } catch {
        return undefined
      }
      const entry: PersistedOutput = { id, path: target, toolName, ...facts }
      entries.set(id, entry)
      return entry
    }
  }

  /** Removes what the session leaves in the directory besides its saved outputs, then the directory if empty. */
  const removeScratch = Effect.gen(function*() {
    const kept = new Set(Array.from(entries.values(), (entry) => path.basename(entry.path)))
    const names = yield* fs.readDirectory(dir)
    for (const name of names) {
      if (!kept.has(name)) yield* fs.remove(path.join(dir, name), { recursive: true, force: true }).pipe(Effect.ignore)
    }
    if (kept.size === 0) yield* fs.remove(dir, { recursive: true, force: true }).pipe(Effect.ignore)
  }).pipe(Effect.ignore)
  yield* Effect.addFinalizer(() => removeScratch)

  // The directory is made on the first save, and again if a write finds it gone.
  const dirMade = yield* Ref.make(false)
  const makeDir = Effect.andThen(fs.makeDirectory(dir, { recursive: true, mode: 0o700 }), Ref.set(dirMade, true))
  const buffers = bufferPool()

  /** Writes `content` (UTF-8, `bytes` long) to a new file `temp`; returns the hex SHA-256 of what was written. */
  const writeContent = (temp: string, content: string, bytes: number) => {
    if (bytes <= SMALL_SAVE_BYTES) {
      return Effect.suspend(() => {
        const data = encodeUtf8(content, bytes)
        return Effect.as(fs.writeFile(temp, data, { flag: "wx", mode: 0o600 }), sha256HexOfBytes(data))
      })
    }
    // Chunk by chunk through one reusable buffer: each chunk is hashed and written before the next.
    return Effect.scoped(Effect.gen(function*() {
      const file = yield* fs.open(temp, { flag: "wx", mode: 0o600 })
      const buffer = yield* Effect.acquireRelease(Effect.sync(buffers.take), (b) => Effect.sync(() => buffers.give(b)))
      const hash = createHash("sha256")
      const ascii = bytes === content.length
      for (let start = 0; start < content.length;) {
        const end = chunkEnd(content, start, ascii, buffer.length)
        const chunk = buffer.subarray(0, encodeChunk(buffer, content, start, end, ascii))
        hash.update(chunk)
        yield* file.writeAll(chunk)
        start = end
      }
      return hash.digest("hex")
    }))
  }

  const writeAtomically = (temp: string, target: string, content: string, bytes: number) =>
    Effect.acquireUseRelease(
      Effect.sync(buffers.begin),
      () =>
        Effect.gen(function*() {
          if (!(yield* Ref.get(dirMade))) yield* makeDir
          const sha256 = yield* writeContent(temp, content, bytes).pipe(
            Effect.catchIf((e) => e.reason._tag === "NotFound", () => Effect.andThen(makeDir, writeContent(temp, content, bytes)))
          )
          yield* fs.chmod(temp, 0o600) // the mode given to open() is filtered by the umask
          yield* fs.rename(temp, target)
          return sha256
        }),
      () => Effect.sync(buffers.end)
    )

  interface Slot {
    readonly toolName: string
    readonly id: string
    readonly target: string
    readonly temp: string
    readonly bytes: number
  }

  /** Checks the per-file cap and reserves room in the session budget (so parallel saves cannot all pass the check). */
  const claim = Effect.fnUntraced(function*(toolName: string, content: string) {
    const bytes = utf8Bytes(content)
    if (bytes > maxFileBytes) {
      return yield* new OutputTooLarge({
        toolName,
        bytes,
        maxBytes: maxFileBytes,
        message:
          `The output of ${toolName} is ${bytes} bytes, over the ${maxFileBytes}-byte limit for one saved output, so it was not saved to a file.`
      })
    }
    const before = yield* Effect.sync(() => {
      const used = budget.used
      if (used + bytes > maxSessionBytes) return { ok: false, used }
      budget.used += bytes
      return { ok: true, used }
    })
    if (!before.ok) {
      return yield* new SessionBudgetExhausted({
        toolName,
        bytes,
        usedBytes: before.used,
        maxBytes: maxSessionBytes,
        message:
          `Saving ${bytes} more bytes of ${toolName} output would exceed this session's ${maxSessionBytes}-byte budget for saved outputs (${before.used} bytes used), so it was not saved to a file.`
      })
    }
    const id = newId(toolName)
    return { toolName, id, target: path.join(dir, `${id}.output`), temp: path.join(dir, `.${id}.output.tmp`), bytes } satisfies Slot
  })

  const release = (bytes: number) => Effect.sync(() => scratch.release(bytes))

  /**
   * Writes a claimed slot; a failure gives the room back and removes the temp file. Runs to its end
   * once started (the callers make it uninterruptible): an interrupted open or rename would still
   * complete in the background and leave a file nobody records.
   */
  const write = (slot: Slot, content: string) =>
    Effect.gen(function*() {
      const sha256 = yield* writeAtomically(slot.temp, slot.target, content, slot.bytes).pipe(
        Effect.mapError((cause) =>
          new OutputWriteFailed({
            toolName: slot.toolName,
            path: slot.target,
            message: `Could not save the output of ${slot.toolName} to ${slot.target}: ${messageOf(cause)}`,
            cause
          })
        ),
        Effect.onError(() => release(slot.bytes).pipe(Effect.andThen(fs.remove(slot.temp, { force: true }).pipe(Effect.ignore))))
      )
      const entry: PersistedOutput = {
        id: slot.id,
        path: slot.target,
        toolName: slot.toolName,
        bytes: slot.bytes,
        sha256,
        lines: countLines(content)
      }
      entries.set(slot.id, entry)
      return entry
    })

  const persist = Effect.fn("OutputStore.persist")(function*(toolName: string, content: string) {
    return yield* Effect.uninterruptible(Effect.flatMap(claim(toolName, content), (slot) => write(slot, content)))
  })

  const reserve = Effect.fn("OutputStore.reserve")((toolName: string, content: string) => Effect.uninterruptible(reserveNow(toolName, content)))

  const reserveNow = Effect.fnUntraced(function*(toolName: string, content: string) {
    const slot = yield* claim(toolName, content)
    const state = yield* Ref.make<"reserved" | "started" | "cancelled">("reserved")
    const save = Effect.uninterruptible(
      Effect.flatMap(Ref.modify(state, (s) => [s, s === "reserved" ? "started" : s] as const), (was) =>
        was === "reserved"
          ? write(slot, content)
          : Effect.fail(
            new OutputWriteFailed({
              toolName,
              path: slot.target,
              message: `Could not save the output of ${toolName} to ${slot.target}: the save was ${was === "started" ? "already run" : "cancelled"}.`
            })
          ))
    ).pipe(Effect.withSpan("OutputStore.save"))
    const cancel = Effect.flatMap(
      Ref.modify(state, (s) => [s, s === "reserved" ? "cancelled" : s] as const),
      (was) => (was === "reserved" ? release(slot.bytes) : Effect.void)
    )
    return { bytes: slot.bytes, save, cancel } satisfies Reservation
  })

  const get = Effect.fn("OutputStore.get")(function*(id: string) {
    const entry = entries.get(id)
    if (entry === undefined) {
      return yield* new OutputNotFound({ id, message: `No saved output with id '${id}' exists in this session.` })
    }
    return entry
  })

  const read = Effect.fn("OutputStore.read")(function*(id: string, options: ReadPageOptions = {}) {
    const entry = yield* get(id)
    const offsetLine = options.offsetLine ?? 0
    const limitLines = options.limitLines ?? DEFAULT_TRUNCATE_LINES
    if (!Number.isSafeInteger(offsetLine) || offsetLine < 0) {
      return yield* new InvalidOutputPage({ id, message: `offsetLine must be a non-negative integer, got ${offsetLine}.` })
    }
    if (!Number.isSafeInteger(limitLines) || limitLines < 1) {
      return yield* new InvalidOutputPage({ id, message: `limitLines must be a positive integer, got ${limitLines}.` })
    }
    const text = yield* fs.readFileString(entry.path).pipe(
      Effect.mapError((cause) =>
        new OutputReadFailed({
          id,
          path: entry.path,
          message: `Could not read saved output '${id}' at ${entry.path}: ${messageOf(cause)}`,
          cause
        })
      )
    )
    return { id, path: entry.path, offsetLine, ...pageOf(text, offsetLine, limitLines) } satisfies OutputPage
  })

  const adopt = Effect.fn("OutputStore.adopt")(function*(outputs: ReadonlyArray<PersistedOutput>) {
    const taken: Array<PersistedOutput> = []
    for (const entry of outputs) {
      if (entries.has(entry.id) || path.dirname(entry.path) !== dir || path.basename(entry.path) !== `${entry.id}.output`) continue
      const info = yield* Effect.option(fs.stat(entry.path))
      if (info._tag === "None" || info.value.type !== "File" || Number(info.value.size) !== entry.bytes) continue
      entries.set(entry.id, entry)
      budget.used += entry.bytes
      taken.push(entry)
    }
    if (taken.length > 0) yield* Ref.set(dirMade, true)
    return taken
  })

  return OutputStore.of({
    dir,
    persist,
    reserve,
    get,
    adopt,
    list: Effect.sync(() => Array.from(entries.values())),
    read,
    usage: Effect.sync(() => ({ usedBytes: budget.used, maxSessionBytes, maxFileBytes })),
    pathLength: (toolName) => path.join(dir, `${safeToolName(toolName)}_${"0".repeat(ID_HEX_CHARS)}.output`).length,
    scratch,
    openWriter: (toolName, writerOptions) =>
      openWriter({
        fs,
        maxFileBytes,
        maxSessionBytes,
        claimSession: (bytes) => {
          const used = budget.used
          if (used + bytes > maxSessionBytes) return { ok: false, used }
          budget.used += bytes
          return { ok: true, used }
        },
        releaseSession: (bytes) => {
          budget.used -= bytes
        },
        ensureDir: Effect.flatMap(Ref.get(dirMade), (made) => (made ? Effect.void : makeDir)),
        newSlot: (toolName) => {
          const id = newId(toolName)
          return { id, target: path.join(dir, `${id}.output`), temp: path.join(dir, `.${id}.output.tmp`) }
        },
        record: (entry) => Effect.sync(() => void entries.set(entry.id, entry))
      }, toolName, writerOptions)
  })
})

/** The session's store of saved tool outputs. @category services */
export class OutputStore extends Context.Service<OutputStore, OutputStore.Service>()("toolwright/output/OutputStore") {
  /** A store writing under `options.dir`; needs `FileSystem` and `Path` (e.g. `NodeServices.layer`). Its scratch files go with the layer. */
  static readonly layer = (
    options: OutputStore.Options
  ): Layer.Layer<OutputStore, never, FileSystem.FileSystem | Path.Path> => Layer.effect(OutputStore, make(options))
}
