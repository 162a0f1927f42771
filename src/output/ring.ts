/**
 * The last N bytes of a stream in one fixed buffer: the shell capture's tail and a streamed output's
 * tail window. A flood's chunks are copied in, never kept: kept chunks outlive the young generation
 * and turn a flood into old-space garbage collections.
 *
 * @since 0.1.0
 */

/** The first buffer of a ring (it grows to its capacity as bytes come). @category constants */
export const RING_START_BYTES = 4096

/** The last `capacity` bytes pushed. @category models */
export class ByteRing {
  /** Bytes kept. */
  readonly capacity: number
  // Grows (doubling) from a small buffer to `capacity` while nothing has wrapped: most outputs are
  // a few lines, and a ring per command filled with zeros up front was most of a short command's
  // garbage (a 256 KiB screen window per shell call).
  #buffer: Buffer
  // Bytes ever pushed; the next byte goes to `#total % capacity`.
  #total = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.#buffer = Buffer.allocUnsafe(Math.min(capacity, RING_START_BYTES))
  }

  /** Bytes ever pushed (more than are kept once the ring wrapped). */
  get total(): number {
    return this.#total
  }

  /** Appends bytes (copied). */
  push(bytes: Uint8Array): void {
    const capacity = this.capacity
    if (this.#buffer.length < capacity) {
      // not wrapped yet: the kept bytes are `[0, total)`
      const need = this.#total + bytes.length
      if (need > this.#buffer.length) {
        let size = this.#buffer.length
        while (size < need && size < capacity) size *= 2
        const grown = Buffer.allocUnsafe(Math.min(size, capacity))
        this.#buffer.copy(grown, 0, 0, this.#total)
        this.#buffer = grown
      }
      if (need <= this.#buffer.length) {
        this.#buffer.set(bytes, this.#total)
        this.#total = need
        return
      }
    }
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
