/**
 * The serve door's transport: newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's
 * `StdioServerTransport` (a 10 MiB buffer whose overflow closes the session without a word), it
 * bounds each message by {@link MAX_SERVE_MESSAGE_BYTES} — room for a `write_file` of the largest
 * file the edit tools load — and answers what it cannot take instead of going down:
 *
 * - a line that is not JSON: `-32700` (parse error), id null;
 * - JSON that is not a JSON-RPC message: `-32600` (invalid request), with its id when it has one;
 * - a message over the limit: its bytes are dropped as they arrive, then `-32600` naming the limit,
 *   with the request's id when it can be read from the message's first or last bytes.
 *
 * @since 0.1.0
 */
import process from "node:process"
import type { Readable, Writable } from "node:stream"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js"

/**
 * Largest JSON-RPC message the serve door reads (320 MiB): a `write_file` of a 256 MiB file
 * (`DEFAULT_MAX_EDIT_FILE_BYTES`) plus room for JSON escapes. Env `TOOLWRIGHT_MAX_SERVE_MESSAGE_BYTES`.
 *
 * @category constants
 */
export const MAX_SERVE_MESSAGE_BYTES = 320 * 1024 * 1024

/** Bytes kept from each end of an oversized message to find its id. */
const ID_PROBE_BYTES = 4096

/** Options of {@link ServeStdioTransport}. @category models */
export interface ServeStdioOptions {
  readonly stdin?: Readable | undefined
  readonly stdout?: Writable | undefined
  /** Default {@link MAX_SERVE_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number | undefined
  /** Problems worth telling the operator about (refused messages, a broken stdout); default: stderr. */
  readonly log?: ((line: string) => void) | undefined
}

/** A JSON-RPC id written as a value. */
const ID_VALUE = String.raw`(-?\d+|"(?:[^"\\]|\\.)*")`
/** `{"id":…` or `{"jsonrpc":"2.0","id":…` at the start of a message. */
const LEADING_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID_VALUE}`)
/** `…"id":…}` at the end of a message (the SDK writes the id last). */
const TRAILING_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID_VALUE}\s*\}\s*$`)

/**
 * The id of a message known only by its first and last bytes, when it stands where a writer puts
 * it (first, or last at the top level); otherwise null, as JSON-RPC says for an unknown id.
 *
 * @category parsing
 */
export const probeRequestId = (head: string, tail: string): RequestId | null => {
  const found = LEADING_ID.exec(head) ?? TRAILING_ID.exec(tail)
  if (found === null) return null
  const raw = found[1]!
  try {
    const value: unknown = JSON.parse(raw)
    return typeof value === "number" || typeof value === "string" ? value : null
  } catch {
    return null
  }
}

const idOf = (value: unknown): RequestId | null => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null
  const id = (value as { readonly id?: unknown }).id
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null
}

