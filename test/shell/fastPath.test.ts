/**
 * The capture's fast path (SIMD plain scan, `\r\n` dropped in place, batched spill writes) and the
 * screen's byte window must give exactly what the decoder gives: checked against a character-by-
 * character reference of the plain-text rules, whatever the chunking.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fc from "fast-check"
import * as fs from "node:fs"
import * as path from "node:path"
import { OutputCapture, SPILL_BATCH_BYTES } from "../../src/shell/terminal/capture.js"
import { makePlainScanner, plainByRegExp, SCAN_WINDOW_BYTES } from "../../src/shell/terminal/plainScan.js"
import { PlainTextDecoder } from "../../src/shell/terminal/plainText.js"
import { Screen, SCREEN_WINDOW_BYTES } from "../../src/shell/terminal/screen.js"
import { makeDir } from "./helpers.js"

/** The plain-text rules one UTF-16 unit at a time (carriage return: overwrite), the oracle. */
const reference = (text: string): string => {
  let out = ""
  let line = ""
  let state: "normal" | "esc" | "escInter" | "csi" | "osc" | "oscEsc" | "str" | "strEsc" = "normal"
  let sawCr = false
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!
    const c = text.charCodeAt(i)
    switch (state) {
      case "normal":
        if (sawCr) {
          sawCr = false
          if (c === 10) {
            out += `${line}\n`
            line = ""
            continue
          }
          line = ""
        }
        if (c === 10) {
          out += `${line}\n`
          line = ""
        } else if (c === 13) sawCr = true
        else if (c === 27) state = "esc"
        else if (c === 0x9b) state = "csi"
        else if (c === 0x9d) state = "osc"
        else if (c === 0x90 || c === 0x98 || c === 0x9e || c === 0x9f) state = "str"
        else if (c === 8) line = line.slice(0, -1)
        else if (c === 9 || (c >= 32 && c !== 127 && !(c >= 0x80 && c <= 0x9f))) line += ch
        break
      case "esc":
        state = c === 91 ? "csi" : c === 93 ? "osc" : c === 80 || c === 88 || c === 94 || c === 95 ? "str" : c >= 0x20 && c <= 0x2f ? "escInter" : "normal"
        break
      case "escInter":
        if (!(c >= 0x20 && c <= 0x2f)) state = "normal"
        break
      case "csi":
        if (c >= 0x40 && c <= 0x7e) state = "normal"
        else if (c === 27) state = "esc"
        break
      case "osc":
        if (c === 7 || c === 0x9c) state = "normal"
        else if (c === 27) state = "oscEsc"
        break
      case "oscEsc":
        state = c === 92 ? "normal" : "osc"
        break
      case "str":
        if (c === 0x9c) state = "normal"
        else if (c === 27) state = "strEsc"
        break
      case "strEsc":
        state = c === 92 ? "normal" : "str"
        break
    }
  }
  return out + line
}

/** What a plain scan must answer: the bytes without `\r`, or undefined. */
const expectedScan = (bytes: Uint8Array): Buffer | undefined => {
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!
    if (c === 9 || c === 10 || (c >= 0x20 && c <= 0x7e) || (c === 13 && bytes[i + 1] === 10)) continue
    return undefined
  }
  return Buffer.from(bytes.filter((c) => c !== 13))
}

const sameScan = (got: Uint8Array | undefined, expected: Buffer | undefined) =>
  expected === undefined ? got === undefined : got !== undefined && Buffer.compare(Buffer.from(got), expected) === 0

// Terminal output pieces: plain and PTY lines, progress bars, escapes, UTF-8, controls (no NUL:
// that makes the output binary, a path of its own).
const token = fc.oneof(
  fc.stringMatching(/^[a-z0-9 ]{0,12}$/),
  fc.constantFrom("\n", "\r\n", "\r", "\t", "\b", "\x07", "\x01", "\x7f", "\u0085", "\u009b31m"),
  fc.constantFrom("\x1b[1;31m", "\x1b[0m", "\x1b]0;title\x07", "\x1b]8;;http://x\x1b\\", "\x1bP1$r\x1b\\", "\x1b(B", "\x1b"),
  fc.constantFrom("é", "€", "😀", "日本"),
  fc.constantFrom("10%\r50%\r100%\r\n", "line one\r\nline two\r\n", "x".repeat(40) + "\n")
)
const cutsOf = (length: number) => fc.array(fc.integer({ min: 0, max: length }), { maxLength: 8 }).map((cuts) => [...new Set(cuts)].sort((a, b) => a - b))
const chunked = (bytes: Buffer, cuts: ReadonlyArray<number>): Array<Buffer> => {
  const out: Array<Buffer> = []
  let from = 0
  for (const at of [...cuts, bytes.length]) {
    if (at > from) out.push(bytes.subarray(from, at))
    from = Math.max(from, at)
  }
  return out
}

