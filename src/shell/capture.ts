/**
 * The captured output of one command, with bounded memory whatever the command prints.
 *
 * Plain text (see `plainText.ts`) is kept in memory up to `memoryChars`. Past that, the whole text
 * so far and everything after it is written to a spill file as it arrives (synchronous writes,
 * so a flooding child is slowed to disk speed instead of filling the heap), and memory keeps only
 * a head and a rolling tail. The spill file is capped at `maxCapturedBytes`; what comes after is
 * counted and discarded. A NUL byte in the first 4 096 bytes marks the output binary: the text
 * stream stops, the raw bytes go to the spill file, and the model is told the size.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import { type CarriageReturnMode, PlainTextDecoder } from "./plainText.js"

// Anything but tab, newline and printable ASCII.
const NOT_PLAIN = /[^\t\n\x20-\x7e]/

/** Bytes inspected for a NUL byte. @category constants */
export const BINARY_SNIFF_BYTES = 4096

/** Limits of a capture. @category models */
export interface CaptureLimits {
  /** Plain-text characters kept in memory before spilling to disk. */
  readonly memoryChars: number
  /** Largest spill file, in bytes; later output is discarded and counted. */
  readonly maxCapturedBytes: number
  /** Characters kept from the start and from the end once spilled. */
  readonly headChars: number
  readonly tailChars: number
}

/** The spill file of a capture. @category models */
export interface SpillFile {
  /** Absent when the file could not be created (see `error`). */
  readonly path: string | undefined
  /** Bytes written to it. */
  readonly bytes: number
  /** Output bytes discarded after the cap (0 when the file holds everything). */
  readonly discardedBytes: number
  /** Why creating or writing the file failed. */
  readonly error?: string | undefined
}

/** The finished capture. @category models */
export type CapturedOutput =
  | {
    readonly kind: "text"
    /** The whole text when not spilled; else its first `headChars`. */
    readonly text: string
    /** Set when spilled: the last `tailChars` of the text. */
    readonly tail?: string | undefined
    readonly spill?: SpillFile | undefined
    /** Raw bytes the command printed. */
    readonly totalBytes: number
  }
  | { readonly kind: "binary"; readonly totalBytes: number; readonly spill?: SpillFile | undefined }

/**
 * One command's output capture. Not thread-safe by design: it is fed from one process's data
 * callbacks.
 *
 * @category capture
 */
export class OutputCapture {
  readonly #limits: CaptureLimits
  readonly #spillPath: () => string
  readonly #decoder: PlainTextDecoder
  #totalBytes = 0
  #binary = false
  #sniffed: Array<Buffer> = []
  #sniffedBytes = 0
  #parts: Array<string> = []
  #chars = 0
  #head = ""
  // The last `tailChars` of text, as the chunks that hold it (joined only when asked for).
  #tailParts: Array<string | Buffer> = []
  #tailLength = 0
  #spilling = false
  #fd: number | undefined
  #path: string | undefined
  #spilledBytes = 0
  #discarded = 0
  #failed: string | undefined

  constructor(limits: CaptureLimits, spillPath: () => string, options: { readonly carriageReturn?: CarriageReturnMode } = {}) {
    this.#limits = limits
    this.#spillPath = spillPath
    this.#decoder = new PlainTextDecoder(options)
  }

  /** Raw bytes received so far. */
  get totalBytes(): number {
    return this.#totalBytes
  }

  /** Whether the output was detected as binary. */
  get binary(): boolean {
    return this.#binary
  }

  /** Why writing the spill file failed, if it did. */
  get spillError(): string | undefined {
    return this.#failed
  }