const formatBytes = (bytes: number): string =>
  bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, "")} MiB` : `${bytes} bytes`

/**
 * A stdio server transport that bounds each message, answers malformed and oversized ones with
 * JSON-RPC errors and keeps serving.
 *
 * @category transports
 */
export class ServeStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  readonly #stdin: Readable
  readonly #stdout: Writable
  readonly #max: number
  readonly #log: (line: string) => void
  #pending: Array<Buffer> = []
  #pendingBytes = 0
  /** While an oversized message is being dropped: its first and last bytes and its size so far. */
  #dropping: { head: Buffer; tail: Buffer; bytes: number } | undefined
  #started = false
  #closed = false

  constructor(options: ServeStdioOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin
    this.#stdout = options.stdout ?? process.stdout
    this.#max = options.maxMessageBytes ?? MAX_SERVE_MESSAGE_BYTES
    this.#log = options.log ?? ((line) => process.stderr.write(`toolwright serve: ${line}\n`))
  }

  /** The largest message this transport reads, in bytes. */
  get maxMessageBytes(): number {
    return this.#max
  }

  start(): Promise<void> {
    if (this.#started) return Promise.reject(new Error("ServeStdioTransport already started"))
    this.#started = true
    this.#stdin.on("data", this.#onData)
    this.#stdin.on("error", this.#onStdinError)
    this.#stdin.on("end", this.#onEnd)
    this.#stdout.on("error", this.#onStdoutError)
    return Promise.resolve()
  }

  readonly #onData = (chunk: Buffer): void => {
    let rest = chunk
    for (;;) {
      const newline = rest.indexOf(0x0a)
      const piece = newline === -1 ? rest : rest.subarray(0, newline)
      this.#take(piece)
      if (newline === -1) return
      this.#endOfLine()
      rest = rest.subarray(newline + 1)
      if (rest.length === 0) return
    }
  }

  /** Adds bytes of the current line, switching to dropping once it passes the limit. */
  #take(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.#dropping !== undefined) {
      this.#dropping.bytes += piece.length
      this.#dropping.tail = lastBytes(Buffer.concat([this.#dropping.tail, lastBytes(piece)]))
      return
    }
    this.#pending.push(piece)
    this.#pendingBytes += piece.length
    if (this.#pendingBytes <= this.#max) return
    const all = this.#pending
    const first = all[0]!.length >= ID_PROBE_BYTES ? all[0]! : Buffer.concat(all.slice(0, 64))
    this.#dropping = {
      head: Buffer.from(first.subarray(0, ID_PROBE_BYTES)),
      tail: lastBytes(piece.length >= ID_PROBE_BYTES ? piece : Buffer.concat(all.slice(-64))),
      bytes: this.#pendingBytes
    }
    this.#pending = []
    this.#pendingBytes = 0
  }

  #endOfLine(): void {
    const dropped = this.#dropping
    if (dropped !== undefined) {
      this.#dropping = undefined
      const id = probeRequestId(dropped.head.toString("utf8"), dropped.tail.toString("utf8"))
      this.#log(`refused a message of ${dropped.bytes} bytes (over the ${this.#max}-byte limit), id ${JSON.stringify(id)}`)
      this.#answerError(
        id,
        ErrorCode.InvalidRequest,
        `Message too large: ${formatBytes(dropped.bytes)} is over the ${formatBytes(this.#max)} limit of one message ` +
          `(TOOLWRIGHT_MAX_SERVE_MESSAGE_BYTES). Send less in one call: write a large file in parts, or copy it with a shell command.`
      )
      return
    }
    const line = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes)
    this.#pending = []
    this.#pendingBytes = 0
    this.#onLine(line)
  }

  #onLine(bytes: Buffer): void {
    let json: unknown
    try {
      // Decoding can fail too: past V8's longest string (~512 MiB), with a limit raised that far.
      const text = bytes.toString("utf8").replace(/\r$/, "")
      if (text.trim() === "") return
      json = JSON.parse(text)
    } catch (error) {
      this.#answerError(null, ErrorCode.ParseError, `Parse error: the line is not JSON (${(error as Error).message}). Send one JSON-RPC message per line.`)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      this.#answerError(
        idOf(json),
        ErrorCode.InvalidRequest,
        Array.isArray(json)
          ? "Invalid Request: batches are not supported; send one JSON-RPC message per line."
          : `Invalid Request: not a JSON-RPC 2.0 message (${parsed.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "message"}: ${i.message}`).join("; ")}).`
      )
      return
    }
    try {
      this.onmessage?.(parsed.data)
    } catch (error) {
      // A throwing handler must not take the reader (and the session) down with it.
      this.onerror?.(error instanceof Error ? error : new Error(String(error)))
    }
  }

  #answerError(id: RequestId | null, code: number, message: string): void {
    // JSON-RPC answers an unknown id with null; the SDK's types do not allow it, so this is written by hand.
    this.#write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n").catch(() => {})
  }

  readonly #onStdinError = (error: Error): void => {
    this.#log(`stdin failed: ${error.message}`)
    this.onerror?.(error)
    void this.close()
  }

  readonly #onStdoutError = (error: Error): void => {
    this.#log(`stdout failed: ${error.message}; the host is gone, closing`)
    void this.close()
  }

  readonly #onEnd = (): void => {
    void this.close()
  }

  #write(text: string): Promise<void> {
    if (this.#closed || this.#stdout.destroyed) return Promise.reject(new Error("Not connected"))
    return new Promise((resolve) => {
      if (this.#stdout.write(text)) resolve()
      else this.#stdout.once("drain", resolve)
    })
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(JSON.stringify(message) + "\n")
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve()
    this.#closed = true
    this.#stdin.off("data", this.#onData)
    this.#stdin.off("error", this.#onStdinError)
    this.#stdin.off("end", this.#onEnd)
    this.#stdout.off("error", this.#onStdoutError)
    if (this.#stdin.listenerCount("data") === 0) this.#stdin.pause()
    this.#pending = []
    this.#dropping = undefined
    this.onclose?.()
    return Promise.resolve()
  }
}

const lastBytes = (buffer: Buffer): Buffer =>
  buffer.length <= ID_PROBE_BYTES ? buffer : buffer.subarray(buffer.length - ID_PROBE_BYTES)