describe("the plain scan", () => {
  it("runs on WebAssembly here, and the fallback is the regular expression", () => {
    assert.notStrictEqual(makePlainScanner(), plainByRegExp)
    assert.strictEqual(makePlainScanner(false), plainByRegExp)
  })

  it("agrees with the definition on any bytes, both implementations (and the capture's mix of them)", () => {
    const wasm = makePlainScanner(true, 0)
    const mixed = makePlainScanner()
    const byte = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
      { weight: 3, arbitrary: fc.constantFrom(9, 10, 13) },
      { weight: 1, arbitrary: fc.constantFrom(0, 8, 11, 27, 31, 127, 128, 0xc3, 0xff) }
    )
    fc.assert(
      fc.property(fc.array(byte, { maxLength: 200 }), (values) => {
        const bytes = Buffer.from(values)
        const expected = expectedScan(bytes)
        assert.isTrue(sameScan(wasm(bytes), expected), JSON.stringify(values))
        assert.isTrue(sameScan(plainByRegExp(bytes), expected), JSON.stringify(values))
        assert.isTrue(sameScan(mixed(bytes), expected), JSON.stringify(values))
      }),
      { seed: 11, numRuns: 2000 }
    )
  })

  it("handles the 64 KiB window edges: below, at, above, and a \\r\\n across windows", () => {
    const wasm = makePlainScanner()
    for (const size of [SCAN_WINDOW_BYTES - 1, SCAN_WINDOW_BYTES, SCAN_WINDOW_BYTES + 1, 2 * SCAN_WINDOW_BYTES + 5]) {
      const plain = Buffer.alloc(size, 0x61)
      plain[size - 1] = 10
      assert.strictEqual(wasm(plain), plain, `plain ${size}`)
      const crlf = Buffer.from(plain)
      crlf[size - 2] = 13
      assert.isTrue(sameScan(wasm(crlf), expectedScan(crlf)), `\\r\\n at the end, ${size}`)
      const control = Buffer.from(plain)
      control[size - 2] = 27
      assert.isUndefined(wasm(control), `escape at the end, ${size}`)
    }
    const across = Buffer.alloc(SCAN_WINDOW_BYTES + 10, 0x62)
    across[SCAN_WINDOW_BYTES - 1] = 13
    across[SCAN_WINDOW_BYTES] = 10
    assert.isTrue(sameScan(wasm(across), expectedScan(across)))
    across[SCAN_WINDOW_BYTES] = 0x63 // a lone \r at the window's end
    assert.isUndefined(wasm(across))
  })
})

