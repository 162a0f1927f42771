/**
 * The declaration of `read_file`: what a model is shown (the description is readFile.md). The
 * behaviour is in readFile.ts, imported on the tool's first call.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { declareTool, descriptionFile, Kind, PathParam } from "../tool/index.js"

/** Params of `read_file`. @category models */
export const ReadFileParams = Schema.Struct({
  file_path: PathParam("The file to read: absolute, or relative to the first workspace root."),
  offset: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { message: "Offset must be a non-negative integer" })).annotate({
      description: "0-based line to start reading from (0 or more). Use with limit for long files."
    })
  ),
  limit: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { message: "Limit must be a positive integer" })).annotate({
      description: "Number of lines to read (1 or more)."
    })
  ),
  pages: Schema.optionalKey(
    Schema.String.annotate({
      description: "PDF only: 1-based page range of at most 20 pages, e.g. \"3\" or \"1-5\"; only those pages are attached."
    })
  ),
  line_numbers: Schema.optionalKey(
    Schema.Boolean.annotate({
      description: "Prefix each line with its 1-based line number and a tab, like `cat -n` (default false). The prefix is not part of the file: leave it out of edit's old_string."
    })
  )
})

/** The declaration of `read_file`. @category declarations */
export const readFileDeclaration = declareTool({
  name: "read_file",
  displayName: "ReadFile",
  kind: Kind.Read,
  maxOutputChars: Number.POSITIVE_INFINITY,
  description: descriptionFile(import.meta.url, "readFile.md"),
  params: ReadFileParams
})
