// Issue 20's must-shows: 1 GiB of shell output and a custom tool's 1 GiB text stream each pass
// through a real session's output pipeline with peak RSS growth ≤ 64 MiB (sampled every 50 ms in
// this process, which runs the pipeline), and the full text ends in the output store with the
// expected size and SHA-256. In the `slow` project (see vitest.config.ts).
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { Effect, Schema, Stream } from "effect"
import { DEFAULT_OUTPUT_LIMITS } from "../../src/output/config.js"
import { OutputStore } from "../../src/output/store.js"
import { Scheduler } from "../../src/run/scheduler.js"
import { defineTool, Kind, streamResult } from "../../src/tool/index.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText, type LlmPart } from "../../src/tool/result.js"
import { call, codeOf, withSession } from "../shell/helpers.js"
import { withRssPeak } from "../support/rss.js"
import { testSession } from "../support/session.js"

const GIB = 1024 * 1024 * 1024
const CHUNK = 64 * 1024
const LIMITS = { ...DEFAULT_OUTPUT_LIMITS, maxOutputFileBytes: 2 * GIB, maxSessionOutputBytes: 4 * GIB }

const textOf = (r: CallResult): string => (r._tag === "Success" ? llmText(r.llmContent) : r.message)

/** `sha256sum` of a file, by another process. */
const sha256sumOf = (file: string): string => execFileSync("sha256sum", [file], { encoding: "utf8" }).split(" ")[0]!

/** One 64 KiB chunk of 64-char lines, each naming its chunk and line. */
const chunkText = (i: number): string => {
  const lines: Array<string> = []
  for (let line = 0; line < CHUNK / 64; line++) lines.push(`chunk ${i} line ${line} `.padEnd(63, "-") + "\n")
  return lines.join("")
}

/** A custom tool whose output is a stream of `chunks` generated 64 KiB text chunks. */
const generator = defineTool({
  name: "generate_text",
  displayName: "Generate text",
  description: "Streams generated text.",
  kind: Kind.Read,
  params: Schema.Struct({ chunks: Schema.Int.annotate({ description: "64 KiB chunks" }) }),
  invoke: (params) =>
    Effect.succeed({
      description: `generate ${params.chunks} chunks`,
      execute: () =>
        Effect.succeed(streamResult(
          Stream.unfold(0, (i) => Effect.succeed(i < params.chunks ? [{ type: "text", text: chunkText(i) } as LlmPart, i + 1] as const : undefined))
        ))
    })
})

describe("1 GiB through the output pipeline", () => {
  it.live("a custom tool's 1 GiB text stream: peak RSS growth ≤ 64 MiB, the full text in the output store", () => {
    const chunks = GIB / CHUNK
    const expected = createHash("sha256")
    for (let i = 0; i < chunks; i++) expected.update(chunkText(i))
    const digest = expected.digest("hex")
    const s = testSession([generator], { mode: "yolo", outputLimits: LIMITS })
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const store = yield* OutputStore
      yield* scheduler.runOne({ callId: "warm", name: "generate_text", args: { chunks: 1 } }) // load the tool first
      const { value: r, growthMiB, baselineMiB } = yield* withRssPeak(
        scheduler.runOne({ callId: "big", name: "generate_text", args: { chunks } })
      )
      const text = textOf(r)
      assert.strictEqual(r._tag, "Success", text.slice(0, 500))
      const file = /Full output saved to: (\S+)/.exec(text)?.[1]
      assert.isDefined(file, text.slice(0, 500))
      const saved = (yield* store.list).find((e) => e.path === file)
      assert.strictEqual(saved?.bytes, GIB)
      assert.strictEqual(saved?.sha256, digest)
      assert.strictEqual(saved?.lines, GIB / 64)
      assert.include(text, `SHA-256: ${digest}`)
      assert.strictEqual(fs.statSync(file!).size, GIB)
      assert.strictEqual(sha256sumOf(file!), digest)
      console.log(`custom tool 1 GiB stream: RSS baseline ${baselineMiB.toFixed(0)} MiB, growth ${growthMiB.toFixed(1)} MiB`)
      assert.isAtMost(growthMiB, 64)
      fs.rmSync(file!, { force: true })
    }).pipe(Effect.provide(s.layer))
  }, 600_000)

  // Pipes, not the PTY (see test/shell/flood.test.ts: the capture path is the same).
  it.live("1 GiB of shell output: peak RSS growth ≤ 64 MiB, the full text in the output store", () =>
    withSession({ settings: { pty: "off" }, outputLimits: LIMITS }, () =>
      Effect.gen(function*() {
        const line = "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456"
        const command = `yes ${line} | head -c ${GIB}`
        const digest = execFileSync("sh", ["-c", `${command} | sha256sum`], { encoding: "utf8" }).split(" ")[0]!
        const store = yield* OutputStore
        yield* call("run_shell_command", { command: "true" }) // load the tool first
        const { value: r, growthMiB, baselineMiB } = yield* withRssPeak(
          call("run_shell_command", { command, timeout: 600_000 })
        )
        const text = textOf(r)
        assert.strictEqual(codeOf(r), "Success", text.slice(0, 500))
        const file = /The full output has been saved to: (\S+)/.exec(text)?.[1]
        assert.isDefined(file, text.slice(0, 500))
        assert.match(file!, /\/run_shell_command_[0-9a-f]{16}\.output$/)
        const saved = (yield* store.list).find((e) => e.path === file)
        assert.strictEqual(saved?.bytes, GIB)
        assert.strictEqual(saved?.sha256, digest)
        assert.strictEqual(fs.statSync(file!).size, GIB)
        assert.strictEqual(sha256sumOf(file!), digest)
        console.log(`shell 1 GiB output: RSS baseline ${baselineMiB.toFixed(0)} MiB, growth ${growthMiB.toFixed(1)} MiB`)
        assert.isAtMost(growthMiB, 64)
        fs.rmSync(file!, { force: true })
      })), 600_000)
})
