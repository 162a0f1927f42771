/**
 * FIFOs, character devices and a socket inside the root (made with mkfifo and mknod: the suite runs
 * as root): every file tool called on them, or walking a directory that holds them, answers within a
 * second with a typed error or a sane result, and leaves no blocked reader behind (the next calls on
 * regular files still answer at once).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { Effect } from "effect"
import { type Answer, arena, count, describeAnswers, emptyTally, writeReport } from "./support.js"

/** The issue's bound: a typed error (or a sane result) within a second. */
const WITHIN_MS = 1_000

const isRoot = typeof process.getuid === "function" && process.getuid() === 0

/** Character devices by major/minor: null, zero, urandom, tty (no controlling terminal: ENXIO). mknod needs root. */
const devices: ReadonlyArray<readonly [string, number, number]> = isRoot
  ? [["null", 1, 3], ["zero", 1, 5], ["urandom", 1, 9], ["tty", 5, 0]]
  : []

const callsOn = (rel: string): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
  ["read_file", { file_path: rel }],
  ["read_file", { file_path: rel, offset: 10, limit: 5 }],
  ["edit", { file_path: rel, old_string: "a", new_string: "b" }],
  ["edit", { file_path: rel, old_string: "", new_string: "b" }],
  ["write_file", { file_path: rel, content: "b" }],
  ["grep_search", { pattern: "a", path: rel }],
  ["glob", { pattern: "*", path: rel }],
  ["list_directory", { path: rel }],
  // read first, then the edits that need a prior read
  ["read_file", { file_path: rel }],
  ["edit", { file_path: rel, old_string: "a", new_string: "b" }],
  ["write_file", { file_path: rel, content: "b" }]
]

describe("abuse: FIFOs and devices inside the root", () => {
  it.live("every file tool answers within a second and nothing is left blocked", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const special = path.join(a.root, "special")
      fs.mkdirSync(special)
      fs.writeFileSync(path.join(a.root, "regular.txt"), "a regular file\n")
      execFileSync("mkfifo", [path.join(special, "fifo"), path.join(special, "fifo.ipynb")])
      for (const [name, major, minor] of devices) {
        execFileSync("mknod", [path.join(special, name), "c", String(major), String(minor)])
      }
      if (isRoot) execFileSync("mknod", [path.join(special, "zero.ipynb"), "c", "1", "5"])
      const socket = yield* Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<net.Server>((resolve) => {
            const server = net.createServer((conn) => conn.end())
            server.listen(path.join(special, "sock"), () => resolve(server))
          })
        ),
        (server) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      assert.isTrue(socket.listening)
      const names = ["fifo", ...devices.map(([name]) => name), "sock"]
      const tally = emptyTally()
      const answers: Array<Answer> = []
      // One at a time: each answer's time is its own.
      for (const name of names) {
        for (const [tool, args] of callsOn(`special/${name}`)) answers.push(yield* a.call(tool, args, 5_000))
      }
      for (const nb of isRoot ? ["special/fifo.ipynb", "special/zero.ipynb"] : ["special/fifo.ipynb"]) {
        answers.push(yield* a.call("notebook_edit", { notebook_path: nb, cell_id: "c1", new_source: "x" }, 5_000))
        answers.push(yield* a.call("read_file", { file_path: nb }, 5_000))
        answers.push(yield* a.call("notebook_edit", { notebook_path: nb, edit_mode: "insert", new_source: "x" }, 5_000))
      }
      // Walks over a directory that holds them.
      for (
        const [tool, args] of [
          ["grep_search", { pattern: "a" }],
          ["grep_search", { pattern: "a", path: "special" }],
          ["grep_search", { pattern: "a", path: "special", glob: "*" }],
          ["glob", { pattern: "**/*" }],
          ["glob", { pattern: "special/*" }],
          ["list_directory", { path: "special" }]
        ] as const
      ) answers.push(yield* a.call(tool, args, 5_000))
      // Nothing left blocked: regular calls still answer at once.
      const after = [
        yield* a.call("read_file", { file_path: "regular.txt" }, 5_000),
        yield* a.call("grep_search", { pattern: "regular", path: "regular.txt" }, 5_000),
        yield* a.call("list_directory", { path: "." }, 5_000)
      ]
      for (const answer of [...answers, ...after]) count(tally, answer)
      tally.crashes += a.alive() ? 0 : 1
      writeReport("abuse-special-files", { "fifos-devices": tally })

      const bad = answers.filter((answer) =>
        answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang" || answer.ms > WITHIN_MS
      )
      assert.strictEqual(bad.length, 0, `${bad.length} of ${answers.length} calls:\n${describeAnswers(bad.map((x) => ({ ...x, text: `${Math.round(x.ms)} ms ${x.text}` })), 20)}`)
      assert.deepStrictEqual(after.map((answer) => answer.kind), ["ok", "ok", "ok"], describeAnswers(after))
      assert.isTrue(after.every((answer) => answer.ms <= WITHIN_MS))
      // The special files are still what they were: no tool replaced a FIFO or device with a regular file.
      assert.isTrue(fs.lstatSync(path.join(special, "fifo")).isFIFO())
      for (const [name] of devices) assert.isTrue(fs.lstatSync(path.join(special, name)).isCharacterDevice(), name)
      assert.isTrue(a.alive())
    }), 120_000)
})
