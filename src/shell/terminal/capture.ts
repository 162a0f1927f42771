/**
 * The captured output of one command, with bounded memory whatever the command prints.
 *
 * Plain text (see `plainText.ts`) is kept in memory up to `memoryChars`. Past that, the whole text
 * so far and everything after it is written to a spill file as it arrives (synchronous,
 * page-aligned writes, small chunks gathered up to {@link SPILL_BATCH_BYTES}, so a flooding child
 * is slowed to disk speed instead of filling the heap), and memory keeps only a head and a tail
 * (a byte ring: no chunk is kept). The spill file is capped at
 * `maxCapturedBytes`; what comes after is counted and discarded. A NUL byte in the first 4 096
 * bytes marks the output binary: the text stream stops, the raw bytes go to the spill file, and
 * the model is told the size.
 *
 * A text spill that holds the whole output (nothing discarded, every write made) becomes a saved
 * output of the session's store when the capture ends (`SpillBudget.keep`: renamed to
 * `<id>.output`, recorded with the size, SHA-256 and line count computed as it was written), so
 * the full text stays in the output store after the session; otherwise it stays a scratch file.
 *
 * Whole lines that are already plain (printable ASCII, tab, newline, `\r\n`) skip the decoder: a
 * SIMD scan (`plainScan.ts`) proves it, and the bytes are kept or written as they came (`\r\n`
 * becoming `\n`). Everything else goes through the decoder, so the text is the same either way.
 *
 * @since 0.1.0
 */
import { createHash, type Hash } from "node:crypto"
import * as fs from "node:fs"
import { makePlainScanner, type PlainScanner } from "./plainScan.js"
import { type CarriageReturnMode, PlainTextDecoder } from "./plainText.js"
import { ByteRing } from "../../output/index.js"

/** Bytes inspected for a NUL byte. @category constants */
export const BINARY_SNIFF_BYTES = 4096

/** Chars of live text kept between two takes (the rest is skipped; the capture keeps it all). @category constants */
export const LIVE_TEXT_CHARS = 16 * 1024

/** Spill writes are gathered up to this size (a PTY delivers ~4 KiB at a time). @category constants */
export const SPILL_BATCH_BYTES = 256 * 1024

/** Spill writes are whole pages (but the last). @category constants */
export const PAGE_BYTES = 4096

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

/**
 * Room for spill bytes beyond a capture's own cap (the session's disk budget): bytes are claimed
 * before they are written; what is not granted is discarded and counted.
 *
 * @category models
 */
export interface SpillBudget {
  readonly claim: (bytes: number) => number
  readonly release: (bytes: number) => void
  /**
   * Keeps a finished spill file that holds the whole text as a saved output of `toolName` (the
   * output store's `scratch.keep`); returns its new path, or undefined to leave it scratch.
   */
  readonly keep?:
    | ((path: string, toolName: string, facts: { readonly bytes: number; readonly sha256: string; readonly lines: number }) =>
      | { readonly path: string }
      | undefined)
    | undefined
}

