import { assert, describe, it } from "@effect/vitest"
import {
  COULD_NOT_SAVE_NOTE,
  isAlreadyTruncated,
  limitOrUnlimited,
  noOutputMessage,
  TRUNCATION_SEPARATOR,
  truncateLlmText,
  truncateToolOutput,
  wrapTruncatedOutput,
  wrapUnsavedOutput
} from "../../src/output/index.js"

const SEP = "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n"

describe("truncateToolOutput: reference vectors (§10.2)", () => {
  it("2 000 lines of `short`, 40 000 chars, 1 000 lines, both → first 200 + SEP + last 800", () => {
    const lines = Array.from({ length: 2000 }, () => "short")
    const content = lines.join("\n")
    const result = truncateToolOutput(content, { chars: 40_000, lines: 1000, keep: "both" })
    assert.isTrue(result.truncated)
    assert.strictEqual(result.content, lines.slice(0, 200).join("\n") + SEP + lines.slice(-800).join("\n"))
    assert.strictEqual(result.truncated && result.fullText, content)
  })

  describe("keep direction on FIRST_UNIQUE_LINE … LAST_UNIQUE_LINE", () => {
    const content = ["FIRST_UNIQUE_LINE", ...Array.from({ length: 1998 }, () => "filler"), "LAST_UNIQUE_LINE"].join("\n")
    const run = (keep: "head" | "tail" | "both") => truncateToolOutput(content, { chars: 40_000, lines: 1000, keep }).content

    it("head keeps only the beginning and ends with the separator", () => {
      const out = run("head")
      assert.include(out, "FIRST_UNIQUE_LINE")
      assert.notInclude(out, "LAST_UNIQUE_LINE")
      assert.isTrue(out.endsWith(SEP))
    })
    it("tail keeps only the end and starts with the separator", () => {
      const out = run("tail")
      assert.include(out, "LAST_UNIQUE_LINE")
      assert.notInclude(out, "FIRST_UNIQUE_LINE")
      assert.isTrue(out.startsWith(SEP))
    })
    it("both keeps both ends", () => {
      const out = run("both")
      assert.include(out, "FIRST_UNIQUE_LINE")
      assert.include(out, "LAST_UNIQUE_LINE")
    })
  })

  it("'x'×60 at threshold 50 is unchanged: the wrapper would be longer", () => {
    const content = "x".repeat(60)
    assert.deepStrictEqual(truncateToolOutput(content, { chars: 50, lines: 1000 }), { content, truncated: false })
  })

  it("'a'×10 000 at 5 000 chars, lines ∞, preview 500 → a short preview (< 2 000 when wrapped)", () => {
    const result = truncateToolOutput("a".repeat(10_000), { chars: 5000, lines: Infinity, previewChars: 500 })
    assert.isTrue(result.truncated)
    assert.strictEqual(result.content, "a".repeat(97) + "..." + SEP)
    const wrapped = wrapTruncatedOutput(result.content, { path: "/tmp/shell_0123456789abcdef.output" })
    assert.isBelow(wrapped.length, 2000)
  })

  it("keep tail, H×50 000 \\n B×60 000 \\n C×58 at threshold 100 → no whole-line leak", () => {
    const content = "H".repeat(50_000) + "\n" + "B".repeat(60_000) + "\n" + "C".repeat(58)
    const result = truncateToolOutput(content, { chars: 100, lines: 1000, keep: "tail" })
    assert.isTrue(result.truncated)
    assert.strictEqual(result.content, SEP + "...\n" + "C".repeat(58))
    assert.isBelow(wrapTruncatedOutput(result.content, { path: "/tmp/f.output" }).length, 2000)
  })

  it("truncateLlmText('x', '   ') → (x completed with no output)", () => {
    assert.deepStrictEqual(truncateLlmText("x", "   ", { chars: 25_000, lines: 1000 }), {
      content: "(x completed with no output)",
      truncated: false
    })
    assert.strictEqual(noOutputMessage("run_shell_command"), "(run_shell_command completed with no output)")
  })
})

describe("truncateToolOutput: per-line budgets (§10.2 step 4)", () => {
  const filler = Array.from({ length: 1000 }, () => "z".repeat(10))

  it("head: lines cost length+1; the first line that does not fit is cut to remaining−3 + '...'", () => {
    const content = ["0123456789", "abcdefghijklmnop", ...filler].join("\n")
    const result = truncateToolOutput(content, { chars: 20, lines: Infinity, keep: "head" })
    assert.strictEqual(result.content, "0123456789\nabcdef..." + SEP)
  })

  it("tail: lines from the end; the overflowing line becomes '...' + its last remaining−3 chars", () => {
    const content = [...filler, "B".repeat(100), "c".repeat(49)].join("\n")
    const result = truncateToolOutput(content, { chars: 100, lines: Infinity, keep: "tail" })
    // tail budget = 100 − 0 − 39 = 61: the c-line costs 50, leaving 11 → '...' + 8 B
    assert.strictEqual(result.content, SEP + "..." + "B".repeat(8) + "\n" + "c".repeat(49))
  })

  it("both: head budget floor(preview/5), tail budget preview − headChars − 39", () => {
    const content = ["h".repeat(30), ...filler, "t".repeat(30)].join("\n")
    const result = truncateToolOutput(content, { chars: 100, lines: Infinity })
    // head: 20 → 17 h + '...'; tail: 100 − 20 − 39 = 41 → t-line (31), then 10 left → '...' + 7 z
    assert.strictEqual(result.content, "h".repeat(17) + "..." + SEP + "..." + "z".repeat(7) + "\n" + "t".repeat(30))
  })

  it("both: head gets max(floor(lines/5), 1) lines, tail the rest of the line limit", () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `line${i}`)
    const result = truncateToolOutput(lines.join("\n"), { chars: 100_000, lines: 10 })
    assert.strictEqual(result.content, lines.slice(0, 2).join("\n") + SEP + lines.slice(-8).join("\n"))
  })

  it("previewChars budgets the preview independently of the trigger threshold", () => {
    const content = Array.from({ length: 400 }, () => "y".repeat(99)).join("\n")
    const small = truncateToolOutput(content, { chars: 30_000, lines: Infinity, previewChars: 1000 })
    const large = truncateToolOutput(content, { chars: 30_000, lines: Infinity })
    assert.isAtMost(small.content.length, 1000 + TRUNCATION_SEPARATOR.length)
    assert.isAbove(large.content.length, 20_000)
  })

  it("never splits a surrogate pair when cutting a line", () => {
    const content = "😀".repeat(5000)
    const result = truncateToolOutput(content, { chars: 1000, lines: Infinity, keep: "head", previewChars: 8 })
    // budget 8 → 5 code units wanted; 😀 is 2 units, so 4 units (2 emoji) survive
    assert.strictEqual(result.content, "😀😀..." + SEP)
  })
})

