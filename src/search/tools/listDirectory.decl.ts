/**
 * The declaration of `list_directory`: what a model is shown (the description is listDirectory.md).
 * The behaviour is in listDirectoryTool.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../../tool/index.js"

/** Params of `list_directory`. @category models */
export const ListDirectoryParams = Schema.Struct({
  path: PathParam("The directory to list: absolute, or relative to the first workspace root."),
  ignore: Schema.optionalKey(Schema.Array(Schema.String).annotate({
    description: "Glob patterns of entry names to leave out (* and ? wildcards, matched against the name only), e.g. [\"*.tmp\"]."
  })),
  file_filtering_options: Schema.optionalKey(Schema.Struct({
    respect_git_ignore: Schema.optionalKey(Schema.Boolean.annotate({
      description: "Leave out entries ignored by .gitignore (default true)."
    })),
    respect_toolwright_ignore: Schema.optionalKey(Schema.Boolean.annotate({
      description: "Leave out entries ignored by .toolwrightignore (default true)."
    }))
  }).annotate({ description: "Which ignore files filter the listing." }))
})

/** The declaration of `list_directory`. @category declarations */
export const listDirectoryDeclaration = declareTool({
  name: "list_directory",
  displayName: "ListFiles",
  kind: Kind.Search,
  description: descriptionFile(import.meta.url, "listDirectory.md"),
  params: ListDirectoryParams
})