/** The tool name a kept spill file is saved under unless the capture is told another. @category constants */
export const SHELL_TOOL_NAME = "run_shell_command"

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
  readonly #plain: PlainScanner
  #totalBytes = 0
  #binary = false
  #sniffed: Array<Buffer> = []
  #sniffedBytes = 0
  #parts: Array<string> = []
  #chars = 0
  #head = ""
  // Once spilled: the last bytes of the text (UTF-8), enough for `tailChars` characters.
  #tail: ByteRing | undefined
  #spilling = false
  #fd: number | undefined
  #path: string | undefined
  // Bytes accepted for the spill file (written or in the batch).
  #spilledBytes = 0
  // The cap was reached (possibly a few bytes early, not to cut a character).
  #full = false
  #batch: Buffer | undefined
  #batched = 0
  #discarded = 0
  #failed: string | undefined

  readonly #budget: SpillBudget | undefined
  readonly #toolName: string
  // Of the bytes written to the spill file, for keeping it as a saved output.
  // Made when the first bytes are written to a spill file: a short command's capture never needs one.
  #hash: Hash | undefined
  #newlines = 0
  #endsWithNewline = true
  // Live text not yet taken (`takeLive`), its last LIVE_TEXT_CHARS at most; undefined: not tracked.
  #live: Array<string> | undefined
  #liveChars = 0
  #liveSkipped = false

  constructor(
    limits: CaptureLimits,
    spillPath: () => string,
    options: {
      readonly carriageReturn?: CarriageReturnMode
      readonly budget?: SpillBudget | undefined
      readonly toolName?: string | undefined
    } = {}
  ) {
    this.#limits = limits
    this.#spillPath = spillPath
    this.#budget = options.budget
    this.#toolName = options.toolName ?? SHELL_TOOL_NAME
    this.#decoder = new PlainTextDecoder(options)
    this.#plain = makePlainScanner()
  }

  /**
   * Starts keeping the text committed since the last {@link takeLive} (whole lines, plain text),
   * for live views; at most its last {@link LIVE_TEXT_CHARS} chars are kept between two takes.
   */
  trackLive(): void {
    this.#live ??= []
  }

  /** The text committed since the last take ("" when none); skipped text is marked with `…`. */
  takeLive(): string {
    const live = this.#live
    if (live === undefined || live.length === 0) return ""
    const text = live.join("")
    const skipped = this.#liveSkipped || text.length > LIVE_TEXT_CHARS
    this.#live = []
    this.#liveChars = 0
    this.#liveSkipped = false
    return skipped ? `…${text.slice(-LIVE_TEXT_CHARS)}` : text
  }

  #liveText(text: string): void {
    const live = this.#live
    if (live === undefined || this.#binary || text.length === 0) return
    if (text.length > LIVE_TEXT_CHARS) this.#liveSkipped = true
    live.push(text.length > LIVE_TEXT_CHARS ? text.slice(-LIVE_TEXT_CHARS) : text)
    this.#liveChars += Math.min(text.length, LIVE_TEXT_CHARS)
    if (this.#liveChars > 2 * LIVE_TEXT_CHARS) {
      const kept = live.join("").slice(-LIVE_TEXT_CHARS)
      this.#live = [kept]
      this.#liveChars = kept.length
      this.#liveSkipped = true
    }
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
        this.#tail = undefined
        for (const earlier of this.#sniffed) this.#writeBytes(earlier)
        this.#sniffed = []
        this.#writeBytes(bytes)
        return
      }
      this.#sniffed.push(bytes)
      if (this.#sniffedBytes >= BINARY_SNIFF_BYTES) this.#sniffed = []
    }
    let rest = bytes
    // A pending escape sequence, `\r` or split character: the decoder takes the first line.
    if (!this.#decoder.isClean) {
      const newline = rest.indexOf(10)
      if (newline === -1) return this.#text(this.#decoder.push(rest))
      this.#text(this.#decoder.push(rest.subarray(0, newline + 1)))
      rest = rest.subarray(newline + 1)
      if (!this.#decoder.isClean) return this.#text(this.#decoder.push(rest))
    }
    const lines = rest.lastIndexOf(10) + 1
    const plain = lines > 0 ? this.#plain(rest.subarray(0, lines)) : undefined
    if (plain !== undefined) {
      this.#plainLines(plain)
      rest = rest.subarray(lines)
    }
    if (rest.length > 0) this.#text(this.#decoder.push(rest))
  }

  /**
   * Whole lines proven plain, after the decoder's partial line: kept as text in memory, or written
   * as they are. `plain` is the lines without their `\r` (possibly the scanner's scratch memory).
   */
  #plainLines(plain: Uint8Array): void {
    const pending = this.#decoder.takePending()
    const bytes = Buffer.from(plain.buffer, plain.byteOffset, plain.length)
    if (this.#live !== undefined && this.#spilling) {
      // Only the tail can survive until the next take: decode no more than that.
      const tail = bytes.length > LIVE_TEXT_CHARS ? bytes.subarray(bytes.length - LIVE_TEXT_CHARS) : bytes
      this.#liveText(pending + tail.toString("latin1"))
    }
    if (!this.#spilling) {
      this.#text(pending + bytes.toString("latin1"))
      return
    }
    if (pending !== "") this.#emit(Buffer.from(pending, "utf8"))
    this.#emit(bytes)
  }

  /** The last `maxChars` of the text so far, partial line included (for live views). */
  liveTail(maxChars: number): string {
    const text = this.#lastChars(maxChars) + this.#decoder.pending
    return text.length > maxChars ? text.slice(-maxChars) : text
  }

  /** Ends the capture and closes the spill file. */
  finish(): CapturedOutput {
    if (!this.#binary) this.#text(this.#decoder.end())
    this.#flush()
    if (this.#fd !== undefined) {
      try {
        fs.closeSync(this.#fd)
      } catch {
        // already closed
      }
      this.#fd = undefined
    }
    const spill: SpillFile | undefined = this.#spilling
      ? { path: this.#keptPath(), bytes: this.#spilledBytes, discardedBytes: this.#discarded, ...(this.#failed ? { error: this.#failed } : {}) }
      : undefined
    if (this.#binary) return { kind: "binary", totalBytes: this.#totalBytes, spill }
    if (spill === undefined) return { kind: "text", text: this.#parts.join(""), totalBytes: this.#totalBytes }
    return { kind: "text", text: this.#head, tail: this.#lastChars(this.#limits.tailChars), spill, totalBytes: this.#totalBytes }
  }

  /** The spill file's path, as a saved output when it holds the whole text and the budget keeps it. */
  #keptPath(): string | undefined {
    const path = this.#path
    if (path === undefined || this.#binary || this.#discarded > 0 || this.#failed !== undefined || !this.#budget?.keep) return path
    const facts = {
      bytes: this.#spilledBytes,
      sha256: (this.#hash ??= createHash("sha256")).digest("hex"),
      lines: this.#newlines + (this.#endsWithNewline ? 0 : 1)
    }
    return this.#budget.keep(path, this.#toolName, facts)?.path ?? path
  }

  /** The last `maxChars` (at most `tailChars`) of the committed text. */
  #lastChars(maxChars: number): string {
    let text: string
    if (this.#tail !== undefined) text = this.#tail.text()
    else {
      const parts: Array<string> = []
      let length = 0
      for (let i = this.#parts.length - 1; i >= 0 && length < maxChars; i--) {
        parts.push(this.#parts[i]!)
        length += this.#parts[i]!.length
      }
      text = parts.reverse().join("")
    }
    return text.length > maxChars ? text.slice(-maxChars) : text
  }

  /** Spilled text: to the file, and to the tail. */
  #emit(bytes: Buffer): void {
    this.#tail?.push(bytes)
    this.#writeBytes(bytes)
  }

  #text(text: string): void {
    if (text.length === 0) return
    if (this.#live !== undefined) this.#liveText(text)
    if (!this.#spilling) {
      this.#parts.push(text)
      this.#chars += text.length
      if (this.#chars <= this.#limits.memoryChars) return
      this.#spilling = true
      // A UTF-16 unit is at most 3 bytes of UTF-8 (a surrogate pair, 2 units, is 4).
      this.#tail = new ByteRing(3 * this.#limits.tailChars + 4)
      const all = this.#parts.join("")
      this.#parts = []
      this.#head = all.slice(0, this.#limits.headChars)
      this.#emit(Buffer.from(all, "utf8"))
      return
    }
    this.#emit(Buffer.from(text, "utf8"))
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
    const room = this.#full ? 0 : this.#limits.maxCapturedBytes - this.#spilledBytes
    if (fd === undefined || room <= 0) {
      this.#discarded += bytes.length
      return
    }
    // The session's budget may grant less than the capture's own cap leaves.
    const wanted = Math.min(bytes.length, room)
    const granted = this.#budget === undefined ? wanted : this.#budget.claim(wanted)
    let slice = bytes
    if (bytes.length >= room || granted < bytes.length) {
      let end = granted
      // never cut a UTF-8 sequence in text mode
      if (!this.#binary && end < bytes.length) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--
      this.#budget?.release(granted - end)
      slice = bytes.subarray(0, end)
      this.#discarded += bytes.length - end
      this.#full = true
    }
    this.#spilledBytes += slice.length
    // Small pieces are gathered. Then whole pages are written, the gathered bytes and the start of
    // a large chunk in one writev, without copying it; what is left of the last page waits for the
    // next write. The file offset stays page-aligned: an unaligned write costs the kernel about
    // twice as much here.
    const total = this.#batched + slice.length
    const batch = (this.#batch ??= Buffer.allocUnsafe(SPILL_BATCH_BYTES))
    if (total < SPILL_BATCH_BYTES && slice.length < SPILL_BATCH_BYTES / 8) {
      this.#batched += slice.copy(batch, this.#batched)
      return
    }
    const whole = total - (total % PAGE_BYTES)
    if (whole <= this.#batched) {
      this.#write(batch.subarray(0, whole))
      batch.copyWithin(0, whole, this.#batched)
      this.#batched = this.#batched - whole + slice.copy(batch, this.#batched - whole)
      return
    }
    const taken = whole - this.#batched
    if (this.#batched === 0) this.#write(slice.subarray(0, taken))
    else this.#write(batch.subarray(0, this.#batched), slice.subarray(0, taken))
    this.#batched = slice.copy(batch, 0, taken)
  }

  /** The gathered bytes (to be written at once: the batch is reused), if any. */
  #takeBatch(): Buffer | undefined {
    if (this.#batch === undefined || this.#batched === 0) return undefined
    const batched = this.#batch.subarray(0, this.#batched)
    this.#batched = 0
    return batched
  }

  #flush(): void {
    const batched = this.#takeBatch()
    if (batched !== undefined) this.#write(batched)
  }

  /** Hash and line count of written text bytes. */
  #account(bytes: Buffer): void {
    if (bytes.length === 0) return
    this.#hash ??= createHash("sha256")
    this.#hash.update(bytes)
    for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) this.#newlines++
    this.#endsWithNewline = bytes[bytes.length - 1] === 10
  }

  /** Writes accepted bytes; on failure they count as discarded and the file is closed. */
  #write(first: Buffer, second?: Buffer): void {
    const fd = this.#fd
    const total = first.length + (second?.length ?? 0)
    let written = 0
    try {
      if (fd === undefined) throw new Error("the spill file is closed")
      written = second === undefined ? fs.writeSync(fd, first) : fs.writevSync(fd, [first, second])
      while (written < total) {
        const [buffer, offset] = written < first.length ? [first, written] : [second!, written - first.length]
        written += fs.writeSync(fd, buffer, offset, buffer.length - offset)
      }
      if (!this.#binary) {
        this.#account(first)
        if (second !== undefined) this.#account(second)
      }
    } catch (error) {
      this.#failed ??= error instanceof Error ? error.message : String(error)
      this.#spilledBytes -= total - written
      this.#discarded += total - written
      if (fd !== undefined) {
        try {
          fs.closeSync(fd)
        } catch {
          // ignore
        }
      }
      this.#fd = undefined
    }
  }
}
