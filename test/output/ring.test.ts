import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { ByteRing, RING_START_BYTES } from "../../src/output/ring.js"

const SEED = 20_261_205

describe("ByteRing", () => {
  it("keeps the last `capacity` bytes of everything pushed, across its growth from a small buffer and its wrap", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1, 7, RING_START_BYTES - 1, RING_START_BYTES, RING_START_BYTES + 1, 3 * RING_START_BYTES + 5, 256 * 1024),
        fc.array(fc.integer({ min: 0, max: 40_000 }), { maxLength: 25 }),
        (capacity, sizes) => {
          const ring = new ByteRing(capacity)
          const all: Array<Buffer> = []
          let n = 0
          for (const size of sizes) {
            const chunk = Buffer.alloc(size)
            for (let i = 0; i < size; i++) chunk[i] = (n + i) % 251
            n += size
            all.push(chunk)
            ring.push(chunk)
            const whole = Buffer.concat(all)
            assert.strictEqual(ring.total, whole.length)
            assert.isTrue(ring.bytes().equals(whole.subarray(Math.max(0, whole.length - capacity))))
          }
        }
      ),
      { seed: SEED, numRuns: 150 }
    )
  })

  it("text starts at a character boundary once wrapped, and takes the last maxChars", () => {
    const ring = new ByteRing(RING_START_BYTES + 1)
    ring.push(Buffer.from("é".repeat(RING_START_BYTES), "utf8")) // 2 bytes each: wraps mid-character
    const text = ring.text()
    assert.match(text, /^é+$/)
    assert.strictEqual(ring.text(3), "ééé")
  })
})
