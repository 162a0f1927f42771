/**
 * The `toolwright` executable.
 *
 * @since 0.1.0
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { cli, VERSION } from "./commands.js"

cli.pipe(Command.run({ version: VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
