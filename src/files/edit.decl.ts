/**
 * The declaration of `edit`: what a model is shown (the description is edit.md). The behaviour is
 * in edit.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../tool/index.js"

/** Params of `edit`. @category models */
export const EditParams = Schema.Struct({
  file_path: PathParam("The file to modify: absolute, or relative to the first workspace root."),
  old_string: Schema.String.annotate({
    description: "The exact text to replace (empty to create a new file). Include enough context to match one place."
  }),
  new_string: Schema.String.annotate({ description: "The replacement text, written verbatim." }),
  replace_all: Schema.optionalKey(
    Schema.Boolean.annotate({ description: "Replace every occurrence of old_string (default false)." })
  )
})

/** The declaration of `edit`. @category declarations */
export const editDeclaration = declareTool({
  name: "edit",
  displayName: "Edit",
  kind: Kind.Edit,
  description: descriptionFile(import.meta.url, "edit.md"),
  params: EditParams
})
