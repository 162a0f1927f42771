import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { ByteRing } from "../../src/output/ring.js"

describe("ByteRing", () => {
  it("keeps exactly the last `capacity` bytes, in order, whatever the chunk sizes (it grows from a small buffer)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20_000 }),
        fc.array(fc.integer({ min: 0, max: 9_000 }), { maxLength: 12 }),
        (capacity, sizes) => {
          const ring = new ByteRing(capacity)
          const all: Array<number> = []
          for (const [i, size] of sizes.entries()) {
            const chunk = Buffer.alloc(size)
            for (let k = 0; k < size; k++) chunk[k] = (all.length + k + i) % 251
            for (const b of chunk) all.push(b)
            ring.push(chunk)
            assert.strictEqual(ring.total, all.length)
            assert.deepStrictEqual([...ring.bytes()], all.slice(-capacity))
          }
        }
      ),
      { seed: 18, numRuns: 300 }
    )
  })
})
