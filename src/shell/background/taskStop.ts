/**
 * `task_stop` (reference §12.2): stops a running background shell — its whole process tree — and
 * reports where its output stays. Deferred; allowed by default.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { defineTool, textResult } from "../../tool/index.js"
import { BackgroundShells } from "./background.js"
import { taskStopDeclaration } from "./taskStop.decl.js"

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeTaskStop = Effect.gen(function*() {
  const shells = yield* BackgroundShells
  return defineTool({
    ...taskStopDeclaration,
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
