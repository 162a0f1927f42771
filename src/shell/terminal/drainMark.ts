/**
 * The end-of-output mark of a PTY command: how the PTY path knows, without waiting, that every
 * byte the command wrote has been read.
 *
 * Once the command is gone, the mark is written to the PTY's slave side, which we hold open. Bytes
 * written to the slave reach the master in order, so when the mark comes back out of the master,
 * everything the command wrote before it has come out too. The mark is an OSC sequence of
 * upper-case hex (`ESC ] TW-DRAIN-… BEL`): Linux's output processing (`OPOST`: `ONLCR`, `OLCUC`,
 * tab expansion, fill characters) leaves such bytes as they are. It is taken out of the stream
 * here, also when a read splits it; bytes held back as a possible start of it are handed on
 * either when they turn out not to be, or by {@link DrainMark.flush} at the end of the stream.
 *
 * @since 0.1.0
 */
import { randomUUID } from "node:crypto"

/** A mark and the filter that takes it out of a PTY's output. @category models */
export interface DrainMark {
  /** The bytes to write to the slave side. */
  readonly bytes: Buffer
  /** From now on, look for the mark (call before writing it). */
  readonly arm: () => void
  /** Passes a chunk read from the master on to the sink, minus the mark; true when the mark went by in it. */
  readonly feed: (chunk: Buffer) => boolean
  /** Hands on what is held back as a possible start of the mark, and stops looking (end of the stream). */
  readonly flush: () => void
  /** Whether the mark came back. */
  readonly seen: () => boolean
}

/** The prefix every mark starts with (the nonce follows, then BEL). @category constants */
export const DRAIN_MARK_PREFIX = "\x1b]TW-DRAIN-"

/**
 * Eight random bytes from `randomUUID`, which draws on a pool Node refills every 128 ids (a
 * `randomBytes` call per command asked the kernel each time).
 */
const freshNonce = (): Buffer => Buffer.from(randomUUID().replaceAll("-", ""), "hex").subarray(8)

/**
 * A fresh mark whose filter passes everything else to `sink`, in order.
 *
 * @category constructors
 */
export const makeDrainMark = (sink: (chunk: Buffer) => void, nonce: Buffer = freshNonce()): DrainMark => {
  const bytes = Buffer.from(`${DRAIN_MARK_PREFIX}${nonce.toString("hex").toUpperCase()}\x07`, "latin1")
  let armed = false
  let found = false
  let held: Buffer = Buffer.alloc(0)

  /** How many bytes at the end of `buf` could be the start of the mark (never the whole mark). */
  const possibleStart = (buf: Buffer): number => {
    for (let k = Math.min(bytes.length - 1, buf.length); k > 0; k--) {
      if (buf[buf.length - k] === bytes[0] && buf.subarray(buf.length - k).equals(bytes.subarray(0, k))) return k
    }
    return 0
  }

  const feed = (chunk: Buffer): boolean => {
    if (!armed || found) {
      sink(chunk)
      return false
    }
    const buf = held.length === 0 ? chunk : Buffer.concat([held, chunk])
    const at = buf.indexOf(bytes)
    if (at !== -1) {
      found = true
      held = Buffer.alloc(0)
      if (at > 0) sink(buf.subarray(0, at))
      if (at + bytes.length < buf.length) sink(buf.subarray(at + bytes.length))
      return true
    }
    const keep = possibleStart(buf)
    if (keep < buf.length) sink(buf.subarray(0, buf.length - keep))
    held = keep === 0 ? Buffer.alloc(0) : Buffer.from(buf.subarray(buf.length - keep))
    return false
  }

  const flush = () => {
    armed = false
    if (held.length > 0) sink(held)
    held = Buffer.alloc(0)
  }

  return { bytes, arm: () => void (armed = true), feed, flush, seen: () => found }
}
