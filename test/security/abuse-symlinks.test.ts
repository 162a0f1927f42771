/**
 * Symbolic links planted inside the root that point out (to a file, a directory, a dangling name,
 * `/`, through a chain, in a loop), and links swapped in between a `read_file` and the `edit` or
 * `write_file` that follows it (sequentially, then raced by a swapper process): nothing outside is
 * read (no canary in any result, no outside name in a listing) and nothing outside changes.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import {
  type Answer,
  type Arena,
  arena,
  CANARY,
  changedEntries,
  count,
  describeAnswers,
  emptyTally,
  snapshot,
  writeReport
} from "./support.js"

/** Names that exist only in the outside tree: a listing that shows one has walked out. */
const OUTSIDE_NAME = /secret(?: file)?\.txt|inner\.txt|id_rsa|\.bashrc|notebook\.ipynb/

/** Plants the links; returns the link names (relative to the root) that lead out. */
const plantLinks = (a: Arena): Array<string> => {
  const link = (name: string, target: string) => {
    fs.mkdirSync(path.dirname(path.join(a.root, name)), { recursive: true })
    fs.symlinkSync(target, path.join(a.root, name))
  }
  const up = path.relative(a.root, a.outside)
  link("lf", path.join(a.outside, "secret.txt"))
  link("lrel", `${up}/secret.txt`)
  link("ld", path.join(a.outside, "dir"))
  link("lh", a.home)
  link("lroot", "/")
  link("ldangle", path.join(a.outside, "created-through-link.txt"))
  link("ldangledir", path.join(a.outside, "newdir"))
  link("c2", path.join(a.outside, "secret.txt"))
  link("c1", "c2")
  link("sub/lup2", "../..")
  link("nb.ipynb", path.join(a.outside, "notebook.ipynb"))
  link("loop1", "loop2")
  link("loop2", "loop1")
  return [
    "lf",
    "lrel",
    "ld",
    "ld/inner.txt",
    "lh",
    "lh/.ssh",
    "lh/.ssh/id_rsa",
    `lroot${a.outside}/secret.txt`,
    `lroot${a.outside}`,
    "ldangle",
    "ldangledir",
    "ldangledir/x.txt",
    "c1",
    `sub/lup2/${path.basename(a.outside)}/secret.txt`,
    `sub/lup2/${path.basename(a.outside)}`,
    "nb.ipynb",
    "loop1",
    "loop1/x"
  ]
}

const callsFor = (p: string): ReadonlyArray<readonly [string, Record<string, unknown>]> => [
  ["read_file", { file_path: p }],
  ["edit", { file_path: p, old_string: "needle line", new_string: "PWNED" }],
  ["edit", { file_path: p, old_string: "", new_string: "PWNED" }],
  ["write_file", { file_path: p, content: "PWNED" }],
  ["notebook_edit", { notebook_path: p, cell_id: "c1", new_source: "PWNED" }],
  ["grep_search", { pattern: "needle|CANARY", path: p }],
  ["glob", { pattern: "**/*", path: p }],
  ["list_directory", { path: p }],
  ["run_shell_command", { command: "cat * .* 2>/dev/null; touch pwned-by-shell; true", directory: p }]
]

/** Names after the header line: the header quotes the pattern (`sub/lup2/*\/secret.txt`), which lists nothing. */
const listsOutside = (answer: Answer): boolean =>
  answer.kind === "ok" && (answer.name === "glob" || answer.name === "grep_search" || answer.name === "list_directory") &&
  OUTSIDE_NAME.test(answer.text.split("\n").slice(1).join("\n"))

