/**
 * The file tools: read_file, edit, write_file and notebook_edit (reference §3–§7), with their
 * configuration. Each tool is a constructor effect over the session's services, loaded lazily by
 * the catalog.
 *
 * @since 0.1.0
 */
export { editDeclaration } from "./edit.decl.js"
export { notebookEditDeclaration } from "./notebookEdit.decl.js"
export { readFileDeclaration } from "./readFile.decl.js"
/** The `read_file` tool and its params. */
export { makeReadFile, ReadFileParams } from "./readFile.js"
/** The typed result of a read. */
export type { ReadFileData } from "./readKinds.js"
/** The `edit` tool, its params and typed result. */
export { EditParams, makeEdit, type EditData } from "./edit.js"
export { writeFileDeclaration } from "./writeFile.decl.js"
/** The `write_file` tool, its params and typed result. */
export { makeWriteFile, WriteFileParams, type WriteFileData } from "./writeFile.js"
/** The `notebook_edit` tool, its params and typed result. */
export { makeNotebookEdit, NotebookEditParams, type NotebookEditData } from "./notebookEdit.js"
/** Settings of the file tools, their defaults and environment variables. */
export {
  DEFAULT_FILE_TOOLS_SETTINGS,
  FILE_TOOLS_ENV_VARS,
  FileToolsConfig,
  type FileToolsSettings,
  loadFileToolsSettings
} from "../write/index.js"
