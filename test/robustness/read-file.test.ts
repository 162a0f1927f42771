/**
 * read_file on a single line of any length, through the built serve door: answered with the first
 * page quickly, memory bounded, and the server keeps answering other calls meanwhile (issue 23).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { tempDir } from "../support/serve.js"
import { peakRss, serveProcess } from "./servedProcess.js"

const MB = 1024 * 1024

/** Writes a file of `size` bytes holding one line (no line break) in 8 MiB blocks. */
const oneLine = (file: string, size: number) => {
  const block = Buffer.alloc(8 * MB, "a")
  const fd = fs.openSync(file, "w")
  for (let written = 0; written < size; written += block.length) {
    fs.writeSync(fd, block, 0, Math.min(block.length, size - written))
  }
  fs.closeSync(fd)
}

const PAGE_CHARS = 25_000

describe("robustness: read_file on a single-line file of any length", () => {
  it.live("200 MB on one line: the first page within 10 s, peak RSS bounded, list_directory answered within 1 s meanwhile", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-longline-")
      const state = yield* tempDir("tw-longline-state-")
      fs.writeFileSync(path.join(root, "small.txt"), "hello\n")
      const big = path.join(root, "one-line.txt")
      oneLine(big, 200 * MB)
      const served = yield* serveProcess(["--root", root, "--state-dir", state])
      const warm = yield* Effect.promise(() => served.call("list_directory", { path: "." }))
      assert.isUndefined(warm.code, warm.text)
      const rssBefore = peakRss(served.pid)

      const [read, listing] = yield* Effect.promise(() =>
        Promise.all([
          served.call("read_file", { file_path: big }),
          // Sent right behind the read: answered while (or after) the read runs, never stuck behind it.
          new Promise<Awaited<ReturnType<typeof served.call>>>((resolve, reject) =>
            setTimeout(() => served.call("list_directory", { path: "." }).then(resolve, reject), 20))
        ])
      )
      assert.isUndefined(read.code, read.text)
      assert.isBelow(read.ms, 10_000, `read_file took ${read.ms} ms`)
      assert.include(read.text, `Showing lines 1-1 of at least 1 total lines.`)
      assert.include(read.text, "a".repeat(PAGE_CHARS) + "... [truncated]")
      assert.notInclude(read.text, "a".repeat(PAGE_CHARS + 1))
      assert.isUndefined(listing.code, listing.text)
      assert.include(listing.text, "one-line.txt")
      assert.isBelow(listing.ms, 1_000, `list_directory took ${listing.ms} ms`)

      // Today's server sits near 100 MB; the quadratic reader reached 2.3 GB. A page of 25,000
      // characters may cost a few reads of at most 1 MiB, never a share of the 200 MB.
      const rssAfter = peakRss(served.pid)
      assert.isDefined(rssBefore)
      assert.isDefined(rssAfter)
      assert.isBelow(rssAfter! - rssBefore!, 64 * MB, `peak RSS grew from ${rssBefore} to ${rssAfter}`)

      // Reading on past the line (offset 1) scans it once, in bounded reads, and finds its end.
      const past = yield* Effect.promise(() => served.call("read_file", { file_path: big, offset: 1 }))
      assert.strictEqual(past.code, "invalid_tool_params", past.text)
      assert.include(past.text, "which has 1 lines")
      assert.isBelow(past.ms, 10_000, `read_file past the line took ${past.ms} ms`)
      const rssEnd = peakRss(served.pid)!
      assert.isBelow(rssEnd - rssBefore!, 64 * MB)
      process.stderr.write(
        `read_file 200 MB one line: first page ${read.ms.toFixed(0)} ms, list_directory meanwhile ${listing.ms.toFixed(0)} ms, ` +
          `offset past the line ${past.ms.toFixed(0)} ms; VmHWM ${(rssBefore! / MB).toFixed(0)} → ${(rssAfter! / MB).toFixed(0)} → ` +
          `${(rssEnd / MB).toFixed(0)} MiB\n`
      )
    }), 120_000)

  it.live("5, 20 and 40 MB on one line: every first page well within 10 s (the growth is linear, not quadratic)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-longline-")
      const state = yield* tempDir("tw-longline-state-")
      const served = yield* serveProcess(["--root", root, "--state-dir", state])
      const figures: Array<string> = []
      for (const size of [5, 20, 40]) {
        const file = path.join(root, `line-${size}.txt`)
        oneLine(file, size * MB)
        const read = yield* Effect.promise(() => served.call("read_file", { file_path: file }))
        assert.isUndefined(read.code, read.text)
        assert.include(read.text, "a".repeat(PAGE_CHARS) + "... [truncated]")
        assert.isBelow(read.ms, 10_000, `${size} MB took ${read.ms} ms`)
        figures.push(`${size} MB: ${read.ms.toFixed(0)} ms`)
        fs.rmSync(file)
      }
      process.stderr.write(`read_file one-line first page: ${figures.join(", ")}\n`)
    }), 120_000)
})
