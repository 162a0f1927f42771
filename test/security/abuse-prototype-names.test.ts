/**
 * Names of Object.prototype members used where the tools look a name up in a table: a program
 * named `constructor` or `toString` was classified read-only (the lookup found Object's own
 * member, and calling it returned something truthy), so under `--approval default` it ran without
 * asking; `__proto__` and `valueOf` failed as `unhandled_exception`. Found by the fuzzer.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { type Answer, arena, count, describeAnswers, emptyTally, writeReport } from "./support.js"

const PROTOTYPE_NAMES = ["constructor", "toString", "valueOf", "hasOwnProperty", "__proto__", "__defineGetter__", "toLocaleString", "isPrototypeOf"]

describe("abuse: Object.prototype names as programs and subcommands", () => {
  it.live("under --approval default, a script named after a prototype member is asked for like any other, and nothing is untyped", () =>
    Effect.gen(function*() {
      const a = yield* arena(["--approval", "default"])
      const marker = "RAN-WITHOUT-APPROVAL"
      // A script of each name, and a git alias of each name that runs a shell command (a `.git/config`
      // an edit in auto-edit mode could write): either would run the marker.
      execFileSync("git", ["init", "-q", a.root])
      for (const name of PROTOTYPE_NAMES) {
        fs.writeFileSync(path.join(a.root, name), `#!/bin/sh\necho ${marker}\n`, { mode: 0o755 })
        if (/^[A-Za-z][A-Za-z0-9-]*$/.test(name)) execFileSync("git", ["-C", a.root, "config", `alias.${name}`, `!echo ${marker}`])
      }
      const commands = PROTOTYPE_NAMES.flatMap((name) => [`./${name}`, name, `${a.root}/${name}`, `git ${name}`, `git -C . ${name} --x`])
      const answers: Array<Answer> = yield* Effect.all(commands.map((command) => a.call("run_shell_command", { command }, 10_000)), {
        concurrency: 4
      })
      const tally = emptyTally()
      for (const answer of answers) count(tally, answer)
      const ranUnasked = answers.filter((answer) => answer.text.includes(marker))
      tally.escapes += ranUnasked.length
      writeReport("abuse-prototype-names", { "prototype-named-commands": tally })
      const untyped = answers.filter((answer) => answer.kind !== "ok" && answer.kind !== "typed")
      assert.strictEqual(untyped.length, 0, describeAnswers(untyped, 40))
      assert.strictEqual(ranUnasked.length, 0, `ran without approval:\n${describeAnswers(ranUnasked)}`)
      assert.isTrue(a.alive())
    }), 60_000)
})