  /** Feeds a chunk. */
  push(chunk: Uint8Array): void {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)
    this.#totalBytes += bytes.length
    if (this.#binary) {
      this.#writeBytes(bytes)
      return
    }
    if (this.#sniffedBytes < BINARY_SNIFF_BYTES) {
      const window = bytes.subarray(0, BINARY_SNIFF_BYTES - this.#sniffedBytes)
      this.#sniffedBytes += window.length
      if (window.includes(0)) {
        this.#binary = true
        this.#parts = []
        this.#chars = 0
        this.#head = ""
        this.#tailParts = []
        this.#tailLength = 0
        for (const earlier of this.#sniffed) this.#writeBytes(earlier)
        this.#sniffed = []
        this.#writeBytes(bytes)
        return
      }
      this.#sniffed.push(bytes)
      if (this.#sniffedBytes >= BINARY_SNIFF_BYTES) this.#sniffed = []
    }
    if (this.#spilling && this.#fd !== undefined && this.#fastPath(bytes)) return
    this.#text(this.#decoder.push(bytes))
  }

  /**
   * Plain ASCII lines (no control characters but tab and newline) are written as they came: no
   * decode, no re-encode. Only whole lines; the rest goes through the decoder as usual.
   */
  #fastPath(bytes: Buffer): boolean {
    const lastNewline = bytes.lastIndexOf(10)
    if (lastNewline === -1 || !this.#decoder.isClean) return false
    const latin1 = bytes.toString("latin1")
    if (NOT_PLAIN.test(latin1)) return false
    const pending = this.#decoder.takePending()
    if (pending !== "") this.#writeBytes(Buffer.from(pending, "utf8"))
    this.#writeBytes(bytes.subarray(0, lastNewline + 1))
    if (pending !== "") this.#keepTail(pending)
    this.#keepTail(bytes.subarray(0, lastNewline + 1))
    if (lastNewline + 1 < bytes.length) this.#text(this.#decoder.pushText(latin1.slice(lastNewline + 1)))
    return true
  }

  /** The last `maxChars` of the text so far, partial line included (for live views). */
  liveTail(maxChars: number): string {
    const text = this.#tail() + this.#decoder.pending
    return text.length > maxChars ? text.slice(-maxChars) : text
  }

  /** Ends the capture and closes the spill file. */
  finish(): CapturedOutput {
    if (!this.#binary) this.#text(this.#decoder.end())
    const spill: SpillFile | undefined = this.#spilling
      ? { path: this.#path, bytes: this.#spilledBytes, discardedBytes: this.#discarded, ...(this.#failed ? { error: this.#failed } : {}) }
      : undefined
    if (this.#fd !== undefined) {
      try {
        fs.closeSync(this.#fd)
      } catch {
        // already closed
      }
      this.#fd = undefined
    }
    if (this.#binary) return { kind: "binary", totalBytes: this.#totalBytes, spill }
    if (spill === undefined) return { kind: "text", text: this.#parts.join(""), totalBytes: this.#totalBytes }
    return { kind: "text", text: this.#head, tail: this.#tail(), spill, totalBytes: this.#totalBytes }
  }

  #keepTail(part: string | Buffer): void {
    this.#tailParts.push(part)
    this.#tailLength += part.length
    while (this.#tailParts.length > 1 && this.#tailLength - this.#tailParts[0]!.length >= this.#limits.tailChars) {
      this.#tailLength -= this.#tailParts.shift()!.length
    }
  }

  #tail(): string {
    const text = this.#tailParts.map((p) => (typeof p === "string" ? p : p.toString("utf8"))).join("")
    return text.length > this.#limits.tailChars ? text.slice(-this.#limits.tailChars) : text
  }

  #text(text: string): void {
    if (text.length === 0) return
    this.#keepTail(text)
    if (!this.#spilling) {
      this.#parts.push(text)
      this.#chars += text.length
      if (this.#chars <= this.#limits.memoryChars) return
      this.#spilling = true
      const all = this.#parts.join("")
      this.#parts = []
      this.#head = all.slice(0, this.#limits.headChars)
      this.#writeBytes(Buffer.from(all, "utf8"))
      return
    }
    this.#writeBytes(Buffer.from(text, "utf8"))
  }

  #open(): number | undefined {
    if (this.#fd !== undefined || this.#failed !== undefined) return this.#fd
    this.#spilling = true
    const path = this.#spillPath()
    try {
      this.#fd = fs.openSync(path, "wx", 0o600)
      this.#path = path
    } catch (error) {
      this.#failed = error instanceof Error ? error.message : String(error)
    }
    return this.#fd
  }

  #writeBytes(bytes: Buffer): void {
    const fd = this.#open()
    const room = this.#limits.maxCapturedBytes - this.#spilledBytes
    if (fd === undefined || room <= 0) {
      this.#discarded += bytes.length
      return
    }
    let slice = bytes
    if (bytes.length > room) {
      let end = room
      // never cut a UTF-8 sequence in text mode
      if (!this.#binary) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
      slice = bytes.subarray(0, end)
      this.#discarded += bytes.length - end
    }
    try {
      let written = 0
      while (written < slice.length) written += fs.writeSync(fd, slice, written, slice.length - written)
      this.#spilledBytes += slice.length
      if (slice.length < bytes.length) this.#spilledBytes = this.#limits.maxCapturedBytes
    } catch (error) {
      this.#failed = error instanceof Error ? error.message : String(error)
      this.#discarded += slice.length
      try {
        fs.closeSync(fd)
      } catch {
        // ignore
      }
      this.#fd = undefined
    }
  }
}
