/**
 * `send_message` (reference §12.3, background-task mode): writes a message and a newline to a
 * running background shell's stdin — to answer an interactive prompt or drive a REPL. Deferred;
 * asks by default (it is input to a running program).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { defineTool, Kind, textResult } from "../../tool/index.js"
import { BackgroundShells } from "./background.js"

/** Longest message. @category constants */
export const MAX_MESSAGE_LENGTH = 65_536

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeSendMessage = Effect.gen(function*() {
  const shells = yield* BackgroundShells
  return defineTool({
    name: "send_message",
    displayName: "SendMessage",
    description:
      "Sends a line of input to a running background task: the message and a newline are written to its stdin. " +
      "Use it to answer a prompt (y/n, a name, a password the user gave you) or to drive a REPL started with " +
      "run_shell_command is_background: true. The reply appears in the task's output file; read it afterwards.",
    kind: Kind.Other,
    shouldDefer: true,
    searchHint: "send message task stdin input reply prompt repl background",
    params: Schema.Struct({
      task_id: Schema.String.annotate({ description: "The id of the running background task (e.g. bg_1a2b3c4d)." }),
      message: Schema.String.check(Schema.isMaxLength(MAX_MESSAGE_LENGTH)).annotate({
        description: "The text to write to the task's stdin; a newline is added."
      })
    }),
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
