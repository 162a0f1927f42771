/**
 * Path spellings × tools: every built-in tool that takes a path is called with many spellings of
 * files and directories outside the workspace root (absolute, `..` chains, `./../`, trailing
 * slashes, shell escapes, `~`, unicode look-alikes, NUL bytes, very long paths, `/proc/self/root`,
 * `/proc/self/cwd/..`). Each must answer a typed error (or, for a spelling that stays inside the
 * root, any typed answer), no result may show an outside file's bytes, and nothing outside changes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as path from "node:path"
import { Effect } from "effect"
import {
  type Answer,
  arena,
  CANARY,
  changedEntries,
  count,
  describeAnswers,
  emptyTally,
  relativeOutside,
  snapshot,
  writeReport
} from "./support.js"

/** Whether a spelling surely points outside the root (`out`) or may stay inside it (`maybe`). */
type Reach = "out" | "maybe"

interface Spelling {
  readonly label: string
  readonly path: string
  readonly reach: Reach
}

/** Spellings of `rel` (a path inside the outside tree, `""` for its top) seen from the root. */
const spellingsOf = (root: string, outside: string, rel: string): Array<Spelling> => {
  const abs = rel === "" ? outside : path.join(outside, rel)
  const up = relativeOutside({ root, outside })
  const relUp = rel === "" ? up : `${up}/${rel}`
  const name = path.basename(outside)
  const depth = root.split("/").length + 2
  const out = (label: string, p: string): Spelling => ({ label, path: p, reach: "out" })
  const maybe = (label: string, p: string): Spelling => ({ label, path: p, reach: "maybe" })
  const escapeSpaces = (p: string) => p.replace(/ /g, "\\ ")
  return [
    out("absolute", abs),
    out("relative ..", relUp),
    out("./..", `./${relUp}`),
    out("../ chain to /", `${"../".repeat(depth)}${abs.slice(1)}`),
    out("in and out", `sub/../${relUp}`),
    out("deep in and out", `a/b/c/../../../${relUp}`),
    out("dot segments", `${outside}/./${rel}`),
    out("absolute with ..", `${outside}/dir/../${rel}`),
    out("root then ..", `${root}/../${name}/${rel}`),
    out("trailing slash", `${abs}/`),
    out("trailing /.", `${abs}/.`),
    out("double slashes", `/${abs.replace(/\//g, "//")}`),
    out("surrounding whitespace", ` ${abs}\t`),
    out("newline after", `${relUp}\n`),
    out("shell-escaped spaces", escapeSpaces(abs)),
    out("shell-escaped relative", escapeSpaces(relUp)),
    out("escaped metacharacters", `${up}/\\(${""}..\\)/../${rel}`),
    out("/proc/self/root", `/proc/self/root${abs}`),
    out("/proc/self/cwd/..", `/proc/self/cwd/../${name}/${rel}`),
    out("/proc/thread-self/root", `/proc/thread-self/root${abs}`),
    out("/dev/fd style", `/dev/fd/../../${abs.slice(1)}`),
    out("long .. chain", `${"x/".repeat(2000)}${"../".repeat(2000)}${relUp}`),
    out("very long ../ prefix", `${"../".repeat(4000)}${abs.slice(1)}`),
    maybe("NUL inside", `${abs}\u0000.txt`),
    maybe("NUL prefix", `\u0000${relUp}`),
    maybe("NUL after a safe name", `safe.txt\u0000/../${relUp}`),
    maybe("very long component", `${"x".repeat(5000)}/${relUp}`),
    maybe("escaped dots", `\\.\\./${name}/${rel}`),
    maybe("backslash separators", relUp.replace(/\//g, "\\")),
    maybe("percent-encoded", `%2e%2e/${name}/${rel}`),
    maybe("file URL", `file://${abs}`),
    maybe("one dot leader", `\u2024\u2024/${name}/${rel}`),
    maybe("two dot leader", `\u2025/${name}/${rel}`),
    maybe("fullwidth full stops", `\uFF0E\uFF0E/${name}/${rel}`),
    maybe("division slash", `..\u2215${name}\u2215${rel}`),
    maybe("fullwidth solidus", `..\uFF0F${name}\uFF0F${rel}`),
    maybe("combining dot", `.\u0307./${name}/${rel}`),
    maybe("zero-width joiner", `.\u200D./${name}/${rel}`),
    maybe("right-to-left override", `\u202E../${name}/${rel}`),
    maybe("tilde", `~/${rel}`),
    maybe("escaped tilde", `\\~/${rel}`),
    maybe("tilde user", `~root/${rel}`),
    maybe("$HOME", `$HOME/${rel}`),
    maybe("${HOME}", `\${HOME}/${rel}`)
  ]
}

/** Fixed spellings that reach sensitive places outside any root, tried once per tool. */
const systemSpellings: ReadonlyArray<Spelling> = [
  { label: "/proc/self/environ", path: "/proc/self/environ", reach: "out" },
  { label: "/proc/self/cmdline", path: "/proc/self/cmdline", reach: "out" },
  { label: "/proc/self/fd/0", path: "/proc/self/fd/0", reach: "out" },
  { label: "/proc/self/root", path: "/proc/self/root", reach: "out" },
  { label: "/", path: "/", reach: "out" },
  { label: "/etc/passwd", path: "/etc/passwd", reach: "out" },
  { label: "/dev/zero", path: "/dev/zero", reach: "out" },
  { label: "/dev/stdin", path: "/dev/stdin", reach: "out" },
  { label: "/proc/self/cwd/..", path: "/proc/self/cwd/..", reach: "out" }
]

/** The path-taking tools, each as a function of the spelling to the arguments of one call. */
const pathCalls: ReadonlyArray<{ readonly tool: string; readonly args: (p: string) => Record<string, unknown> }> = [
  { tool: "read_file", args: (p) => ({ file_path: p }) },
  { tool: "edit", args: (p) => ({ file_path: p, old_string: "needle line", new_string: "PWNED by edit" }) },
  { tool: "edit", args: (p) => ({ file_path: p, old_string: "", new_string: "PWNED by edit create" }) },
  { tool: "write_file", args: (p) => ({ file_path: p, content: "PWNED by write_file" }) },
  { tool: "notebook_edit", args: (p) => ({ notebook_path: p, cell_id: "c1", new_source: "PWNED" }) },
  { tool: "grep_search", args: (p) => ({ pattern: "needle|CANARY", path: p }) },
  { tool: "glob", args: (p) => ({ pattern: "**/*", path: p }) },
  { tool: "list_directory", args: (p) => ({ path: p }) },
  {
    tool: "run_shell_command",
    args: (p) => ({ command: "cat * .* 2>/dev/null; touch pwned-by-shell; pwd", directory: p })
  }
]

/** Outside targets: files, directories, a notebook, and names that do not exist yet (for creation). */
const targets = ["secret.txt", "secret file.txt", "dir", "notebook.ipynb", "home/.ssh/id_rsa", "newdir/new.txt"]

/** Runs effects `concurrency` at a time, in order. */
const runAll = <A>(effects: ReadonlyArray<Effect.Effect<A>>, concurrency = 12) => Effect.all(effects, { concurrency })

/** An answer breaks the rules when it is untyped, lost, hung, shows a canary, or succeeds on an outside spelling. */
const broken = (answer: Answer, reach: Reach): boolean =>
  answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang" ||
  answer.text.includes(CANARY) || (reach === "out" && answer.kind === "ok")

describe("abuse: path spellings outside the root × every path-taking tool", () => {
  it.live("every spelling gives a typed error, nothing outside is read or changed", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const before = snapshot(a.outside)
      const tally = emptyTally()
      const cases = targets.flatMap((rel) => spellingsOf(a.root, a.outside, rel)).concat(systemSpellings)
      const answers = yield* runAll(
        cases.flatMap((spelling) =>
          pathCalls.map(({ args, tool }) =>
            a.call(tool, args(spelling.path), 5_000).pipe(Effect.map((answer) => ({ answer, spelling })))
          )
        )
      )
      for (const { answer } of answers) count(tally, answer)
      const changed = changedEntries(before, snapshot(a.outside))
      tally.escapes += changed.length
      tally.crashes += a.alive() ? 0 : 1
      const bad = answers.filter(({ answer, spelling }) => broken(answer, spelling.reach))
      writeReport("abuse-paths", { "path-spellings": tally })

      assert.deepStrictEqual(changed, [], "files outside the root changed")
      assert.isTrue(a.alive(), "the server died")
      assert.strictEqual(
        bad.length,
        0,
        `${bad.length} of ${answers.length} calls broke the boundary or were untyped:\n` +
          describeAnswers(bad.map(({ answer, spelling }) => ({ ...answer, name: `${answer.name} (${spelling.label})` })))
      )
      // An outside spelling is refused for what it is, not by accident of the tool.
      const outsideRefusals = answers.filter(({ answer, spelling }) => spelling.reach === "out" && answer.code === "path_not_in_workspace")
      assert.isAbove(outsideRefusals.length, answers.filter(({ spelling }) => spelling.reach === "out").length / 2)
      const ping = yield* a.call("list_directory", { path: "." })
      assert.strictEqual(ping.kind, "ok")
    }), 120_000)

  it.live("glob and grep patterns that climb out of the root find nothing outside", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const before = snapshot(a.outside)
      const tally = emptyTally()
      const up = relativeOutside(a)
      const name = path.basename(a.outside)
      const patterns = [
        `${up}/**`,
        `${up}/*`,
        `../**/${name}/**`,
        `${a.outside}/**`,
        `${a.outside}/*.txt`,
        `**/../../${name}/**`,
        `./../${name}/**`,
        `/proc/self/cwd/../${name}/**`,
        `/proc/self/root${a.outside}/**`,
        `{${up},.}/**`,
        `${up}/{secret.txt,dir/*}`,
        `..\\/${name}/**`,
        `../*/secret.txt`,
        `/**/secret.txt`,
        `~/**`,
        `~/.ssh/*`
      ]
      const calls = patterns.flatMap((pattern) => [
        a.call("glob", { pattern }, 5_000),
        a.call("glob", { pattern, path: "." }, 5_000),
        a.call("grep_search", { pattern: "needle|CANARY", glob: pattern }, 5_000),
        a.call("grep_search", { pattern: "needle|CANARY", glob: pattern, path: "." }, 5_000)
      ].map(Effect.map((answer) => ({ answer, pattern }))))
      const pairs = yield* runAll(calls)
      const answers = pairs.map(({ answer }) => answer)
      for (const answer of answers) count(tally, answer)
      const changed = changedEntries(before, snapshot(a.outside))
      tally.escapes += changed.length
      // A listing that names an outside file leaks it too (glob shows names, not bytes); the
      // pattern itself, echoed in the answer, does not count.
      const named = pairs.filter(({ answer, pattern }) =>
        answer.kind === "ok" && /secret\.txt|inner\.txt|id_rsa/.test(answer.text.split(pattern).join(""))
      ).map(({ answer }) => answer)
      tally.escapes += named.length
      writeReport("abuse-patterns", { "climbing-patterns": tally })
      const bad = answers.filter((answer) =>
        answer.kind === "untyped" || answer.kind === "protocol" || answer.kind === "hang" || answer.text.includes(CANARY)
      )
      assert.deepStrictEqual(changed, [])
      assert.strictEqual(bad.length, 0, describeAnswers(bad))
      assert.strictEqual(named.length, 0, `outside names listed:\n${describeAnswers(named)}`)
      assert.isTrue(a.alive())
    }), 120_000)
})