describe("the capture's fast path gives the decoder's text", () => {
  const spillTo = () => {
    const file = path.join(makeDir(), "spill.output")
    return { file, path: () => file }
  }

  it("in memory and spilled, whatever the chunking", () => {
    fc.assert(
      fc.property(fc.array(token, { maxLength: 40 }).chain((tokens) => {
        const bytes = Buffer.from(tokens.join(""), "utf8")
        return fc.tuple(fc.constant(bytes), cutsOf(bytes.length))
      }), ([bytes, cuts]) => {
        const expected = reference(bytes.toString("utf8"))
        const inMemory = new OutputCapture({ memoryChars: 1 << 20, maxCapturedBytes: 1 << 20, headChars: 8, tailChars: 32 }, spillTo().path)
        for (const chunk of chunked(bytes, cuts)) inMemory.push(chunk)
        const kept = inMemory.finish()
        assert.strictEqual(kept.kind === "text" ? kept.text : "", expected)

        const target = spillTo()
        const spilled = new OutputCapture({ memoryChars: 8, maxCapturedBytes: 1 << 20, headChars: 8, tailChars: 32 }, target.path)
        for (const chunk of chunked(bytes, cuts)) spilled.push(chunk)
        const out = spilled.finish()
        if (out.kind !== "text" || out.spill === undefined) {
          assert.isAtMost(expected.length, 8)
          return
        }
        assert.isTrue(fs.readFileSync(target.file).equals(Buffer.from(expected, "utf8")))
        assert.strictEqual(out.text, expected.slice(0, 8))
        // the tail is read back from the bytes written (a lone surrogate is U+FFFD there too)
        assert.strictEqual(out.tail, Buffer.from(expected, "utf8").toString("utf8").slice(-32))
      }),
      { seed: 7, numRuns: 400 }
    )
  })

  it("a decoder that may hold part of a character takes the next line itself", () => {
    for (const memoryChars of [1 << 20, 0]) {
      const target = path.join(makeDir(), "spill.output")
      const capture = new OutputCapture({ memoryChars, maxCapturedBytes: 1 << 20, headChars: 64, tailChars: 64 }, () => target)
      capture.push(Buffer.from([0x61, 0xc3])) // "a" and the start of a 2-byte character
      capture.push(Buffer.from("bc\r\nde\n")) // which never comes
      const out = capture.finish()
      const text = memoryChars === 0 ? fs.readFileSync(target, "utf8") : out.kind === "text" ? out.text : ""
      assert.strictEqual(text, "a\uFFFDbc\nde\n")
    }
    const decoder = new PlainTextDecoder()
    decoder.push(Buffer.from([0xe2, 0x82]))
    assert.isFalse(decoder.isClean)
    assert.strictEqual(decoder.push(Buffer.from([0xac, 0x0a])), "€\n")
    assert.isTrue(decoder.isClean)
  })

  it("gathers small spill writes and keeps their order with large ones, up to the cap exactly", () => {
    const target = spillTo()
    const cap = 3 * SPILL_BATCH_BYTES + 12_345
    const capture = new OutputCapture({ memoryChars: 0, maxCapturedBytes: cap, headChars: 16, tailChars: 16 }, target.path)
    const expected: Array<string> = []
    let n = 0
    const small = () => {
      const line = `line ${n++}`
      expected.push(`${line}\n`)
      return Buffer.from(`${line}\r\n`)
    }
    for (let round = 0; round < 40; round++) {
      // ~4 KiB PTY-like chunks, then a 64 KiB pipe-like one
      for (let i = 0; i < 20; i++) capture.push(Buffer.concat(Array.from({ length: 40 }, small)))
      const big = `${"p".repeat(65_535)}\n`
      expected.push(big)
      capture.push(Buffer.from(big))
    }
    const all = expected.join("")
    const out = capture.finish()
    assert.strictEqual(out.kind === "text" ? out.spill?.bytes : -1, cap)
    assert.strictEqual(out.kind === "text" ? out.spill?.discardedBytes : -1, Buffer.byteLength(all) - cap)
    assert.isTrue(fs.readFileSync(target.file).equals(Buffer.from(all).subarray(0, cap)))
  })
})

describe("the screen keeps raw bytes", () => {
  it.effect("renders a character split across chunks", () =>
    Effect.gen(function*() {
      const screen = new Screen({ cols: 20, rows: 3, scrollback: 5 })
      screen.push(Buffer.from([0xe2, 0x82]))
      screen.push(Buffer.from([0xac]))
      screen.push(Buffer.from(" ok\r\n"))
      assert.strictEqual(yield* screen.render, "€ ok")
      screen.dispose()
    }))

  it.effect("replays only the lines the buffer can hold: the same screen as the tail alone", () =>
    Effect.gen(function*() {
      const size = { cols: 40, rows: 5, scrollback: 20 }
      const whole = new Screen(size)
      const tail = new Screen(size)
      for (let i = 0; i < 20_000; i++) {
        const line = Buffer.from(`\x1b[3${i % 8}mline ${i}\x1b[0m\r\n`)
        whole.push(line)
        if (i >= 20_000 - 100) tail.push(line)
      }
      const rendered = yield* whole.render
      assert.strictEqual(rendered, yield* tail.render)
      assert.isTrue(rendered.endsWith("\x1b[37mline 19999\x1b[0m"))
      whole.dispose()
      tail.dispose()
    }))

  it.effect("starts the window at a character boundary", () =>
    Effect.gen(function*() {
      const screen = new Screen({ cols: 120, rows: 30, scrollback: 10 })
      // 3-byte characters, no newline: the window's first byte falls inside a character
      const n = Math.ceil(SCREEN_WINDOW_BYTES / 3) + 7
      assert.notStrictEqual((3 * n - SCREEN_WINDOW_BYTES) % 3, 0)
      screen.push(Buffer.from("€".repeat(n)))
      const rendered = yield* screen.render
      assert.isFalse(rendered.includes("\uFFFD"))
      assert.isTrue(rendered.startsWith("€"))
      assert.isTrue(screen.truncated)
      screen.dispose()
    }))
})
