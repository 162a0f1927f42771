/**
 * The last N bytes of a stream in one fixed buffer: the shell capture's tail and a streamed output's
 * tail window. A flood's chunks are copied in, never kept: kept chunks outlive the young generation
 * and turn a flood into old-space garbage collections.
 *
 * @since 0.1.0
 */

/** The first buffer of a ring (it grows by doubling up to the capacity). @category constants */
const FIRST_BYTES = 4096

/**
 * The last `capacity` bytes pushed. The buffer starts small and doubles as bytes come, up to
 * `capacity`: a short command's screen window (256 KiB) costs a few KiB, not a zeroed 256 KiB.
 * @category models
 */
export class ByteRing {
  /** Bytes kept. */
  readonly capacity: number
  #buffer: Buffer
  // Bytes ever pushed; the next byte goes to `#total % capacity` (once the buffer is full size).
  #total = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.#buffer = Buffer.allocUnsafe(Math.min(capacity, FIRST_BYTES))
  }

  /** Makes the buffer at least `bytes` long (at most the capacity); what is kept stays at its place. */
  #grow(bytes: number): void {
    if (this.#buffer.length >= bytes) return
    let size = this.#buffer.length
    while (size < bytes) size *= 2
    const grown = Buffer.allocUnsafe(Math.min(this.capacity, size))
    this.#buffer.copy(grown, 0, 0, Math.min(this.#total, this.#buffer.length))
    this.#buffer = grown
  }

  /** Bytes ever pushed (more than are kept once the ring wrapped). */
  get total(): number {
    return this.#total
  }

  /** Appends bytes (copied). */
  push(bytes: Uint8Array): void {
    const capacity = this.capacity
    // Until the ring first wraps, the bytes are kept from the buffer's start, in order.
    this.#grow(Math.min(capacity, this.#total + bytes.length))
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
