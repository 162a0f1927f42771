/**
 * Jupyter notebooks: parsing, the cell rendering read_file shows, and the cell edits of
 * notebook_edit (reference §7), all pure.
 *
 * @since 0.1.0
 */
import type { MediaPart } from "../tool/index.js"
import {
  detectIndent,
  findCellSpans,
  renderCell,
  spliceDelete,
  spliceInsert,
  spliceReplace
} from "./notebookJson.js"

/** One cell as stored (unknown fields kept). @category models */
export interface NotebookCell {
  readonly cell_type: string
  readonly id?: string
  readonly source: string | ReadonlyArray<string>
  readonly outputs?: ReadonlyArray<Record<string, unknown>>
  readonly execution_count?: number | null
  readonly [key: string]: unknown
}

/** A parsed notebook (unknown fields kept). @category models */
export interface Notebook {
  readonly cells: ReadonlyArray<NotebookCell>
  readonly metadata?: Record<string, unknown>
  readonly nbformat?: number
  readonly nbformat_minor?: number
  readonly [key: string]: unknown
}

/** Characters of one output shown before it is cut. @category constants */
export const MAX_OUTPUT_CHARS = 4_000

/** Images from outputs attached to one read. @category constants */
export const MAX_NOTEBOOK_IMAGES = 8

/** Prefix of the ids notebook_edit gives inserted cells (`tw-cell-1`, …). @category constants */
export const NEW_CELL_ID_PREFIX = "tw-cell-"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** Parses notebook JSON; a message when it is not JSON or has no `cells` array. @category parsing */
export const parseNotebook = (text: string): { readonly notebook: Notebook } | { readonly error: string } => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    return { error: `the file is not valid JSON (${e instanceof Error ? e.message : String(e)})` }
  }
  if (!isRecord(parsed) || !Array.isArray(parsed["cells"])) return { error: "the JSON has no \"cells\" array" }
  const cells = parsed["cells"] as Array<unknown>
  if (!cells.every((c) => isRecord(c) && typeof c["cell_type"] === "string")) {
    return { error: "a cell has no \"cell_type\"" }
  }
  return { notebook: parsed as unknown as Notebook }
}

/** A cell's source as one string. @category getters */
export const sourceText = (cell: NotebookCell): string =>
  typeof cell.source === "string" ? cell.source : cell.source.join("")

/** The id each cell is addressed by: its real `id`, else `cell-N` (0-based). @category getters */
export const displayIds = (notebook: Notebook): ReadonlyArray<string> =>
  notebook.cells.map((cell, i) => (typeof cell.id === "string" && cell.id !== "" ? cell.id : `cell-${i}`))

/** Whether every cell has a real id (ids survive inserts and deletes). @category predicates */
export const hasStableIds = (notebook: Notebook): boolean =>
  notebook.cells.every((cell) => typeof cell.id === "string" && cell.id !== "")

