import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import type { Progress } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { MAX_PROGRESS_NOTIFICATIONS, MAX_PROGRESS_TEXT_CHARS, PROGRESS_INTERVAL_MS } from "../../src/serve/progress.js"
import { everythingEntry } from "../mcp/support.js"
import { connectServe, connectServeWith, repoRoot, tempDir } from "../support/serve.js"

const toolsModule = path.join(repoRoot, "test", "fixtures", "serve", "progressTools.mjs")

type Content = ReadonlyArray<{ readonly type: string; readonly text?: string }>

/** Calls a tool with a progress token (when `withToken`), collecting the notifications and the call's wall time. */
const callWithProgress = (client: Client, name: string, args: Record<string, unknown>, withToken = true) =>
  Effect.promise(async () => {
    const notes: Array<Progress> = []
    const started = Date.now()
    const result = await client.callTool(
      { name, arguments: args },
      undefined,
      withToken ? { onprogress: (p) => void notes.push(p), timeout: 600_000 } : { timeout: 600_000 }
    )
    return { result, notes, elapsedMs: Date.now() - started }
  })

/** Progress notifications the client got for tokens it did not hand out (a call without a token). */
const strayProgress = (client: Client): Array<string> => {
  const stray: Array<string> = []
  client.onerror = (error) => {
    if (/progress notification/i.test(error.message)) stray.push(error.message)
  }
  return stray
}

const assertIncreasing = (notes: ReadonlyArray<Progress>) => {
  for (let i = 1; i < notes.length; i++) assert.isAbove(notes[i]!.progress, notes[i - 1]!.progress, JSON.stringify(notes))
}

// Notifications of one call, at most one per interval: the call's wall time bounds their count.
const assertThrottled = (notes: ReadonlyArray<Progress>, elapsedMs: number) =>
  assert.isAtMost(notes.length, Math.floor(elapsedMs / PROGRESS_INTERVAL_MS) + 2, `${notes.length} notifications in ${elapsedMs} ms`)

describe("progress over MCP (serve door, the built CLI)", () => {
  it.live("shell output lines arrive as progress messages, in order, throttled; the result is the same without a token, which gets none", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const stray = strayProgress(client)
      const command = "for i in $(seq 1 60); do echo line $i; sleep 0.01; done"
      const live = yield* callWithProgress(client, "run_shell_command", { command })
      // In order, none lost: the lines since the last notification are in the result, not sent.
      const lines = live.notes.flatMap((n) => (n.message ?? "").split("\n")).filter((l) => l !== "")
      assert.isAbove(lines.length, 0)
      assert.deepStrictEqual(lines, Array.from({ length: lines.length }, (_, i) => `line ${i + 1}`))
      assert.isAbove(live.notes.length, 0)
      assert.isBelow(live.notes.length, 60, "coalesced: fewer messages than lines")
      assertThrottled(live.notes, live.elapsedMs)
      assertIncreasing(live.notes)

      const quiet = yield* callWithProgress(client, "run_shell_command", { command }, false)
      const samePgid = (result: unknown) => JSON.stringify(result).replace(/PGID: \d+/, "PGID: <pgid>")
      assert.strictEqual(samePgid(quiet.result), samePgid(live.result))
      assert.deepStrictEqual(stray, [])
    }), 120_000)

  it.live("a tool's own progress values and total go through; a streamed result's text too; final results unchanged", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--tools-module", toolsModule])
      const counted = yield* callWithProgress(client, "count_steps", { steps: 30, delayMs: 20 })
      assert.deepStrictEqual(counted.result.content, [{ type: "text", text: "counted 30 steps" }])
      assert.isAbove(counted.notes.length, 0)
      assertThrottled(counted.notes, counted.elapsedMs)
      assertIncreasing(counted.notes)
      for (const note of counted.notes) {
        assert.strictEqual(note.total, 30)
        // A coalesced message holds every step since the last one, each on its own line.
        assert.strictEqual((note.message ?? "").split("\n").at(-1), `step ${note.progress}`)
      }
      const steps = counted.notes.flatMap((n) => (n.message ?? "").split("\n"))
      assert.deepStrictEqual(steps, Array.from({ length: steps.length }, (_, i) => `step ${i + 1}`))

      const streamed = yield* callWithProgress(client, "stream_lines", { steps: 20, delayMs: 15 })
      const text = Array.from({ length: 20 }, (_, i) => `line ${i + 1}\n`).join("")
      assert.deepStrictEqual(streamed.result.content, [{ type: "text", text }])
      const relayed = streamed.notes.map((n) => `${n.message}\n`).join("")
      assert.isAbove(relayed.length, 0)
      assert.isTrue(text.startsWith(relayed), relayed)
      assertThrottled(streamed.notes, streamed.elapsedMs)
    }), 120_000)

  it.live("an upstream server's progress is relayed with the host's token", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const config = path.join(state, "mcp.json")
      fs.writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingEntry() } }))
      const client = yield* connectServe(["--root", root, "--state-dir", state, "--config", config])
      const stray = strayProgress(client)
      const tool = "mcp__everything__trigger-long-running-operation"
      const { notes, result } = yield* callWithProgress(client, tool, { duration: 1, steps: 5 })
      const text = (result.content as Content).map((c) => c.text ?? "").join("")
      assert.include(text, "Long running operation completed")
      assert.isAbove(notes.length, 0)
      assertIncreasing(notes)
      for (const note of notes) {
        assert.strictEqual(note.total, 5)
        assert.isAtMost(note.progress, 5)
      }
      assert.deepStrictEqual(stray, [])
    }), 120_000)

  it.live("a 1 GiB shell output with a token: bounded notifications, small server RSS growth, the full text saved", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const { client, pid } = yield* connectServeWith({
        args: ["--root", root, "--state-dir", state],
        // Pipes, not the PTY (the kernel's PTY moves ~30 MB/s here); the session's budget has room for 1 GiB.
        extraEnv: { TOOLWRIGHT_SHELL_PTY: "off", TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES: String(2 * 1024 ** 3) }
      })
      const rssOf = (field: "VmRSS" | "VmHWM") =>
        Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN) / 1024
      const before = rssOf("VmRSS")
      const { notes, result } = yield* callWithProgress(client, "run_shell_command", { command: "yes | head -c 1G", timeout: 600_000 })
      const peak = rssOf("VmHWM")
      const text = (result.content as Content).map((c) => c.text ?? "").join("")
      const file = /The full output has been saved to: (\S+)/.exec(text)?.[1]
      assert.isDefined(file, text.slice(0, 500))
      assert.strictEqual(fs.statSync(file!).size, 1024 ** 3)
      assert.isAbove(notes.length, 0)
      assert.isAtMost(notes.length, MAX_PROGRESS_NOTIFICATIONS)
      assert.isAtMost(notes.reduce((n, note) => n + (note.message ?? "").length, 0), MAX_PROGRESS_TEXT_CHARS)
      assertIncreasing(notes)
      console.log(`1 GiB with a progress token: ${notes.length} notifications, server RSS ${before.toFixed(0)} MiB → peak ${peak.toFixed(0)} MiB`)
      assert.isBelow(peak - before, 64)
    }), 600_000)
})
