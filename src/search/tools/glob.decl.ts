/**
 * The declaration of `glob`: what a model is shown (the description is glob.md). The behaviour is
 * in globTool.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../../tool/index.js"

/** Params of `glob`. @category models */
export const GlobParams = Schema.Struct({
  pattern: Schema.String.annotate({ description: "The glob pattern to match file paths against, e.g. \"**/*.py\" or \"docs/*.md\"." }),
  path: Schema.optionalKey(PathParam(
    "The directory to search in: absolute, or relative to the first workspace root. Default: every workspace root."
  ))
})

/** The declaration of `glob`. @category declarations */
export const globDeclaration = declareTool({
  name: "glob",
  displayName: "Glob",
  kind: Kind.Search,
  description: descriptionFile(import.meta.url, "glob.md"),
  params: GlobParams
})