/** The cell a display id names: its index, none, or several (a real id equal to another cell's `cell-N`). @category getters */
export const findCell = (
  notebook: Notebook,
  id: string
): { readonly _tag: "Found"; readonly index: number } | { readonly _tag: "NotFound" } | { readonly _tag: "Ambiguous" } => {
  const matches = displayIds(notebook).flatMap((d, i) => (d === id ? [i] : []))
  if (matches.length === 0) {
    // `cell-N` also reaches a cell that has a real id, unless that real id is itself taken.
    const m = /^cell-(\d+)$/.exec(id)
    const index = m ? Number(m[1]) : -1
    return index >= 0 && index < notebook.cells.length ? { _tag: "Found", index } : { _tag: "NotFound" }
  }
  return matches.length === 1 ? { _tag: "Found", index: matches[0]! } : { _tag: "Ambiguous" }
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g

const textOf = (value: unknown): string =>
  typeof value === "string" ? value : Array.isArray(value) ? value.filter((v) => typeof v === "string").join("") : ""

const cut = (text: string): string =>
  text.length <= MAX_OUTPUT_CHARS ? text : `${text.slice(0, MAX_OUTPUT_CHARS)}\n... [output truncated: ${text.length} chars]`

/** The rendering of a notebook for the model. @category models */
export interface RenderedNotebook {
  readonly text: string
  readonly images: ReadonlyArray<MediaPart>
  /** Cells whose source was shown. */
  readonly cellsShown: number
  /** Some cells were left out for the character budget. */
  readonly truncated: boolean
}

const renderOutputs = (cell: NotebookCell, images: Array<MediaPart>, omitted: { count: number }): string => {
  const parts: Array<string> = []
  for (const output of cell.outputs ?? []) {
    const type = typeof output["output_type"] === "string" ? output["output_type"] : "output"
    if (type === "stream") {
      parts.push(`[stream ${String(output["name"] ?? "stdout")}]\n${cut(textOf(output["text"]))}`)
    } else if (type === "error") {
      const traceback = textOf(Array.isArray(output["traceback"]) ? (output["traceback"] as Array<string>).join("\n") : "")
      parts.push(`[error] ${String(output["ename"] ?? "")}: ${String(output["evalue"] ?? "")}\n${cut(traceback.replace(ANSI, ""))}`)
    } else {
      const data = isRecord(output["data"]) ? output["data"] : {}
      const image = ["image/png", "image/jpeg", "image/gif", "image/webp"].find((m) => textOf(data[m]) !== "")
      if (image !== undefined) {
        if (images.length < MAX_NOTEBOOK_IMAGES) {
          images.push({ type: "image", data: textOf(data[image]).replace(/\s+/g, ""), mimeType: image })
          parts.push(`[${type} ${image}: attached as image ${images.length}]`)
        } else {
          omitted.count++
          parts.push(`[${type} ${image}: not attached (more than ${MAX_NOTEBOOK_IMAGES} images)]`)
        }
      }
      const plain = textOf(data["text/plain"]) || textOf(data["text/markdown"])
      if (plain !== "") parts.push(`[${type}]\n${cut(plain)}`)
      else if (image === undefined) parts.push(`[${type}: ${Object.keys(data).join(", ") || "no data"}]`)
    }
  }
  return parts.join("\n")
}

/**
 * Renders cells with their ids, types and outputs, stopping before the cell that would exceed
 * `charBudget` ("remaining cells truncated").
 * @category rendering
 */
export const renderNotebook = (notebook: Notebook, title: string, charBudget: number): RenderedNotebook => {
  const ids = displayIds(notebook)
  const language = isRecord(notebook.metadata) && isRecord(notebook.metadata["language_info"])
    ? String(notebook.metadata["language_info"]["name"] ?? "")
    : ""
  const format = notebook.nbformat === undefined ? "" : `nbformat ${notebook.nbformat}.${notebook.nbformat_minor ?? 0}, `
  const header = `Notebook ${title} (${format}${language ? `${language}, ` : ""}${notebook.cells.length} cells)`
  const images: Array<MediaPart> = []
  const omitted = { count: 0 }
  const blocks: Array<string> = [header]
  let used = header.length
  let shown = 0
  for (const [i, cell] of notebook.cells.entries()) {
    const count = cell.cell_type === "code" && typeof cell.execution_count === "number"
      ? ` execution_count="${cell.execution_count}"`
      : ""
    const outputs = renderOutputs(cell, images, omitted)
    const block = `<cell id="${ids[i]}" cell_type="${cell.cell_type}"${count}>\n${sourceText(cell)}\n</cell>` +
      (outputs === "" ? "" : `\n<outputs cell="${ids[i]}">\n${outputs}\n</outputs>`)
    if (shown > 0 && used + block.length + 2 > charBudget) break
    blocks.push(block)
    used += block.length + 2
    shown++
  }
  const truncated = shown < notebook.cells.length
  if (truncated) {
    blocks.push(`[remaining cells truncated: ${notebook.cells.length - shown} of ${notebook.cells.length} cells not shown]`)
  }
  return { text: blocks.join("\n\n"), images, cellsShown: shown, truncated }
}

/** A notebook edit as notebook_edit receives it. @category models */
export interface NotebookEditRequest {
  readonly mode: "replace" | "insert" | "delete"
  readonly cellId?: string | undefined
  readonly newSource?: string | undefined
  readonly cellType?: "code" | "markdown" | undefined
}

/** The edited notebook text, and which cell the edit addressed. @category models */
export interface NotebookEditResult {
  readonly text: string
  readonly cellId: string
  readonly notebook: Notebook
}

/** Why an edit cannot be applied. @category models */
export type NotebookEditProblem =
  | { readonly _tag: "MissingCellId" }
  | { readonly _tag: "CellNotFound"; readonly id: string }
  | { readonly _tag: "Ambiguous"; readonly id: string }

const splitSource = (text: string): ReadonlyArray<string> => {
  const lines = text.split(/(?<=\n)/)
  return lines.length === 1 && lines[0] === "" ? [] : lines
}

const styled = (text: string, asArray: boolean): string | ReadonlyArray<string> => (asArray ? splitSource(text) : text)

/** Whether new sources are arrays: like the previous cell, else the next, else the first with a source. */
const sourceStyle = (cells: ReadonlyArray<NotebookCell>, at: number): boolean => {
  const near = [cells[at - 1], cells[at], ...cells].find((c) => c !== undefined)
  return near === undefined ? true : Array.isArray(near.source)
}

/** An edited cell: type and source set in place, outputs reset (code) or removed (markdown); key order kept. */
const reshapeCell = (base: NotebookCell, type: string, source: string | ReadonlyArray<string>): NotebookCell => {
  const cell: Record<string, unknown> = { ...base, cell_type: type }
  if (type === "code") {
    cell["execution_count"] = null
    cell["outputs"] = []
  } else {
    delete cell["execution_count"]
    delete cell["outputs"]
  }
  cell["source"] = source
  return cell as NotebookCell
}

/** A new cell, keys in nbformat's sorted order. */
const newCell = (type: string, id: string | undefined, source: string | ReadonlyArray<string>): NotebookCell => ({
  cell_type: type,
  ...(type === "code" ? { execution_count: null } : {}),
  ...(id === undefined ? {} : { id }),
  metadata: {},
  ...(type === "code" ? { outputs: [] } : {}),
  source
})

const parsesTo = (text: string, expected: Notebook): boolean => {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(expected)
  } catch {
    return false
  }
}