describe("abuse: symbolic links inside the root that point out", () => {
  it.live("planted links (file, directory, dangling, /, chain, loop) lead nowhere outside", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const links = plantLinks(a)
      const before = snapshot(a.outside)
      const tally = emptyTally()
      const direct = yield* Effect.all(
        links.flatMap((p) => callsFor(p).map(([tool, args]) => a.call(tool, args, 5_000))),
        { concurrency: 12 }
      )
      // Whole-root walks must not descend through the links either.
      const walks = yield* Effect.all([
        a.call("grep_search", { pattern: "needle|CANARY" }),
        a.call("grep_search", { pattern: "needle|CANARY", path: "." }),
        a.call("glob", { pattern: "**/*" }),
        a.call("glob", { pattern: "**/*.txt" }),
        a.call("glob", { pattern: "ld/**" }),
        a.call("glob", { pattern: "ld/*" }),
        a.call("glob", { pattern: "lh/**/*" }),
        a.call("glob", { pattern: "lh/.ssh/*" }),
        a.call("glob", { pattern: `lroot${a.outside}/**` }),
        a.call("glob", { pattern: "sub/lup2/*/secret.txt" }),
        a.call("grep_search", { pattern: "needle|CANARY", glob: "ld/**" }),
        a.call("list_directory", { path: "." })
      ], { concurrency: 4 })
      const answers = [...direct, ...walks]
      for (const answer of answers) count(tally, answer)
      const changed = changedEntries(before, snapshot(a.outside))
      const listed = answers.filter(listsOutside)
      tally.escapes += changed.length + listed.length
      tally.crashes += a.alive() ? 0 : 1
      writeReport("abuse-symlinks", { "planted-links": tally })

      const bad = answers.filter((answer) =>
        answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang" || answer.text.includes(CANARY)
      )
      assert.deepStrictEqual(changed, [], "files outside the root changed")
      assert.strictEqual(bad.length, 0, describeAnswers(bad))
      assert.strictEqual(listed.length, 0, `outside names listed:\n${describeAnswers(listed)}`)
      // A call on an outside link is refused outright (not merely empty).
      const refusedReads = direct.filter((answer) => answer.name === "read_file" && answer.code === "path_not_in_workspace")
      assert.isAtLeast(refusedReads.length, links.length - 3)
      assert.isTrue(a.alive())
    }), 120_000)

  it.live("a file or its directory swapped for a link between read_file and edit/write_file: nothing outside changes", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const before = snapshot(a.outside)
      const tally = emptyTally()
      const rounds = 25
      const answers: Array<Answer> = []
      const twinOf = (rel: string) => fs.readFileSync(path.join(a.outside, rel))
      for (let i = 0; i < rounds; i++) {
        // 1. the file itself becomes a link to an outside file with the very same bytes
        const file = path.join(a.root, `s${i}.txt`)
        fs.writeFileSync(file, twinOf("secret.txt"))
        answers.push(yield* a.call("read_file", { file_path: `s${i}.txt` }))
        fs.rmSync(file)
        fs.symlinkSync(path.join(a.outside, "secret.txt"), file)
        answers.push(yield* a.call("edit", { file_path: `s${i}.txt`, old_string: "needle line", new_string: "PWNED" }))
        answers.push(yield* a.call("write_file", { file_path: `s${i}.txt`, content: "PWNED" }))
        // 2. the parent directory becomes a link to an outside directory holding a twin file
        const dir = path.join(a.root, `d${i}`)
        fs.mkdirSync(dir)
        fs.writeFileSync(path.join(dir, "inner.txt"), twinOf("dir/inner.txt"))
        answers.push(yield* a.call("read_file", { file_path: `d${i}/inner.txt` }))
        fs.renameSync(dir, `${dir}.moved`)
        fs.symlinkSync(path.join(a.outside, "dir"), dir)
        answers.push(yield* a.call("edit", { file_path: `d${i}/inner.txt`, old_string: "needle line", new_string: "PWNED" }))
        answers.push(yield* a.call("write_file", { file_path: `d${i}/inner.txt`, content: "PWNED" }))
        answers.push(yield* a.call("write_file", { file_path: `d${i}/created.txt`, content: "PWNED" }))
      }
      for (const answer of answers) count(tally, answer)
      const changed = changedEntries(before, snapshot(a.outside))
      // The twin inside the root carries the canary bytes on purpose: only outside changes count here.
      tally.escapes = changed.length
      writeReport("abuse-symlink-swap", { "swapped-links": tally })
      const writesLanded = answers.filter((answer) => answer.name !== "read_file" && answer.kind === "ok")
      const bad = answers.filter((answer) => answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang")
      assert.deepStrictEqual(changed, [], "files outside the root changed")
      assert.strictEqual(writesLanded.length, 0, describeAnswers(writesLanded))
      assert.strictEqual(bad.length, 0, describeAnswers(bad))
    }), 120_000)

  it.live("a swapper process racing read_file → edit → write_file: nothing outside changes", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const before = snapshot(a.outside)
      const tally = emptyTally()
      const rounds = Number(process.env.TW_ABUSE_RACE_ROUNDS ?? 100)
      const target = path.join(a.root, "race.txt")
      const content = fs.readFileSync(path.join(a.outside, "secret.txt"))
      fs.writeFileSync(target, content)
      // The swapper flips race.txt between a regular twin of the outside file and a link to it.
      const swapper = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn("bash", ["-c", `
            cd "$1"; while :; do
              cp -p "$2" .twin && mv -fT .twin race.txt
              ln -sfn "$2" .link && mv -fT .link race.txt
            done`, "swapper", a.root, path.join(a.outside, "secret.txt")], { stdio: "ignore", detached: true })
        ),
        (child) => Effect.sync(() => child.pid !== undefined && process.kill(-child.pid, "SIGKILL"))
      )
      assert.isDefined(swapper.pid)
      const answers: Array<Answer> = []
      for (let i = 0; i < rounds; i++) {
        answers.push(yield* a.call("read_file", { file_path: "race.txt", offset: 0, limit: 5 }))
        answers.push(yield* a.call("edit", { file_path: "race.txt", old_string: "needle line", new_string: `PWNED ${i}` }))
        answers.push(yield* a.call("write_file", { file_path: "race.txt", content: `PWNED ${i}` }))
      }
      process.kill(-swapper.pid!, "SIGKILL")
      for (const answer of answers) count(tally, answer)
      const changed = changedEntries(before, snapshot(a.outside))
      // The twin inside the root carries the canary bytes on purpose: only outside changes count here.
      tally.escapes = changed.length
      writeReport("abuse-symlink-race", { "raced-links": tally })
      const bad = answers.filter((answer) => answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang")
      assert.deepStrictEqual(changed, [], "files outside the root changed")
      assert.strictEqual(bad.length, 0, describeAnswers(bad))
      assert.isTrue(a.alive())
    }), 180_000)
})
