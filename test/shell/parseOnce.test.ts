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
})
