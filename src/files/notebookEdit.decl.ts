/**
 * The declaration of `notebook_edit`: what a model is shown (the description is notebookEdit.md).
 * The behaviour is in notebookEdit.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../tool/index.js"

/** Params of `notebook_edit`. @category models */
export const NotebookEditParams = Schema.Struct({
  notebook_path: PathParam("The notebook to edit (.ipynb): absolute, or relative to the first workspace root."),
  cell_id: Schema.optionalKey(Schema.String.annotate({ description: "The cell to edit, or to insert after: its id, or cell-N (0-based)." })),
  new_source: Schema.optionalKey(Schema.String.annotate({ description: "The new source of the cell (required for replace and insert)." })),
  cell_type: Schema.optionalKey(Schema.Literals(["code", "markdown"]).annotate({ description: "The cell type: code or markdown (insert default: code)." })),
  edit_mode: Schema.optionalKey(Schema.Literals(["replace", "insert", "delete"]).annotate({ description: "replace (default), insert or delete." }))
})

/** The declaration of `notebook_edit`. @category declarations */
export const notebookEditDeclaration = declareTool({
  name: "notebook_edit",
  displayName: "NotebookEdit",
  kind: Kind.Edit,
  description: descriptionFile(import.meta.url, "notebookEdit.md"),
  params: NotebookEditParams
})
