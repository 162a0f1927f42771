/**
 * The last N bytes of a stream in one fixed buffer: the shell capture's tail and a streamed output's
 * tail window. A flood's chunks are copied in, never kept: kept chunks outlive the young generation
 * and turn a flood into old-space garbage collections.
 *
 * @since 0.1.0
 */

/** The last `capacity` bytes pushed. @category models */
export class ByteRing {
  /** Bytes kept. */
  readonly capacity: number
  readonly #buffer: Buffer
  // Bytes ever pushed; the next byte goes to `#total % capacity`.
  #total = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.#buffer = Buffer.alloc(capacity)
  }

  /** Bytes ever pushed (more than are kept once the ring wrapped). */
  get total(): number {
    return this.#total
  }

  /** Appends bytes (copied). */
  push(bytes: Uint8Array): void {
    const capacity = this.capacity
    const source = bytes.length > capacity ? bytes.subarray(bytes.length - capacity) : bytes
    const at = (this.#total + bytes.length - source.length) % capacity
    const first = Math.min(source.length, capacity - at)
    this.#buffer.set(source.subarray(0, first), at)
    if (first < source.length) this.#buffer.set(source.subarray(first), 0)
    this.#total += bytes.length
  }

  /** The kept bytes, oldest first (a copy). */
  bytes(): Buffer {
    if (this.#total <= this.capacity) return Buffer.from(this.#buffer.subarray(0, this.#total))
    const at = this.#total % this.capacity
    return Buffer.concat([this.#buffer.subarray(at), this.#buffer.subarray(0, at)], this.capacity)
  }

  /**
   * The kept bytes as UTF-8 text, starting at a character boundary when the ring wrapped; with
   * `maxChars`, only that many last characters.
   */
  text(maxChars?: number): string {
    const bytes = this.bytes()
    let start = 0
    if (this.#total > this.capacity) while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
    const text = bytes.toString("utf8", start)
    return maxChars !== undefined && text.length > maxChars ? text.slice(-maxChars) : text
  }
}
