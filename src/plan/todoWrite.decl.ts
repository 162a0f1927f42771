/**
 * The declaration of `todo_write`: what a model is shown (the description is todoWrite.md). The
 * behaviour is in todoWrite.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind } from "../tool/index.js"
import { TodoList } from "./todos.js"

/** The params of `todo_write`. @category schemas */
export const TodoWriteParams = Schema.Struct({
  todos: TodoList.annotateKey({ messageMissingKey: `Parameter "todos" must be an array.` })
})

/** The declaration of `todo_write`. @category declarations */
export const todoWriteDeclaration = declareTool({
  name: "todo_write",
  displayName: "TodoList",
  kind: Kind.Think,
  description: descriptionFile(import.meta.url, "todoWrite.md"),
  params: TodoWriteParams
})
