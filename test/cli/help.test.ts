import { assert, describe, it } from "@effect/vitest"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { TestConsole } from "effect/testing"
import { cli, VERSION } from "../../src/cli/commands.js"

const help = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* Command.runWith(cli, { version: VERSION })(args).pipe(Effect.provide(NodeServices.layer))
    return (yield* TestConsole.logLines).join("\n")
  })

describe("--help", () => {
  it.effect("lists call and run beside serve and tools", () =>
    Effect.gen(function*() {
      const text = yield* help(["--help"])
      for (const command of ["serve", "tools", "call", "run"]) assert.match(text, new RegExp(`^\\s+${command}\\s`, "m"), command)
    }))

  for (const command of ["serve", "tools", "call", "run"]) {
    it.effect(`${command} --help shows examples that start with the command`, () =>
      Effect.gen(function*() {
        const text = yield* help([command, "--help"])
        const examples = text.slice(text.indexOf("EXAMPLES"))
        assert.isAbove(text.indexOf("EXAMPLES"), 0)
        const lines = examples.split("\n").filter((l) => /^\s+(echo .*\| )?toolwright /.test(l))
        assert.isAtLeast(lines.length, 2)
        for (const line of lines) assert.include(line, `toolwright ${command}`)
      }))
  }
})
