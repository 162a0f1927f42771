/**
 * `send_message` (reference §12.3, background-task mode): writes a message and a newline to a
 * running background shell's stdin — to answer an interactive prompt or drive a REPL. Deferred;
 * asks by default (it is input to a running program).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { defineTool, textResult } from "../../tool/index.js"
import { BackgroundShells } from "./background.js"
import { sendMessageDeclaration } from "./sendMessage.decl.js"

export { MAX_MESSAGE_LENGTH } from "./sendMessage.decl.js"

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeSendMessage = Effect.gen(function*() {
  const shells = yield* BackgroundShells
  return defineTool({
    ...sendMessageDeclaration,
    toAutoClassifierInput: (p) => JSON.stringify({ task_id: p.task_id, message: p.message }),
    invoke: (p) =>
      Effect.gen(function*() {
        const shell = yield* shells.get(p.task_id)
        const target = shell._tag === "Some" ? `${p.task_id} (${shell.value.command})` : p.task_id
        return {
          description: `Send to ${p.task_id}: ${p.message.length > 60 ? `${p.message.slice(0, 57)}...` : p.message}`,
          defaultPermission: Effect.succeed("ask" as const),
          confirmation: Effect.succeed({
            type: "info" as const,
            title: "Confirm SendMessage",
            prompt: `Write to the stdin of background task ${target}:\n${p.message}`
          }),
          execute: () =>
            shells.send(p.task_id, p.message).pipe(
              Effect.map((bytes) =>
                textResult(
                  `Message written to the stdin of background task "${p.task_id}" (${bytes} bytes, newline included). ` +
                    `Its response, if any, appears in its output file${shell._tag === "Some" ? `: ${shell.value.outputPath}` : ""}.`,
                  { display: `Sent ${bytes} bytes to ${p.task_id}.`, data: { taskId: p.task_id, bytes } }
                )
              )
            )
        }
      })
  })
})
