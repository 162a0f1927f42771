/**
 * Writing a saved output without encoding it whole: the text is encoded chunk by chunk into a
 * reusable buffer (each chunk is hashed and written before the next one is encoded), so a save
 * needs one buffer of {@link WRITE_BUFFER_BYTES} whatever the size of the output, and a burst of
 * saves reuses the same few buffers instead of allocating (and collecting) one per save.
 *
 * @since 0.1.0
 */

/** Size of one write buffer: the most bytes encoded at once by a save. @category constants */
export const WRITE_BUFFER_BYTES = 256 * 1024

/** Outputs of at most this many bytes are encoded whole into a buffer of their own. @category constants */
export const SMALL_SAVE_BYTES = 64 * 1024

/** Most idle buffers a pool keeps while saves are running; one is kept between bursts. @category constants */
export const MAX_IDLE_BUFFERS = 4

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * Where the chunk of `text` starting at `start` ends so that it encodes into `bufferBytes`:
 * `bufferBytes` chars of ASCII text, a third of that otherwise (3 bytes per UTF-16 unit at most);
 * a surrogate pair is never split. `bufferBytes` must be at least 4.
 *
 * @category encoding
 */
export const chunkEnd = (text: string, start: number, ascii: boolean, bufferBytes: number = WRITE_BUFFER_BYTES): number => {
  const chars = ascii ? bufferBytes : Math.max(1, Math.floor(bufferBytes / 3))
  const end = Math.min(text.length, start + chars)
  if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1)) && isLowSurrogate(text.charCodeAt(end))) {
    // Keep the pair together: end before it, or (a one-unit chunk) take both units, 4 bytes.
    return end - start > 1 ? end - 1 : end + 1
  }
  return end
}

/**
 * Encodes `text[start, end)` as UTF-8 at the start of `buffer` and returns the bytes written;
 * ASCII text (every unit below 0x80) is copied with the Latin-1 encoder, which gives the same bytes.
 *
 * @category encoding
 */
export const encodeChunk = (buffer: Buffer, text: string, start: number, end: number, ascii: boolean): number =>
  buffer.write(start === 0 && end === text.length ? text : text.slice(start, end), 0, ascii ? "latin1" : "utf8")

/** Write buffers shared by the saves of one store. @category models */
export interface BufferPool {
  /** A save starts. */
  readonly begin: () => void
  /** A save ended; when none is running, all idle buffers but one are dropped. */
  readonly end: () => void
  /** A buffer of {@link WRITE_BUFFER_BYTES} bytes (an idle one if any). */
  readonly take: () => Buffer
  /** Returns a buffer taken with `take`. */
  readonly give: (buffer: Buffer) => void
}

/**
 * A pool of write buffers: a burst of saves (one batch) reuses up to {@link MAX_IDLE_BUFFERS} of
 * them, and one is kept between bursts for the next save.
 *
 * @category constructors
 */
export const bufferPool = (): BufferPool => {
  let running = 0
  const idle: Array<Buffer> = []
  return {
    begin: () => {
      running++
    },
    end: () => {
      running--
      if (running === 0 && idle.length > 1) idle.length = 1
    },
    take: () => idle.pop() ?? Buffer.allocUnsafeSlow(WRITE_BUFFER_BYTES),
    give: (buffer) => {
      if (idle.length < MAX_IDLE_BUFFERS) idle.push(buffer)
    }
  }
}
