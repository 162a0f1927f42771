/**
 * Shell permission rules and approval decisions through the built serve door (`npm run build`
 * first): redirections under a command-prefix allow rule, and read-only commands reading outside
 * the roots. The test client offers no elicitation, so a call that needs approval is refused —
 * and a refused call must leave the outside untouched.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text: string }>
interface CallOutcome {
  readonly isError?: boolean
  readonly content: Content
  readonly _meta?: Record<string, unknown>
}
const textOf = (result: CallOutcome) => result.content.map((c) => c.text).join("\n")
const errorTypeOf = (result: CallOutcome) => result._meta?.["toolwright/errorType"]

const setup = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const root = yield* tempDir("tw-sp-root-")
    const outside = yield* tempDir("tw-sp-outside-")
    const state = yield* tempDir("tw-sp-state-")
    execFileSync("git", ["init", "-q", root])
    fs.writeFileSync(path.join(root, "inside.txt"), "inside text\n")
    const client = yield* connectServe(["--root", root, "--state-dir", state, ...args])
    const run = (command: string) =>
      Effect.promise(() => client.callTool({ name: "run_shell_command", arguments: { command } }) as Promise<CallOutcome>)
    return { root, outside, run }
  })

describe("shell permission through `toolwright serve` (built CLI)", () => {
  it.live("a prefix allow rule does not cover write redirections; /dev/null and 2>&1 still run", () =>
    Effect.gen(function*() {
      const { outside, root, run } = yield* setup(["--approval", "default", "--allow", "run_shell_command(git status*)"])
      const target = path.join(outside, "file")
      const original = "must stay\n"
      fs.writeFileSync(target, original)
      const relative = path.relative(root, target)
      const forms = [
        `git status > ${target}`,
        `git status >> ${target}`,
        `git status 2> ${target}`,
        `git status 2>&1 > ${target}`,
        `git status &> ${target}`,
        `git status >| ${target}`,
        `git status > ${relative}`,
        `git status >"${target}"`
      ]
      for (const command of forms) {
        const result = yield* run(command)
        assert.isTrue(result.isError, `${command} ran without approval: ${textOf(result)}`)
        assert.notStrictEqual(errorTypeOf(result), "shell_execute_error", `${command} ran: ${textOf(result)}`)
        assert.strictEqual(fs.readFileSync(target, "utf8"), original, `${command} changed the outside file`)
      }
      // Inside the root too: the allow rule names a command, not the files it may write.
      const insideWrite = yield* run("git status > status.txt")
      assert.isTrue(insideWrite.isError)
      assert.isFalse(fs.existsSync(path.join(root, "status.txt")))

      for (const command of ["git status > /dev/null", "git status 2>&1", "git status --short 2>/dev/null"]) {
        const result = yield* run(command)
        assert.isUndefined(result.isError, `${command}: ${textOf(result)}`)
        assert.match(textOf(result), /Exit Code: 0/)
      }
    }).pipe(Effect.scoped), 60_000)

  it.live("in the default mode a read-only command reading outside the roots is not run without approval", () =>
    Effect.gen(function*() {
      const { outside, run } = yield* setup(["--approval", "default"])
      const secret = path.join(outside, "secret")
      fs.writeFileSync(secret, "TOP-SECRET-VALUE\n")
      for (const command of [`cat ${secret}`, `head -n 1 < ${secret}`, `cd ${outside} && cat secret`, `grep -r SECRET ${outside}`, `echo ${secret} | xargs cat`, `ls ~`, "cd && ls -a"]) {
        const result = yield* run(command)
        assert.isTrue(result.isError, `${command} ran without approval`)
        assert.notInclude(textOf(result), "TOP-SECRET-VALUE", command)
        assert.notMatch(textOf(result), /Exit Code:/, `${command} ran`)
      }
      const inside = yield* run("cat inside.txt")
      assert.isUndefined(inside.isError, textOf(inside))
      assert.include(textOf(inside), "inside text")
      const pipeline = yield* run("cat inside.txt | grep -c inside")
      assert.isUndefined(pipeline.isError, textOf(pipeline))
    }).pipe(Effect.scoped), 60_000)

  it.live("a read-only command through a link planted inside that points out asks too", () =>
    Effect.gen(function*() {
      const { outside, root, run } = yield* setup(["--approval", "default"])
      fs.writeFileSync(path.join(outside, "secret"), "LINKED-SECRET\n")
      fs.symlinkSync(outside, path.join(root, "door"))
      fs.mkdirSync(path.join(root, "src"))
      fs.writeFileSync(path.join(root, "src", "a.ts"), "export const a = 1\n")
      for (const command of ["cat door/secret", "cat */secret", "cd door && cat secret", "grep -R LINKED .", "cat d*/s*"]) {
        const result = yield* run(command)
        assert.isTrue(result.isError, `${command} ran without approval`)
        assert.notInclude(textOf(result), "LINKED-SECRET", command)
      }
      // Globs and walks that stay inside still run unasked.
      const inside = yield* run("cat src/*.ts && grep -rn export src")
      assert.isUndefined(inside.isError, textOf(inside))
      assert.include(textOf(inside), "export const a = 1")
    }).pipe(Effect.scoped), 60_000)
})
