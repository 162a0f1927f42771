/**
 * `task_stop` (reference §12.2): stops a running background shell — its whole process tree — and
 * reports where its output stays. Deferred; allowed by default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { defineTool, Kind, textResult } from "../../tool/index.js"
import { BackgroundShells } from "./background.js"

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeTaskStop = Effect.gen(function*() {
  const shells = yield* BackgroundShells
  return defineTool({
    name: "task_stop",
    displayName: "TaskStop",
    description:
      "Stops a running background task by its id (the bg_… id run_shell_command returned for is_background: true). " +
      "The task's whole process tree is terminated (SIGTERM, then SIGKILL). Its output file stays readable. " +
      "Use this instead of kill/pkill for background shells.",
    kind: Kind.Other,
    shouldDefer: true,
    searchHint: "task stop cancel kill background",
    params: Schema.Struct({
      task_id: Schema.String.annotate({ description: "The id of the background task to stop (e.g. bg_1a2b3c4d)." })
    }),
    toAutoClassifierInput: (p) => p.task_id,
    invoke: (p) =>
      Effect.succeed({
        description: `Stop ${p.task_id}`,
        defaultPermission: Effect.succeed("allow" as const),
        execute: () =>
          shells.stop(p.task_id).pipe(
            Effect.map((shell) =>
              textResult(
                `Cancellation requested for background shell "${shell.id}". Final status: ${shell.status} (also in its status file ${shell.statusPath}); ` +
                  `captured output remains at ${shell.outputPath}.\nCommand: ${shell.command}`,
                { display: `Stopped background shell ${shell.id} (${shell.status}).`, data: shell }
              )
            )
          )
      })
  })
})
