import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { DRAIN_MARK_PREFIX, makeDrainMark } from "../../src/shell/terminal/drainMark.js"
import { loadNodePty, spawnPty } from "../../src/shell/terminal/spawn.js"
import { makeDir, ptyLoads } from "./helpers.js"

const collect = () => {
  const chunks: Array<Buffer> = []
  return { sink: (c: Buffer) => void chunks.push(Buffer.from(c)), text: () => Buffer.concat(chunks).toString("latin1") }
}

describe("drain mark filter", () => {
  it("takes the mark out wherever reads split it, and passes everything else on in order", () => {
    const probe = makeDrainMark(() => undefined, Buffer.alloc(8, 0xab))
    const stream = Buffer.concat([Buffer.from("before\x1b]not-it\x07 \x1b"), probe.bytes, Buffer.from("after")])
    for (let a = 0; a <= stream.length; a++) {
      for (const b of [a, Math.min(stream.length, a + 1), Math.min(stream.length, a + 7), stream.length]) {
        const out = collect()
        const mark = makeDrainMark(out.sink, Buffer.alloc(8, 0xab))
        mark.arm()
        const seen = [stream.subarray(0, a), stream.subarray(a, b), stream.subarray(b)].map((c) => mark.feed(c))
        assert.strictEqual(out.text(), "before\x1b]not-it\x07 \x1bafter", `split at ${a}/${b}`)
        assert.strictEqual(seen.filter(Boolean).length, 1)
        assert.isTrue(mark.seen())
      }
    }
  })

  it("holds back only what could start the mark, and hands it on at the end of the stream", () => {
    const out = collect()
    const mark = makeDrainMark(out.sink, Buffer.alloc(8, 1))
    mark.arm()
    assert.isFalse(mark.feed(Buffer.from(`x${DRAIN_MARK_PREFIX}`)))
    assert.strictEqual(out.text(), "x")
    // Another nonce: not the mark, handed on once that is clear.
    assert.isFalse(mark.feed(Buffer.from("FFFF\x07y")))
    assert.strictEqual(out.text(), `x${DRAIN_MARK_PREFIX}FFFF\x07y`)
    assert.isFalse(mark.feed(Buffer.from("\x1b]TW")))
    mark.flush()
    assert.strictEqual(out.text(), `x${DRAIN_MARK_PREFIX}FFFF\x07y\x1b]TW`)
    assert.isFalse(mark.seen())
  })

  it("passes everything through untouched until armed, and after the mark went by", () => {
    const out = collect()
    const mark = makeDrainMark(out.sink)
    mark.feed(mark.bytes)
    assert.strictEqual(out.text(), mark.bytes.toString("latin1"), "not armed: not looked for")
    mark.arm()
    mark.feed(Buffer.concat([Buffer.from("a"), mark.bytes, Buffer.from("b")]))
    mark.feed(mark.bytes)
    assert.strictEqual(out.text(), `${mark.bytes.toString("latin1")}ab${mark.bytes.toString("latin1")}`)
    assert.match(mark.bytes.toString("latin1"), /^\x1b\]TW-DRAIN-[0-9A-F]{16}\x07$/)
  })
})

describe("drain mark on a real PTY", () => {
  // Each command's last bytes are written just before it exits: they must all arrive, and the
  // mark must never show.
  const runPty = (command: string) =>
    Effect.gen(function*() {
      const pty = yield* loadNodePty()
      const out = collect()
      const spawned = yield* spawnPty(pty, { shell: "/bin/bash", command, cwd: makeDir(), env: { ...process.env, PATH: process.env.PATH ?? "" } as Record<string, string>, onData: out.sink })
      const exit = yield* spawned.exited
      return { text: out.text(), exit }
    })

  it.live("forty short commands: every trailing byte arrives, the mark never shows", () =>
    Effect.gen(function*() {
      if (!ptyLoads()) return assert.isFalse(ptyLoads(), "node-pty does not load here: the PTY path is not used")
      for (let i = 0; i < 40; i++) {
        const { text, exit } = yield* runPty(`printf 'tail-%d' ${i}`)
        assert.strictEqual(text, `tail-${i}`)
        assert.strictEqual(exit.exitCode, 0)
      }
    }), 60_000)

  it.live("output that looks like the mark, or ends in the start of one, arrives as it was written", () =>
    Effect.gen(function*() {
      if (!ptyLoads()) return assert.isFalse(ptyLoads(), "node-pty does not load here: the PTY path is not used")
      const other = yield* runPty("printf 'a\\033]TW-DRAIN-0000000000000000\\007b'")
      assert.strictEqual(other.text, "a\x1b]TW-DRAIN-0000000000000000\x07b")
      const partial = yield* runPty("printf 'x\\033]TW-DRAIN-'")
      assert.strictEqual(partial.text, "x\x1b]TW-DRAIN-")
    }), 30_000)

  it.live("a burst written right before exit arrives whole", () =>
    Effect.gen(function*() {
      if (!ptyLoads()) return assert.isFalse(ptyLoads(), "node-pty does not load here: the PTY path is not used")
      const { text } = yield* runPty("head -c 300000 /dev/zero | tr '\\0' a")
      assert.strictEqual(text.length, 300_000)
      assert.match(text, /^a+$/)
    }), 30_000)
})
