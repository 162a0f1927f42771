/**
 * The declaration of `write_file`: what a model is shown (the description is writeFile.md). The
 * behaviour is in writeFile.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../tool/index.js"

/** Params of `write_file`. @category models */
export const WriteFileParams = Schema.Struct({
  file_path: PathParam("The file to write: absolute, or relative to the first workspace root."),
  content: Schema.String.annotate({ description: "The complete new content of the file." })
})

/** The declaration of `write_file`. @category declarations */
export const writeFileDeclaration = declareTool({
  name: "write_file",
  displayName: "WriteFile",
  kind: Kind.Edit,
  description: descriptionFile(import.meta.url, "writeFile.md"),
  params: WriteFileParams
})