const newCellId = (notebook: Notebook): string => {
  const taken = new Set(displayIds(notebook))
  for (let n = 1; ; n++) if (!taken.has(`${NEW_CELL_ID_PREFIX}${n}`)) return `${NEW_CELL_ID_PREFIX}${n}`
}

const wantsIds = (notebook: Notebook): boolean =>
  (notebook.nbformat ?? 0) > 4 || (notebook.nbformat === 4 && (notebook.nbformat_minor ?? 0) >= 5)

/**
 * Applies one cell edit to notebook text. Only the edited cell's JSON changes; everything else in
 * the text stays byte-identical (a full re-serialisation in the file's style is the fallback for
 * JSON the scanner cannot follow).
 * @category editing
 */
export const applyNotebookEdit = (
  text: string,
  notebook: Notebook,
  request: NotebookEditRequest
): { readonly _tag: "Ok"; readonly result: NotebookEditResult } | { readonly _tag: "Problem"; readonly problem: NotebookEditProblem } => {
  const cells = [...notebook.cells]
  let index = 0
  if (request.cellId !== undefined && request.cellId !== "") {
    const found = findCell(notebook, request.cellId)
    if (found._tag === "NotFound") return { _tag: "Problem", problem: { _tag: "CellNotFound", id: request.cellId } }
    if (found._tag === "Ambiguous") return { _tag: "Problem", problem: { _tag: "Ambiguous", id: request.cellId } }
    index = found.index
  } else if (request.mode !== "insert") {
    return { _tag: "Problem", problem: { _tag: "MissingCellId" } }
  }
  const indent = detectIndent(text)
  const spans = findCellSpans(text)
  const usable = spans !== undefined && spans.cells.length === cells.length
  let cellId = request.cellId ?? ""
  let edited: string | undefined
  if (request.mode === "delete") {
    cells.splice(index, 1)
    if (usable) edited = spliceDelete(text, spans, index)
  } else if (request.mode === "insert") {
    const at = request.cellId !== undefined && request.cellId !== "" ? index + 1 : 0
    const id = wantsIds(notebook) ? newCellId(notebook) : undefined
    const source = styled(request.newSource ?? "", sourceStyle(cells, at))
    const cell = newCell(request.cellType ?? "code", id, source)
    cells.splice(at, 0, cell)
    cellId = id ?? `cell-${at}`
    if (usable) edited = spliceInsert(text, spans, at, renderCell(cell, indent), indent)
  } else {
    const old = cells[index]!
    const source = styled(request.newSource ?? "", Array.isArray(old.source))
    const cell = reshapeCell(old, request.cellType ?? old.cell_type, source)
    cells[index] = cell
    if (usable) edited = spliceReplace(text, spans, index, renderCell(cell, indent))
  }
  const next: Notebook = { ...notebook, cells }
  const out = edited !== undefined && parsesTo(edited, next) ? edited : JSON.stringify(next, null, indent ?? 1) + (text.endsWith("\n") ? "\n" : "")
  return { _tag: "Ok", result: { text: out, cellId, notebook: next } }
}
