import { Duration, Effect, Schema } from "effect"
import { defineTool, Kind, progress, textResult } from "../../src/tool/index.js"

/** A tool that emits `steps` progress parts through `ExecuteContext.emit`, `delayMs` apart, then answers "done". */
export const progressTool = (name = "progress") =>
  defineTool({
    name,
    displayName: "Progress",
    description: "Reports progress while it runs.",
    kind: Kind.Read,
    params: Schema.Struct({
      steps: Schema.Int.annotate({ description: "how many progress parts" }),
      delayMs: Schema.Int.annotate({ description: "pause after each" })
    }),
    invoke: (params) =>
      Effect.succeed({
        description: `progress ${params.steps}`,
        execute: ({ emit }) =>
          Effect.gen(function*() {
            for (let step = 1; step <= params.steps; step++) {
              if (emit) yield* emit(progress(`step ${step}`, { progress: step, total: params.steps }))
              if (params.delayMs > 0) yield* Effect.sleep(Duration.millis(params.delayMs))
            }
            return textResult(`done after ${params.steps} steps`)
          })
      })
  })
