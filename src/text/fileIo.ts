/**
 * Whole-file reads and writes in large chunks: a read is hashed while it arrives (each chunk is
 * hashed while the next one is being read), a hash of a file on disk needs only two chunk buffers,
 * and a write takes its bytes as several chunks, so a changed 50 MB file is written from the
 * original buffer's unchanged parts without being copied into a new one.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import type { FileHandle } from "node:fs/promises"

/** Bytes read or hashed per system call (4 MiB). @category constants */
export const IO_CHUNK_BYTES = 4 * 1024 * 1024

/** Bytes to write: one buffer, or chunks written one after the other. @category models */
export type WriteBytes = Uint8Array | ReadonlyArray<Uint8Array>

/** The chunks of {@link WriteBytes}. @category bytes */
export const chunksOf = (bytes: WriteBytes): ReadonlyArray<Uint8Array> => (bytes instanceof Uint8Array ? [bytes] : bytes)

/** Total length of {@link WriteBytes}. @category bytes */
export const byteLengthOf = (bytes: WriteBytes): number => chunksOf(bytes).reduce((sum, c) => sum + c.length, 0)

/** Hex sha256 of `bytes`. @category hashing */
export const sha256Hex = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

const readAt = (handle: FileHandle, buffer: Uint8Array, offset: number, length: number, position: number) =>
  handle.read(buffer, offset, length, position).then((r) => r.bytesRead)

/**
 * Reads an open file from its start, up to `size` bytes (its size from `fstat`; less if it ends
 * sooner), with the sha256 of exactly the bytes returned.
 * @category reading
 */
export const readHashed = (handle: FileHandle, size: number): Promise<{ readonly bytes: Buffer; readonly hash: string }> => {
  const hash = createHash("sha256")
  return readUpTo(handle, size, (chunk) => hash.update(chunk)).then((bytes) => ({ bytes, hash: hash.digest("hex") }))
}

/**
 * Reads an open file from its start, up to `size` bytes (less if it ends sooner), in chunks, the
 * next read in flight while `onChunk` sees the last one.
 * @category reading
 */
export const readUpTo = async (handle: FileHandle, size: number, onChunk?: (chunk: Buffer) => void): Promise<Buffer> => {
  const buffer = Buffer.allocUnsafe(size)
  const next = (at: number) => (at < size ? readAt(handle, buffer, at, Math.min(IO_CHUNK_BYTES, size - at), at) : undefined)
  let filled = 0
  for (let pending = next(0); pending !== undefined;) {
    const n = await pending
    if (n === 0) break
    const from = filled
    filled += n
    pending = next(filled)
    onChunk?.(buffer.subarray(from, filled))
  }
  return filled === size ? buffer : buffer.subarray(0, filled)
}

/** A chunk size for a file of about `bytes`: at least 4 KiB, at most IO_CHUNK_BYTES. */
const chunkBytesFor = (bytes: number): number => Math.min(IO_CHUNK_BYTES, Math.max(4096, bytes))

/**
 * Reads an open file from its start to its end in chunks through two chunk buffers (the next read
 * in flight while `onChunk` sees the last one), until `onChunk` returns false. Whether it read to
 * the end.
 */
const eachChunk = async (
  handle: FileHandle,
  onChunk: (chunk: Buffer, position: number) => boolean,
  chunkBytes: number = IO_CHUNK_BYTES
): Promise<boolean> => {
  const buffers = [Buffer.allocUnsafe(chunkBytes), Buffer.allocUnsafe(chunkBytes)] as const
  let position = 0
  let turn = 0
  let pending = readAt(handle, buffers[0], 0, chunkBytes, 0)
  for (;;) {
    const n = await pending
    if (n === 0) return true
    const current = buffers[turn]!
    const at = position
    position += n
    turn ^= 1
    // A short read of a regular file is its end: no further read is needed to find it.
    const more = n === chunkBytes
    if (more) pending = readAt(handle, buffers[turn]!, 0, chunkBytes, position)
    if (!onChunk(current.subarray(0, n), at)) return false
    if (!more) return true
  }
}

/**
 * Whether an open file holds exactly `expected`, to its end: compared chunk by chunk as they are
 * read, stopping at the first difference. Comparing is several times cheaper than hashing both
 * sides, so a compare-and-swap that still has the bytes it read uses this.
 * @category reading
 */
export const sameContents = async (handle: FileHandle, expected: Uint8Array): Promise<boolean> => {
  const want = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength)
  let seen = 0
  // Chunks of the expected size and one byte more (up to IO_CHUNK_BYTES): a small file is compared
  // in one read, a longer one found out by it, and an edit does not pay for two 4 MiB buffers.
  const same = await eachChunk(handle, (chunk, at) => {
    seen = at + chunk.length
    return seen <= want.length && chunk.equals(want.subarray(at, seen))
  }, chunkBytesFor(want.length + 1))
  return same && seen === want.length
}

/**
 * The sha256 of an open file's bytes to its end, read in chunks (two chunk buffers of up to
 * IO_CHUNK_BYTES, sized to the file when it is smaller). @category hashing
 */
export const hashContents = async (handle: FileHandle): Promise<string> => {
  const hash = createHash("sha256")
  const { size } = await handle.stat()
  await eachChunk(handle, (chunk) => {
    hash.update(chunk)
    return true
  }, chunkBytesFor(size + 1))
  return hash.digest("hex")
}

/**
 * Writes every chunk in order from the start of an open file: one `writev`, then — after a short
 * write (a filling disk writes what fits, and the next write reports the error) — the rest chunk
 * by chunk, so a file is never left silently shorter than its bytes.
 * @category writing
 */
export const writeChunks = async (
  handle: Pick<FileHandle, "write" | "writev">,
  bytes: WriteBytes
): Promise<void> => {
  const chunks = chunksOf(bytes).filter((c) => c.length > 0)
  if (chunks.length === 0) return
  const { bytesWritten } = await handle.writev(chunks, 0)
  let position = bytesWritten
  let skip = bytesWritten
  for (const chunk of chunks) {
    if (skip >= chunk.length) {
      skip -= chunk.length
      continue
    }
    for (let done = skip; done < chunk.length;) {
      const { bytesWritten: n } = await handle.write(chunk, done, chunk.length - done, position)
      done += n
      position += n
    }
    skip = 0
  }
}