describe("abuse: output resource URIs (the serve door's resources/read)", () => {
  it.live("crafted toolwright://output/ URIs name no file: a typed MCP error, nothing outside is read", () =>
    Effect.gen(function*() {
      const a = yield* arena()
      const name = path.basename(a.outside)
      const uris = [
        `toolwright://output/..%2F..%2F${name}%2Fsecret.txt`,
        `toolwright://output/../../${name}/secret.txt`,
        `toolwright://output/${encodeURIComponent(`${a.outside}/secret.txt`)}`,
        "toolwright://output/..",
        "toolwright://output/.",
        "toolwright://output/%2e%2e",
        "toolwright://output/%00",
        "toolwright://output/%E0%A4%A",
        "toolwright://output/__proto__",
        "toolwright://output/constructor",
        "toolwright://output/x?offset=-1",
        "toolwright://output/x?offset=1e400&limit=0",
        "toolwright://output/x?path=/etc/passwd",
        `toolwright://output/${"a".repeat(100_000)}`,
        `file://${a.outside}/secret.txt`,
        "file:///proc/self/environ",
        `${a.outside}/secret.txt`,
        ""
      ]
      const tally = emptyTally()
      const answers = yield* Effect.all(
        uris.map((uri) =>
          Effect.promise(async (): Promise<Answer> => {
            const started = performance.now()
            try {
              const result = await a.client.readResource({ uri }, { timeout: 5_000 })
              const text = JSON.stringify(result)
              return { name: "resources/read", args: uri, kind: "ok", code: undefined, text, ms: performance.now() - started }
            } catch (error) {
              const text = error instanceof Error ? error.message : String(error)
              // An MCP error answer (resource not found, invalid params) is the typed refusal here.
              const typed = /MCP error -32002|MCP error -32602/.test(text)
              return { name: "resources/read", args: uri, kind: typed ? "typed" : /timed out/i.test(text) ? "hang" : "untyped", code: text.match(/MCP error (-\d+)/)?.[1], text, ms: performance.now() - started }
            }
          })
        ),
        { concurrency: 4 }
      )
      for (const answer of answers) count(tally, answer)
      writeReport("abuse-resources", { "output-resource-uris": tally })
      const bad = answers.filter((answer) => answer.kind !== "typed" || answer.text.includes(CANARY))
      assert.strictEqual(bad.length, 0, describeAnswers(bad))
      assert.isTrue(a.alive())
    }), 60_000)
})
