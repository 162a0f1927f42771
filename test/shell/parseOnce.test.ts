/**
 * A command line is parsed once per call: validation, the blocked-sleep rule, the sed recogniser,
 * the permission subjects and paths, and the exit-code rule all read the one analysis. The scan
 * probe hears every scan of a line's text.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { analyzeCommand, CommandScanProbe } from "../../src/shell/command/analysis.js"
import { scan } from "../../src/shell/command/syntax.js"
import { call, codeOf, textOf, withSession } from "./helpers.js"

/** Runs one call with a counting probe; returns the result and the texts scanned. */
const countedCall = (args: unknown) =>
  Effect.gen(function*() {
    const scanned: Array<string> = []
    const result = yield* call("run_shell_command", args).pipe(Effect.provideService(CommandScanProbe, (source) => scanned.push(source)))
    return { result, scanned }
  })

describe("CommandAnalysis: one parse per call", () => {
  it("analyzeCommand scans a flat line once and each nested line once", () => {
    const flat: Array<string> = []
    const analysis = analyzeCommand("git status && grep -q x README.md | wc -l", (s) => flat.push(s))
    assert.deepStrictEqual(flat, ["git status && grep -q x README.md | wc -l"])
    assert.deepStrictEqual(analysis.roots, ["git", "grep", "wc"])
    assert.isTrue(analysis.readOnly)

    const nested: Array<string> = []
    const inner = analyzeCommand("bash -c 'ls $(pwd)' > out.txt", (s) => nested.push(s))
    // the line, the `bash -c` argument, the substitution: each scanned exactly once
    assert.deepStrictEqual(nested, ["bash -c 'ls $(pwd)' > out.txt", "ls $(pwd)", "pwd"])
    assert.isTrue(inner.substitution)
    assert.isFalse(inner.readOnly)
  })

  it.live("a foreground call (validate, permission, run, exit code) scans its line once", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "a.txt"), "one\ntwo\n")
        // grep's exit 1 (no match) is not an error: the exit-code rule read the same analysis
        const { result, scanned } = yield* countedCall({ command: "cat a.txt | grep -c nothing-here" })
        assert.strictEqual(codeOf(result), "Success", textOf(result))
        assert.deepStrictEqual(scanned, ["cat a.txt | grep -c nothing-here"])
      })))

  it.live("a call asking permission, and a refused one, scan once too", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const asked = yield* countedCall({ command: "echo hi > out.txt && bash -c 'echo $(whoami)'" })
        assert.strictEqual(codeOf(asked.result), "Success", textOf(asked.result))
        assert.deepStrictEqual(asked.scanned, ["echo hi > out.txt && bash -c 'echo $(whoami)'", "echo $(whoami)", "whoami"])

        const refused = yield* countedCall({ command: "sleep 5 && echo done" })
        assert.strictEqual(codeOf(refused.result), "invalid_tool_params")
        assert.deepStrictEqual(refused.scanned, ["sleep 5 && echo done"])
      })))

  it.live("a sed -i simulated as an edit, and a background shell, scan once too", () =>
    withSession({}, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "b.txt"), "foo\n")
        // the sed path: recognised from the analysis, refused for lack of a prior read
        const sed = yield* countedCall({ command: "sed -i 's/foo/bar/' b.txt" })
        assert.strictEqual(codeOf(sed.result), "edit_requires_prior_read", textOf(sed.result))
        assert.deepStrictEqual(sed.scanned, ["sed -i 's/foo/bar/' b.txt"])

        const background = yield* countedCall({ command: "sleep 30", is_background: true })
        assert.strictEqual(codeOf(background.result), "Success", textOf(background.result))
        assert.deepStrictEqual(background.scanned, ["sleep 30"])
      })))
})

describe("the sed recogniser reads the parsed line", () => {
  it("keeps the old answers and refuses what it cannot simulate faithfully", () => {
    const plain = analyzeCommand("sed -i 's/foo/bar/g' src/a.ts").sedEdit
    assert.deepStrictEqual(plain, { filePath: "src/a.ts", pattern: "foo", replacement: "bar", flags: "g", extendedRegex: false })
    // double quotes keep a backslash before `/` as bash does
    assert.strictEqual(analyzeCommand("sed -i \"s/a\\/b/c/\" f").sedEdit?.pattern, "a\\/b")
    for (const refused of [
      "sed -i 's/a/b/' f{1,2}.txt", // brace expansion names other files
      "sed -i 's/a/b/' f.txt;", // a closing operator
      "sed -i 's/a/b/' f.txt > log", // a redirection
      "sed -i 's/a/b/' $(echo f.txt)", // a substitution
      "sudo sed -i 's/a/b/' f.txt" // a wrapper
    ]) assert.isNull(analyzeCommand(refused).sedEdit, refused)
  })
})

describe("the scanner's one bracket closer", () => {
  it("a backtick protects a closing brace inside ${…}, as a $(…) does", () => {
    for (const line of ["echo ${x:-`echo }`}", "echo ${x:-$(echo })}"]) {
      const [, word, ...rest] = scan(line)
      assert.strictEqual(rest.length, 0, line)
      assert.strictEqual(word?.kind === "word" ? word.raw : "", line.slice(5), line)
    }
    assert.throws(() => scan("echo ${x"), /unterminated \$\{ expansion/)
    assert.throws(() => scan("echo $(x"), /unterminated command substitution/)
  })
})
