/**
 * The last bytes of a byte stream, in a fixed buffer: what a streamed output keeps of its tail.
 * (The shell capture has the same ring in `src/shell/ring.ts`; the output room cannot import
 * from the shell's.)
 *
 * @since 0.2.0
 */

/** A ring of the last `capacity` bytes pushed. @category models */
export class TailBytes {
  readonly capacity: number
  readonly #buffer: Buffer
  // Bytes ever pushed; the next byte goes to `#total % capacity`.
  #total = 0

  constructor(capacity: number) {
    this.capacity = capacity
    this.#buffer = Buffer.alloc(capacity)
  }

  /** Copies the bytes in (the caller may reuse its buffer). */
  push(bytes: Uint8Array): void {
    const capacity = this.capacity
    const source = bytes.length > capacity ? bytes.subarray(bytes.length - capacity) : bytes
    const at = (this.#total + bytes.length - source.length) % capacity
    const first = Math.min(source.length, capacity - at)
    this.#buffer.set(source.subarray(0, first), at)
    if (first < source.length) this.#buffer.set(source.subarray(first), 0)
    this.#total += bytes.length
  }

  /** The last `maxChars` characters of the UTF-8 text held (a cut leading sequence dropped). */
  text(maxChars: number): string {
    const wrapped = this.#total > this.capacity
    const at = this.#total % this.capacity
    const bytes = wrapped
      ? Buffer.concat([this.#buffer.subarray(at), this.#buffer.subarray(0, at)], this.capacity)
      : this.#buffer.subarray(0, this.#total)
    let start = 0
    if (wrapped) while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++
    const text = bytes.toString("utf8", start)
    return text.length > maxChars ? text.slice(-maxChars) : text
  }
}
