// Issue 20: a read_file page of 256+ MiB (a whole file read with no character budget) streams
// through a real session's output pipeline with peak RSS growth ≤ 64 MiB (sampled every 50 ms in
// this process, which reads the file and runs the pipeline), and the whole page ends in the output
// store with the expected size and SHA-256. In the `slow` project (see vitest.config.ts).
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { DEFAULT_OUTPUT_LIMITS } from "../../src/output/config.js"
import { OutputStore } from "../../src/output/store.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"
import { withRssPeak } from "../support/rss.js"
import { testSession } from "../support/session.js"

const GIB = 1024 * 1024 * 1024
const LIMITS = { ...DEFAULT_OUTPUT_LIMITS, truncateChars: Infinity, maxOutputFileBytes: 2 * GIB, maxSessionOutputBytes: 4 * GIB }
const LINES = 2_700_000 // of 100 bytes: 270 MB
const BLOCK = 10_000 // lines written at once

const block = (first: number): string => {
  const rows: Array<string> = []
  for (let i = first; i < first + BLOCK && i < LINES; i++) rows.push(`${i}:`.padEnd(99, "x") + "\n")
  return rows.join("")
}

const textOf = (r: CallResult): string => (r._tag === "Success" ? llmText(r.llmContent) : r.message)

describe("read_file: a 270 MB page through the output pipeline", () => {
  it.live("peak RSS growth ≤ 64 MiB, the whole page in the output store", () => {
    const s = testSession([], { builtins: true, mode: "yolo", outputLimits: LIMITS })
    const file = path.join(s.root, "huge.txt")
    const header = "Showing a long page of huge.txt from line 1; the lines shown and the file's line count follow the page.\n\n---\n\n"
    const trailer = `\n\n---\n\n[Shown: lines 1-${LINES} of ${LINES} total lines of huge.txt.]`
    const expected = createHash("sha256").update(header)
    const fd = fs.openSync(file, "w")
    for (let first = 0; first < LINES; first += BLOCK) {
      const rows = block(first)
      fs.writeSync(fd, rows)
      expected.update(first + BLOCK >= LINES ? rows.slice(0, -1) : rows) // the page has no final line break
    }
    fs.closeSync(fd)
    const digest = expected.update(trailer).digest("hex")
    const bytes = LINES * 100 - 1 + header.length + trailer.length
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const store = yield* OutputStore
      yield* scheduler.runOne({ callId: "warm", name: "read_file", args: { file_path: "huge.txt", limit: 1 } }) // load the tool first
      const { value: r, growthMiB, baselineMiB } = yield* withRssPeak(
        scheduler.runOne({ callId: "big", name: "read_file", args: { file_path: "huge.txt", limit: LINES } })
      )
      const text = textOf(r)
      assert.strictEqual(r._tag, "Success", text.slice(0, 500))
      assert.isBelow(text.length, 60_000)
      assert.include(text, trailer.trim())
      const saved = /saved to: (\S+)/.exec(text)?.[1]
      assert.isDefined(saved, text.slice(0, 500))
      const entry = (yield* store.list).find((e) => e.path === saved)
      assert.strictEqual(entry?.bytes, bytes)
      assert.strictEqual(entry?.sha256, digest)
      assert.strictEqual(execFileSync("sha256sum", [saved!], { encoding: "utf8" }).split(" ")[0], digest)
      console.log(`read_file 270 MB page: RSS baseline ${baselineMiB.toFixed(0)} MiB, growth ${growthMiB.toFixed(1)} MiB`)
      assert.isAtMost(growthMiB, 64)
      fs.rmSync(saved!, { force: true })
      fs.rmSync(file, { force: true })
    }).pipe(Effect.provide(s.layer))
  }, 600_000)
})
