/**
 * The `toolwright` executable.
 *
 * @since 0.1.0
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { cli, VERSION } from "./commands.js"

// A reader that stops early (`toolwright run … | head -1`) closes the pipe: stop quietly, as cat
// does, instead of an EPIPE stack trace. Any other stdout error is still thrown.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0)
  throw error
})

cli.pipe(Command.run({ version: VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
