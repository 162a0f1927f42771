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

cli.pipe(Command.run({ version: VERSION }), Effect.provide(NodeServices.layer), NodeRuntime.runMain)
