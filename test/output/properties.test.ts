import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { allocateTextBudget, fitText, truncateToolOutput, wrapTruncatedOutput } from "../../src/output/index.js"

const SEED = 20_251_001

describe("properties", () => {
  it("allocation: sum ≤ budget, no slot grows, slots under the fair share keep their length", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 5000 }), { maxLength: 30 }),
        fc.nat({ max: 60_000 }),
        (lengths, budget) => {
          const allocations = allocateTextBudget(lengths, budget)
          const total = lengths.reduce((a, b) => a + b, 0)
          const sum = allocations.reduce((a, b) => a + b, 0)
          assert.strictEqual(allocations.length, lengths.length)
          assert.isAtMost(sum, budget)
          if (total <= budget) assert.deepStrictEqual(allocations, lengths)
          // Water filling uses the whole budget when it cannot satisfy everyone.
          else assert.strictEqual(sum, budget)
          const fairShare = lengths.length === 0 ? 0 : Math.floor(budget / lengths.length)
          lengths.forEach((length, i) => {
            assert.isAtMost(allocations[i]!, length)
            assert.isAtLeast(allocations[i]!, 0)
            if (length <= fairShare) assert.strictEqual(allocations[i], length)
          })
        }
      ),
      { seed: SEED, numRuns: 500 }
    )
  })

  it("fitText never exceeds its budget", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), fc.integer({ min: -5, max: 450 }), (text, max) => {
        const out = fitText(text, max, max % 2 === 0 ? [] : ["/tmp/x.output"])
        assert.isAtMost(out.length, Math.max(max, 0))
        if (text.length <= max) assert.strictEqual(out, text)
      }),
      { seed: SEED, numRuns: 500 }
    )
  })

  it("truncateToolOutput is idempotent (on its preview and on the wrapped message)", () => {
    // Runs of one unit give long lines cheaply; `size: "max"` avoids fast-check's bias to tiny inputs.
    const line = fc.tuple(fc.constantFrom("a", "b", " ", "😀", "é", "xy"), fc.nat({ max: 400 }))
      .map(([unit, count]) => unit.repeat(count))
    const content = fc.array(line, { maxLength: 400, size: "max" }).map((lines) => lines.join("\n"))
    const options = fc.record({
      chars: fc.oneof(fc.integer({ min: -10, max: 3000 }), fc.constant(Infinity)),
      lines: fc.oneof(fc.integer({ min: -2, max: 120 }), fc.constant(Infinity)),
      keep: fc.constantFrom("head" as const, "tail" as const, "both" as const),
      previewChars: fc.option(fc.integer({ min: 1, max: 3000 }), { nil: undefined }),
      pathChars: fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined })
    })
    let truncatedRuns = 0
    fc.assert(
      fc.property(content, options, options, (text, first, second) => {
        const once = truncateToolOutput(text, first)
        if (once.truncated) truncatedRuns++
        const twice = truncateToolOutput(once.content, first)
        assert.strictEqual(twice.content, once.content)
        if (once.truncated) {
          assert.isFalse(twice.truncated)
          assert.strictEqual(once.fullText, text)
          assert.isBelow(wrapTruncatedOutput(once.content, { path: "p".repeat(first.pathChars ?? 256) }).length, text.length)
          // Already-truncated content is never cut again, whatever the limits.
          assert.strictEqual(truncateToolOutput(once.content, second).content, once.content)
          const wrapped = wrapTruncatedOutput(once.content, { path: "/tmp/out.output" })
          assert.strictEqual(truncateToolOutput(wrapped, second).content, wrapped)
        } else {
          assert.strictEqual(once.content, text)
        }
      }),
      { seed: SEED, numRuns: 400 }
    )
    // Not vacuous: a good share of the runs really truncated.
    assert.isAbove(truncatedRuns, 100)
  })
})