describe("truncateToolOutput: limits and idempotency", () => {
  const big = Array.from({ length: 3000 }, (_, i) => `row ${i}`).join("\n")

  it("content within both limits is unchanged", () => {
    assert.deepStrictEqual(truncateToolOutput("Short content", { chars: 40_000, lines: 1000 }), {
      content: "Short content",
      truncated: false
    })
  })

  it("chars ≤0 or Infinity means unlimited chars (lines still apply)", () => {
    for (const chars of [0, -5, Infinity]) {
      const r = truncateToolOutput(big, { chars, lines: 1000 })
      assert.isTrue(r.truncated, `chars=${chars}`)
      assert.include(r.content, "row 0\n")
      assert.include(r.content, "row 2999")
    }
    assert.isFalse(truncateToolOutput("x".repeat(100_000), { chars: 0, lines: 1000 }).truncated)
  })

  it("lines ≤0 or Infinity means unlimited lines (chars still apply)", () => {
    for (const lines of [0, -1, Infinity]) {
      assert.isFalse(truncateToolOutput(big, { chars: 100_000, lines }).truncated, `lines=${lines}`)
      assert.isTrue(truncateToolOutput(big, { chars: 1000, lines }).truncated, `lines=${lines}`)
    }
    assert.isFalse(truncateToolOutput(big, { chars: 0, lines: 0 }).truncated)
    assert.strictEqual(limitOrUnlimited(Number.NaN), Infinity)
    assert.strictEqual(limitOrUnlimited(12.7), 12)
  })

  it("is idempotent: a truncated preview, a wrapped message and a noted preview are never cut again", () => {
    const first = truncateToolOutput(big, { chars: 1000, lines: 100 })
    assert.isTrue(first.truncated)
    const options = { chars: 10, lines: 2 }
    assert.deepStrictEqual(truncateToolOutput(first.content, options), { content: first.content, truncated: false })
    const wrapped = wrapTruncatedOutput(first.content, { path: "/tmp/a.output" })
    assert.strictEqual(truncateToolOutput(wrapped, options).content, wrapped)
    assert.strictEqual(truncateLlmText("shell", wrapped, options).content, wrapped)
    const noted = wrapUnsavedOutput(first.content)
    assert.strictEqual(truncateToolOutput(noted, options).content, noted)
  })

  it("a persisted-output stub counts as already truncated", () => {
    const stub = "<persisted-output>\n" + "p".repeat(50_000)
    assert.isTrue(isAlreadyTruncated(stub))
    assert.isFalse(isAlreadyTruncated("x<persisted-output>"))
    assert.strictEqual(truncateToolOutput(stub, { chars: 100, lines: 10 }).content, stub)
  })

  it("the fallback compares against the wrapped length including the saved path", () => {
    const preview = "x".repeat(7) + "..." + SEP
    const fixed = wrapTruncatedOutput(preview, { path: "" }).length
    const content = "x".repeat(fixed + 100)
    assert.isTrue(truncateToolOutput(content, { chars: 50, lines: 1000, pathChars: 99 }).truncated)
    assert.isFalse(truncateToolOutput(content, { chars: 50, lines: 1000, pathChars: 100 }).truncated)
  })
})

describe("wrapTruncatedOutput", () => {
  it("builds the §10.2 step 6 message around the preview", () => {
    assert.strictEqual(
      wrapTruncatedOutput("HEAD" + SEP + "TAIL", { path: "/s/t/shell_00.output" }),
      `Tool output was too large and has been truncated.
The full output has been saved to: /s/t/shell_00.output
To read the complete output, use the read_file tool with the absolute file path above.
The truncated output below shows the beginning and end of the content. The marker '... [CONTENT TRUNCATED] ...' indicates where content was removed.

Truncated part of the output:
HEAD${SEP}TAIL`
    )
  })

  it("appends the could-not-save note (§10.2 step 8) or any given note", () => {
    assert.strictEqual(wrapUnsavedOutput("P"), "P\n[Note: Could not save full output to file]")
    assert.strictEqual(COULD_NOT_SAVE_NOTE, "[Note: Could not save full output to file]")
    assert.strictEqual(wrapTruncatedOutput("P", { note: "(why)" }), "P\n(why)")
  })

  it("truncateLlmText passes text starting with the truncation prefix through", () => {
    const text = "Tool output was too large and has been truncated" + "z".repeat(100_000)
    assert.strictEqual(truncateLlmText("t", text, { chars: 10, lines: 1 }).content, text)
  })
})
