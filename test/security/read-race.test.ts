/**
 * Check and read the same thing (issue 15, read side): a process flips, as fast as it can,
 * (a) `f.txt` and the 10 MB `big.txt` inside the root between a regular file and a symbolic link
 * to a file outside, and (b) the directory `dir` between a real directory and a link to the outside
 * directory, while read_file runs through the built serve door (`npm run build` first): whole
 * reads, offset/limit pages and streamed pages of the large file. Not one response may carry the
 * outside files' marker. Before read_file verified the descriptor it opened, the path was checked
 * once and opened again later, and the outside content came back.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

const ROUNDS = 400
const MARKER = "OUTSIDE-SECRET-MARKER"

/**
 * Flips each `name` in `dir` until killed: for `file` entries between a hard link of `keep` (a
 * regular file) and a symlink to `outside`; for `dir` entries between a symlink to `keep` (a real
 * directory inside) and a symlink to `outside`. Every flip is atomic (rename over the name).
 */
const SWAPPER = `
const fs = require("node:fs")
const [dir, ...rest] = process.argv.slice(1)
const entries = []
for (let i = 0; i < rest.length; i += 4) entries.push(rest.slice(i, i + 4))
process.stdout.write("ready\\n")
for (let n = 0; ; n++) {
  for (const [kind, name, keep, outside] of entries) {
    const tmp = dir + "/.swap-" + name
    try { fs.unlinkSync(tmp) } catch {}
    if (n % 2 === 0) fs.symlinkSync(outside, tmp)
    else if (kind === "file") fs.linkSync(keep, tmp)
    else fs.symlinkSync(keep, tmp)
    fs.renameSync(tmp, dir + "/" + name)
  }
}
`

const swapper = (dir: string, entries: ReadonlyArray<readonly [string, string, string, string]>) =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof spawn>>((resume) => {
      const child = spawn(process.execPath, ["-e", SWAPPER, dir, ...entries.flat()], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout!.once("data", () => resume(Effect.succeed(child)))
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

const call = (client: Client, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name: "read_file", arguments: args })
    const code = result._meta?.["toolwright/errorType"]
    const outcome = result.isError === true ? (typeof code === "string" ? code : "untyped") : "ok"
    return { outcome, leaked: JSON.stringify(result.content).includes(MARKER) }
  })

/** About 10.5 MB of numbered lines: above the 10 MB streaming threshold. */
const bigText = (label: string) => {
  const lines: Array<string> = []
  for (let i = 0; i < 220_000; i++) lines.push(`${label} line ${i} ${"x".repeat(32)}`)
  return lines.join("\n") + "\n"
}

describe("a symlink swapped while read_file runs", () => {
  it.live(`${ROUNDS} rounds against a swapper: no response carries the outside content`, () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const outside = yield* tempDir("tw-outside-")
      const state = yield* tempDir("tw-state-")
      const keep = path.join(root, "keep")
      fs.mkdirSync(path.join(keep, "dir"), { recursive: true })
      fs.writeFileSync(path.join(keep, "f.txt"), "inside text\n")
      fs.writeFileSync(path.join(keep, "dir", "f.txt"), "inside dir text\n")
      fs.writeFileSync(path.join(keep, "big.txt"), bigText("inside"))
      fs.writeFileSync(path.join(outside, "secret.txt"), `${MARKER}\n`)
      fs.writeFileSync(path.join(outside, "f.txt"), `${MARKER}\n`)
      fs.writeFileSync(path.join(outside, "big.txt"), bigText(MARKER))
      fs.linkSync(path.join(keep, "f.txt"), path.join(root, "f.txt"))
      fs.linkSync(path.join(keep, "big.txt"), path.join(root, "big.txt"))
      fs.symlinkSync(path.join(keep, "dir"), path.join(root, "dir"))
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      yield* swapper(root, [
        ["file", "f.txt", path.join(keep, "f.txt"), path.join(outside, "secret.txt")],
        ["file", "big.txt", path.join(keep, "big.txt"), path.join(outside, "big.txt")],
        ["dir", "dir", path.join(keep, "dir"), outside]
      ])
      const outcomes = new Map<string, number>()
      let leaks = 0
      for (let round = 0; round < ROUNDS; round++) {
        const reads: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
          ["f", { file_path: "f.txt" }],
          ["f-page", { file_path: "f.txt", offset: 0, limit: 5 }],
          ["dir", { file_path: "dir/f.txt" }],
          ["dir-page", { file_path: "dir/f.txt", offset: 0, limit: 1 }],
          ["big", { file_path: "big.txt", offset: round % 50, limit: 3 }]
        ]
        for (const [label, args] of reads) {
          const { leaked, outcome } = yield* call(client, args)
          if (leaked) leaks++
          const key = `${label}:${outcome}`
          outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
        }
      }
      const summary = [...outcomes].map(([k, v]) => `${k}=${v}`).sort().join(" ")
      console.error(`read race, ${ROUNDS} rounds: leaks=${leaks} ${summary}`)
      assert.strictEqual(leaks, 0, `responses carrying the outside marker (${summary})`)
      for (const [key] of outcomes) assert.notInclude(key, "untyped", summary)
      // The race was real: reads succeeded inside while others were refused.
      for (const label of ["f-page", "dir-page", "big"]) assert.isAbove(outcomes.get(`${label}:ok`) ?? 0, 0, summary)
    }), 240_000)
})
