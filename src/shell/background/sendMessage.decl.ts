/**
 * The declaration of `send_message`: what a model is shown (the description is sendMessage.md). The
 * behaviour is in sendMessage.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../../tool/index.js"

/** Longest message. @category constants */
export const MAX_MESSAGE_LENGTH = 65_536

/** The params of `send_message`. @category schemas */
export const SendMessageParams = Schema.Struct({
  task_id: Schema.String.annotate({ description: "The id of the running background task (e.g. bg_1a2b3c4d)." }),
  message: Schema.String.check(Schema.isMaxLength(MAX_MESSAGE_LENGTH)).annotate({
    description: "The text to write to the task's stdin; a newline is added."
  })
})

/** The declaration of `send_message`. @category declarations */
export const sendMessageDeclaration = declareTool({
  name: "send_message",
  displayName: "SendMessage",
  kind: Kind.Other,
  shouldDefer: true,
  searchHint: "send message task stdin input reply prompt repl background",
  description: descriptionFile(import.meta.url, "sendMessage.md"),
  params: SendMessageParams
})
