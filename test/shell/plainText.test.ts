import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { BINARY_SNIFF_BYTES, OutputCapture } from "../../src/shell/terminal/capture.js"
import { MAX_PENDING_LINE_CHARS, PlainTextDecoder, stripControlCharacters, toPlainText } from "../../src/shell/terminal/plainText.js"
import { Screen } from "../../src/shell/terminal/screen.js"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { makeDir } from "./helpers.js"

describe("plain text of terminal output", () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ["\x1b[1;31mred\x1b[0m\r\n", "red\n"],
    ["\x1b]0;title\x07text\n", "text\n"],
    ["\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\n", "link\n"],
    ["\x1bP1$r0m\x1b\\ok\n", "ok\n"],
    ["\x1b(Bascii\x1b=\n", "ascii\n"],
    ["\x9b32mc1\x9bm\n", "c1\n"],
    ["10%\r50%\r100%\n", "100%\n"],
    ["abc\bd\n", "abd\n"],
    ["bell\x07\ttab\n", "bell\ttab\n"],
    ["no newline", "no newline"],
    ["\x1b[2K\rclean\n", "clean\n"]
  ]
  for (const [input, expected] of cases) {
    it(JSON.stringify(input), () => assert.strictEqual(toPlainText(input), expected))
  }

  it("turns a bare carriage return into a newline when asked", () => {
    assert.strictEqual(toPlainText("10%\r50%\r\n", { carriageReturn: "newline" }), "10%\n50%\n")
  })

  it("gives the same text whatever the chunking (escapes and UTF-8 split anywhere)", () => {
    const source = Buffer.from("héllo \x1b[31mwörld\x1b[0m\r\nprogress 1\rprogress 2\n€ end\x1b]0;t\x07\n", "utf8")
    const whole = toPlainText(source.toString("utf8"))
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: source.length - 1 }), { maxLength: 6 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b)
        const decoder = new PlainTextDecoder()
        let out = ""
        let from = 0
        for (const at of [...points, source.length]) {
          out += decoder.push(source.subarray(from, at))
          from = at
        }
        assert.strictEqual(out + decoder.end(), whole)
      }),
      { seed: 3, numRuns: 300 }
    )
  })

  it("holds a partial line until its newline, up to the limit", () => {
    const decoder = new PlainTextDecoder()
    assert.strictEqual(decoder.pushText("x".repeat(MAX_PENDING_LINE_CHARS)), "")
    assert.strictEqual(decoder.pending.length, MAX_PENDING_LINE_CHARS)
    assert.strictEqual(decoder.pushText("y"), "x".repeat(MAX_PENDING_LINE_CHARS) + "y")
    assert.strictEqual(decoder.pending, "")
  })

  it("strips control characters for notifications", () => {
    assert.strictEqual(stripControlCharacters("a\x1b[0mb\x07\tc\nd\x9b"), "a[0mb\tc\nd")
  })
})

describe("OutputCapture limits", () => {
  const limits = { memoryChars: 100, maxCapturedBytes: 1_000, headChars: 10, tailChars: 10 }
  const spillTo = () => {
    const file = path.join(makeDir(), "spill.output")
    return { file, path: () => file }
  }

  it("keeps exactly memoryChars in memory, spills at one more", () => {
    const a = spillTo()
    const inMemory = new OutputCapture(limits, a.path)
    inMemory.push(Buffer.from("x".repeat(99) + "\n"))
    const kept = inMemory.finish()
    assert.deepStrictEqual(kept, { kind: "text", text: "x".repeat(99) + "\n", totalBytes: 100 })
    assert.isFalse(fs.existsSync(a.file))

    const b = spillTo()
    const spilled = new OutputCapture(limits, b.path)
    spilled.push(Buffer.from("x".repeat(100) + "\n"))
    spilled.push(Buffer.from("tail line\n"))
    const out = spilled.finish()
    assert.strictEqual(out.kind === "text" ? out.text : "", "x".repeat(10))
    assert.strictEqual(out.kind === "text" ? out.tail : "", "tail line\n")
    assert.strictEqual(fs.readFileSync(b.file, "utf8"), "x".repeat(100) + "\ntail line\n")
  })

  it("caps the spill file at maxCapturedBytes exactly and counts the rest", () => {
    const a = spillTo()
    const capture = new OutputCapture(limits, a.path)
    for (let i = 0; i < 30; i++) capture.push(Buffer.from(`${"y".repeat(99)}\n`))
    const out = capture.finish()
    assert.strictEqual(fs.statSync(a.file).size, 1_000)
    assert.deepStrictEqual(out.kind === "text" ? out.spill : undefined, { path: a.file, bytes: 1_000, discardedBytes: 2_000 })
  })

  it("never cuts a UTF-8 character at the cap", () => {
    const a = spillTo()
    const capture = new OutputCapture({ ...limits, maxCapturedBytes: 200 }, a.path)
    capture.push(Buffer.from("é".repeat(150)))
    capture.finish()
    assert.strictEqual(fs.readFileSync(a.file, "utf8"), "é".repeat(100))
  })

  it("a NUL in the first 4096 bytes is binary; one at byte 4097 is not", () => {
    const a = spillTo()
    const binary = new OutputCapture({ ...limits, maxCapturedBytes: 10_000 }, a.path)
    const bytes = Buffer.alloc(BINARY_SNIFF_BYTES, 0x61)
    bytes[BINARY_SNIFF_BYTES - 1] = 0
    binary.push(bytes.subarray(0, 2000))
    binary.push(bytes.subarray(2000))
    assert.deepStrictEqual(binary.finish(), { kind: "binary", totalBytes: BINARY_SNIFF_BYTES, spill: { path: a.file, bytes: BINARY_SNIFF_BYTES, discardedBytes: 0 } })
    assert.deepStrictEqual(fs.readFileSync(a.file), bytes)

    const text = new OutputCapture({ ...limits, memoryChars: 10_000 }, spillTo().path)
    const later = Buffer.alloc(BINARY_SNIFF_BYTES + 1, 0x61)
    later[BINARY_SNIFF_BYTES] = 0
    text.push(later)
    assert.strictEqual(text.finish().kind, "text")
  })

  it("reports a spill file that cannot be created", () => {
    const capture = new OutputCapture(limits, () => "/nonexistent-dir-xyz/spill.output")
    capture.push(Buffer.from("z".repeat(300)))
    const out = capture.finish()
    assert.strictEqual(out.kind === "text" ? out.spill?.path : "x", undefined)
    assert.include(out.kind === "text" ? out.spill?.error : "", "ENOENT")
  })
})

describe("the PTY screen", () => {
  it.effect("serializes colours and styles back to ANSI", () =>
    Effect.gen(function*() {
      const screen = new Screen({ cols: 40, rows: 5, scrollback: 10 })
      screen.push("\x1b[1;31mbold red\x1b[0m \x1b[92mbright\x1b[0m \x1b[38;5;200mx\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m\r\nplain  \r\n")
      const ansi = yield* screen.render
      assert.strictEqual(ansi, "\x1b[1;31mbold red\x1b[0m \x1b[92mbright\x1b[0m \x1b[38;5;200mx\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m\nplain")
      screen.dispose()
    }))

  it.effect("keeps only the last window of a huge output", () =>
    Effect.gen(function*() {
      const screen = new Screen({ cols: 20, rows: 3, scrollback: 5 })
      for (let i = 0; i < 60_000; i++) screen.push(`line ${i}\r\n`)
      assert.isTrue(screen.truncated)
      const ansi = yield* screen.render
      assert.isTrue(ansi.endsWith("line 59999"))
      screen.dispose()
    }))
})
