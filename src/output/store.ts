/**
 * `OutputStore`: the session's saved tool outputs. Full texts that truncation or the batch budget
 * cut are written to `<dir>/<toolName>_<16 hex>.output` (mode 0600, directory 0700, temp file +
 * rename), capped per file and per session, and can be listed and read back in pages of lines
 * (for the MCP resource door).
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as Layer from "effect/Layer"
import * as Path from "effect/Path"
import * as Ref from "effect/Ref"
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
import { sha256Hex, utf8Bytes } from "./stub.js"

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

/** Bytes saved so far in this session and the caps. @category models */
export interface OutputStoreUsage {
  readonly usedBytes: number
  readonly maxSessionBytes: number
  readonly maxFileBytes: number
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
    /** The record of a saved output. */
    readonly get: (id: string) => Effect.Effect<PersistedOutput, OutputNotFound>
    /** Every output saved in this session, oldest first. */
    readonly list: Effect.Effect<ReadonlyArray<PersistedOutput>>
    /** Reads a page of lines of a saved output. */
    readonly read: (id: string, options?: ReadPageOptions) => Effect.Effect<OutputPage, ReadError>
    /** Bytes used and caps. */
    readonly usage: Effect.Effect<OutputStoreUsage>
    /** Exact length of the path `persist(toolName, …)` will produce (for `truncateToolOutput`'s `pathChars`). */
    readonly pathLength: (toolName: string) => number
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

const messageOf = (cause: unknown): string => (cause instanceof Error ? cause.message : String(cause))

/** Builds the service; needs `FileSystem` and `Path`. @category constructors */
export const make = Effect.fnUntraced(function*(options: OutputStore.Options) {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const dir = path.resolve(options.dir)
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_OUTPUT_FILE_BYTES
  const maxSessionBytes = options.maxSessionBytes ?? DEFAULT_MAX_SESSION_OUTPUT_BYTES
  const usedBytes = yield* Ref.make(0)
  const entries = yield* Ref.make<ReadonlyMap<string, PersistedOutput>>(new Map())

  const writeAtomically = (temp: string, target: string, content: string) =>
    Effect.gen(function*() {
      yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 })
      yield* fs.writeFile(temp, Buffer.from(content, "utf8"), { flag: "wx", mode: 0o600 })
      yield* fs.chmod(temp, 0o600) // the mode given to open() is filtered by the umask
      yield* fs.rename(temp, target)
    })

  const persist = Effect.fn("OutputStore.persist")(function*(toolName: string, content: string) {
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
    const id = `${safeToolName(toolName)}_${randomBytes(ID_HEX_CHARS / 2).toString("hex")}`
    const target = path.join(dir, `${id}.output`)
    const temp = path.join(dir, `.${id}.output.tmp`)
    return yield* Effect.uninterruptibleMask((restore) =>
      Effect.gen(function*() {
        // Reserve before writing so that parallel calls cannot all pass the check.
        const before = yield* Ref.modify(usedBytes, (used): [{ readonly ok: boolean; readonly used: number }, number] =>
          used + bytes > maxSessionBytes ? [{ ok: false, used }, used] : [{ ok: true, used }, used + bytes])
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
        yield* restore(writeAtomically(temp, target, content)).pipe(
          Effect.mapError((cause) =>
            new OutputWriteFailed({
              toolName,
              path: target,
              message: `Could not save the output of ${toolName} to ${target}: ${messageOf(cause)}`,
              cause
            })
          ),
          Effect.onError(() =>
            Ref.update(usedBytes, (used) => used - bytes).pipe(
              Effect.andThen(fs.remove(temp, { force: true }).pipe(Effect.ignore))
            )
          )
        )
        const entry: PersistedOutput = { id, path: target, toolName, bytes, sha256: sha256Hex(content), lines: countLines(content) }
        yield* Ref.update(entries, (map) => new Map(map).set(id, entry))
        return entry
      })
    )
  })

  const get = Effect.fn("OutputStore.get")(function*(id: string) {
    const entry = (yield* Ref.get(entries)).get(id)
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

  return OutputStore.of({
    dir,
    persist,
    get,
    list: Effect.map(Ref.get(entries), (map) => Array.from(map.values())),
    read,
    usage: Effect.map(Ref.get(usedBytes), (used) => ({ usedBytes: used, maxSessionBytes, maxFileBytes })),
    pathLength: (toolName) => path.join(dir, `${safeToolName(toolName)}_${"0".repeat(ID_HEX_CHARS)}.output`).length
  })
})

/** The session's store of saved tool outputs. @category services */
export class OutputStore extends Context.Service<OutputStore, OutputStore.Service>()("toolwright/output/OutputStore") {
  /** A store writing under `options.dir`; needs `FileSystem` and `Path` (e.g. `NodeServices.layer`). */
  static readonly layer = (
    options: OutputStore.Options
  ): Layer.Layer<OutputStore, never, FileSystem.FileSystem | Path.Path> => Layer.effect(OutputStore, make(options))
}
