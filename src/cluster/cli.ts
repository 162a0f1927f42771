/**
 * What `toolwright runner` runs, in a module of its own so the CLI loads the cluster code only for
 * that command.
 *
 * @since 0.3.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runner from "./runner.js"

/**
 * Starts a runner and runs until interrupted (SIGINT, SIGTERM): then its sessions close (read
 * evidence saved, processes ended) and its shards go to the other runners.
 * @category commands
 */
export const runRunner = (options: Runner.RunnerOptions): Effect.Effect<never, unknown> =>
  Effect.gen(function*() {
    yield* Layer.build(Runner.layer(options))
    const groups = options.groups !== undefined && options.groups.length > 0 ? options.groups.join(", ") : "default"
    yield* Console.error(`toolwright runner ready on ${options.host ?? "localhost"}:${options.port ?? Runner.DEFAULT_RUNNER_PORT} (groups: ${groups})`)
    return yield* Effect.never
  }).pipe(Effect.scoped)
