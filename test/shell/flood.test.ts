import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Effect } from "effect"
import { DEFAULT_OUTPUT_LIMITS } from "../../src/output/config.js"
import type { CallSuccess } from "../../src/tool/outcome.js"
import { withRssPeak } from "../support/rss.js"
import { call, codeOf, ptyLoads, textOf, withSession } from "./helpers.js"

const GIB = 1024 * 1024 * 1024

describe("a 1 GiB output flood", () => {
  // Pipes, not the PTY: the kernel's PTY moves a flood at ~30 MB/s here (a bare node-pty read
  // included), while pipes do 1 GiB in seconds. The capture path (and its memory bound) is the same.
  // The spill file draws on the session's output budget (500 MiB by default): this session has room for it.
  it.live("completes with bounded memory and persists the full output", () =>
    withSession({ settings: { pty: "off" }, outputLimits: { ...DEFAULT_OUTPUT_LIMITS, maxSessionOutputBytes: 2 * GIB } }, () =>
      Effect.gen(function*() {
        const started = Date.now()
        const { value: r, growthMiB, baselineMiB, peakMiB } = yield* withRssPeak(
          call("run_shell_command", { command: "yes | head -c 1G", timeout: 600_000 }),
          25
        )
        const seconds = (Date.now() - started) / 1000
        assert.strictEqual(codeOf(r), "Success", textOf(r).slice(0, 500))
        const text = textOf(r)
        const file = /The full output has been saved to: (\S+)/.exec(text)?.[1]
        assert.isDefined(file)
        try {
          assert.strictEqual(fs.statSync(file!).size, GIB)
          const head = Buffer.alloc(6)
          const fd = fs.openSync(file!, "r")
          fs.readSync(fd, head, 0, 6, 0)
          const tail = Buffer.alloc(6)
          fs.readSync(fd, tail, 0, 6, GIB - 6)
          fs.closeSync(fd)
          assert.strictEqual(head.toString(), "y\ny\ny\n")
          assert.strictEqual(tail.toString(), "y\ny\ny\n")
          assert.strictEqual(((r as CallSuccess).data as { outputBytes: number }).outputBytes, GIB)
          assert.isBelow(text.length, 6_000)
          console.log(`1 GiB flood: ${seconds.toFixed(1)} s, RSS baseline ${baselineMiB.toFixed(0)} MiB, peak ${peakMiB.toFixed(0)} MiB (+${growthMiB.toFixed(0)} MiB)`)
          // bounded: the 1 GiB never lives in memory (1 MiB text window, 64 KiB head and tail)
          assert.isBelow(growthMiB, 256)
        } finally {
          fs.rmSync(file!, { force: true })
        }
      })), 300_000)

  // The PTY path: every line arrives as `\r\n`, proven plain by the SIMD scan and written without
  // its `\r`, in gathered writes; the spill file must hold the plain text byte for byte.
  it.live("a PTY flood persists every line, \\r\\n as \\n, under the PTY", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const bytes = 4 * 1024 * 1024
        const r = yield* call("run_shell_command", { command: `yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c ${bytes}`, timeout: 120_000 })
        assert.strictEqual(codeOf(r), "Success", textOf(r).slice(0, 500))
        const data = (r as CallSuccess).data as { backend: string; outputBytes: number; outputFile?: string }
        assert.strictEqual(data.backend, ptyLoads() ? "pty" : "child_process")
        const file = data.outputFile!
        try {
          const saved = fs.readFileSync(file)
          assert.strictEqual(saved.length, bytes)
          const lines = bytes / 37
          assert.strictEqual(saved.toString("latin1"), "0123456789abcdefghijklmnopqrstuvwxyz\n".repeat(Math.ceil(lines)).slice(0, bytes))
          // the terminal turned each \n into \r\n: the raw count has one more byte a line
          assert.strictEqual(data.outputBytes, data.backend === "pty" ? bytes + Math.floor(lines) : bytes)
          assert.match(textOf(r), /0123456789abcdefghijklmnopqrstuvwxyz\n/)
          assert.notInclude(textOf(r), "\r")
        } finally {
          fs.rmSync(file, { force: true })
        }
      })), 120_000)
})
