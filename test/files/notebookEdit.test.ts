import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import iconv from "iconv-lite"
import { Context, Effect } from "effect"
import { DEFAULT_FILE_TOOLS_SETTINGS } from "../../src/write/config.js"
import { notebookGuard } from "../../src/files/notebookEdit.js"
import { FileReadCache } from "../../src/session/readCache.js"
import { Workspace } from "../../src/session/workspace.js"
import { DEFAULT_OUTPUT_LIMITS, CurrentOutputLimits } from "../../src/output/config.js"
import { fileWorld, textOf } from "./helpers.js"

const cell = (type: "code" | "markdown", source: string | Array<string>, extra: Record<string, unknown> = {}) => ({
  cell_type: type,
  ...(type === "code" ? { execution_count: 1 } : {}),
  ...extra,
  metadata: {},
  ...(type === "code" ? { outputs: [{ output_type: "stream", name: "stdout", text: ["out\n"] }] } : {}),
  source
})

const notebook = (cells: Array<unknown>, minor = 5) => ({
  cells,
  metadata: { kernelspec: { name: "python3" }, title: "caf\u00e9" },
  nbformat: 4,
  nbformat_minor: minor
})

/** Jupyter's own style: one-space indent, escaped non-ASCII, trailing newline. */
const jupyter = (nb: unknown) => JSON.stringify(nb, null, 1).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`) + "\n"

const readNotebook = (nb: unknown, text = jupyter(nb)) =>
  Effect.gen(function*() {
    const w = yield* fileWorld()
    const file = w.file("nb.ipynb", text)
    yield* w.read.call({ file_path: file })
    return { ...w, nb: file }
  })

const cellsOf = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")).cells as Array<Record<string, unknown>>

describe("notebook_edit (reference §7)", () => {
  it.effect("replace keeps the source style, resets outputs, and leaves every other byte alone", () =>
    Effect.gen(function*() {
      const nb = notebook([cell("markdown", ["# T\n", "text"], { id: "m1" }), cell("code", ["a = 1\n", "a"], { id: "c1" }), cell("code", "b = 2", { id: "c2" })])
      const w = yield* readNotebook(nb)
      const before = fs.readFileSync(w.nb, "utf8")
      const r = yield* w.notebook.call({ notebook_path: w.nb, cell_id: "c1", new_source: "a = 10\nprint(a)" })
      assert.strictEqual(textOf(r), `Notebook ${w.nb} has been updated. replace cell c1.\n\nUpdated source:\n\n---\n\na = 10\nprint(a)`)
      assert.deepStrictEqual(r.resultFilePaths, [w.nb])
      const after = fs.readFileSync(w.nb, "utf8")
      const c1 = cellsOf(w.nb)[1]!
      assert.deepStrictEqual(c1["source"], ["a = 10\n", "print(a)"])
      assert.strictEqual(c1["execution_count"], null)
      assert.deepStrictEqual(c1["outputs"], [])
      // Bytes outside the edited cell are identical: escapes (caf\u00e9), indentation, the final newline.
      const [start] = [before.indexOf(`"id": "c1"`)]
      const cellStart = before.lastIndexOf("{", start)
      assert.strictEqual(after.slice(0, cellStart), before.slice(0, cellStart))
      const tail = before.slice(before.indexOf(`"id": "c2"`) - 60)
      assert.isTrue(after.endsWith(tail))
      assert.include(after, "caf\\u00e9")
    }))

  it.effect("replace can convert a code cell to markdown (outputs and count removed)", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x", { id: "c" })]))
      yield* w.notebook.call({ notebook_path: w.nb, cell_id: "c", new_source: "# now markdown", cell_type: "markdown" })
      const c = cellsOf(w.nb)[0]!
      assert.strictEqual(c["cell_type"], "markdown")
      assert.isFalse("outputs" in c)
      assert.isFalse("execution_count" in c)
      assert.strictEqual(c["source"], "# now markdown")
    }))

  it.effect("insert goes after cell_id (or to the top), with a new id on nbformat 4.5, code by default", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", ["x\n"], { id: "a" }), cell("code", "y", { id: "b" })]))
      const r = yield* w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "inserted\nline", edit_mode: "insert" })
      assert.include(textOf(r), "insert cell tw-cell-1.")
      assert.isFalse(r.data.mustReread, "real ids are stable")
      const cells = cellsOf(w.nb)
      assert.deepStrictEqual(cells.map((c) => c["id"]), ["a", "tw-cell-1", "b"])
      assert.deepStrictEqual(cells[1]!["source"], ["inserted\n", "line"], "style of the previous cell")
      assert.strictEqual(cells[1]!["cell_type"], "code")
      yield* w.notebook.call({ notebook_path: w.nb, new_source: "# top", cell_type: "markdown", edit_mode: "insert" })
      assert.deepStrictEqual(cellsOf(w.nb).map((c) => c["id"]), ["tw-cell-2", "a", "tw-cell-1", "b"])
    }))

  it.effect("insert on nbformat 4.4 adds no id, and shifted positions force a re-read", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x"), cell("code", "y")], 4))
      const r = yield* w.notebook.call({ notebook_path: w.nb, cell_id: "cell-0", new_source: "z", edit_mode: "insert" })
      assert.include(textOf(r), "insert cell cell-1.")
      assert.isTrue(r.data.mustReread)
      assert.isFalse("id" in cellsOf(w.nb)[1]!)
      const again = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "cell-0", new_source: "q" }))
      assert.strictEqual(again.code, "edit_requires_prior_read")
      assert.strictEqual(
        again.message,
        `Notebook ${w.nb} has not been fully read in this session. Use the read_file tool first, without offset or limit, before editing cells.`
      )
    }))

  it.effect("delete removes the cell and keeps the rest; a replace with stable ids allows the next edit", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "1", { id: "a" }), cell("code", "2", { id: "b" }), cell("code", "3", { id: "c" })]))
      const r = yield* w.notebook.call({ notebook_path: w.nb, cell_id: "c", edit_mode: "delete" })
      assert.strictEqual(textOf(r), `Notebook ${w.nb} has been updated. delete cell c.`)
      assert.deepStrictEqual(cellsOf(w.nb).map((c) => c["id"]), ["a", "b"])
      yield* w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "one" })
      yield* w.notebook.call({ notebook_path: w.nb, cell_id: "b", edit_mode: "delete" })
      yield* w.notebook.call({ notebook_path: w.nb, cell_id: "a", edit_mode: "delete" })
      assert.deepStrictEqual(cellsOf(w.nb), [])
      JSON.parse(fs.readFileSync(w.nb, "utf8"))
      const e = yield* Effect.flip(w.edit.call({ file_path: w.nb, old_string: "nbformat", new_string: "x" }))
      assert.strictEqual(e.code, "edit_requires_prior_read", "plain edit still refuses the notebook payload")
    }))

  it.effect("tab-indented and compact notebooks keep their style", () =>
    Effect.gen(function*() {
      const nb = notebook([cell("code", "x", { id: "a" })])
      const tabbed = JSON.stringify(nb, null, "\t")
      const w = yield* readNotebook(nb, tabbed)
      yield* w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "y" })
      const text = fs.readFileSync(w.nb, "utf8")
      assert.isFalse(text.endsWith("\n"))
      assert.include(text, `\t\t\t"source": "y"`)
      const compact = yield* readNotebook(nb, JSON.stringify(nb))
      yield* compact.notebook.call({ notebook_path: compact.nb, cell_id: "a", new_source: "z", edit_mode: "insert" })
      assert.notInclude(fs.readFileSync(compact.nb, "utf8"), "\n")
    }))

  it.effect("validation messages", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const msg = (args: Record<string, unknown>) => Effect.map(Effect.flip(w.notebook.call(args as never)), (e) => e.message)
      assert.strictEqual(yield* msg({ notebook_path: " " }), "The 'notebook_path' parameter must be non-empty.")
      assert.strictEqual(yield* msg({ notebook_path: "a.py", cell_id: "x", new_source: "" }), "File must be a Jupyter notebook (.ipynb). Use the edit tool for other file types.")
      assert.strictEqual(yield* msg({ notebook_path: "a.ipynb", new_source: "" }), "cell_id is required for replace and delete operations.")
      assert.strictEqual(yield* msg({ notebook_path: "a.ipynb", edit_mode: "delete" }), "cell_id is required for replace and delete operations.")
      assert.strictEqual(yield* msg({ notebook_path: "a.ipynb", cell_id: "x" }), `new_source is required when edit_mode is "replace".`)
      assert.strictEqual(yield* msg({ notebook_path: "a.ipynb", edit_mode: "insert" }), `new_source is required when edit_mode is "insert".`)
      assert.include(yield* msg({ notebook_path: "a.ipynb", cell_id: "x", new_source: "", edit_mode: "move" }), "params.edit_mode")
      assert.include(yield* msg({ notebook_path: "a.ipynb", cell_id: "x", new_source: "", cell_type: "raw" }), "params.cell_type")
    }))
})

describe("notebook_edit: every error code", () => {
  it.effect("notebook_cell_not_found lists the ids; an ambiguous id is refused", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x", { id: "cell-1" }), cell("code", "y")], 5))
      const e = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "zzz", new_source: "" }))
      assert.strictEqual(e.code, "notebook_cell_not_found")
      assert.isTrue(e.message.startsWith(`Cell with ID "zzz" not found in notebook.`))
      assert.include(e.message, "cell-1, cell-1")
      const amb = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "cell-1", new_source: "" }))
      assert.strictEqual(amb.code, "invalid_tool_params")
      assert.strictEqual(amb.message, `Cell ID "cell-1" is ambiguous in the rendered notebook. Re-read the notebook and target a stable real cell ID before editing.`)
    }))

  it.effect("notebook_invalid_json", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook({}, "{ \"cells\": [ broken")
      const e = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "cell-0", new_source: "" }))
      assert.strictEqual(e.code, "notebook_invalid_json")
    }))

  it.effect("edit_requires_prior_read: never read, and read truncated", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      const nb = w.file("n.ipynb", jupyter(notebook(Array.from({ length: 5 }, (_, i) => cell("code", `x${i} = ${"1".repeat(80)}`)))))
      const never = yield* Effect.flip(w.notebook.call({ notebook_path: nb, cell_id: "cell-0", new_source: "" }))
      assert.strictEqual(never.code, "edit_requires_prior_read")
      yield* w.read.call({ file_path: nb }).pipe(Effect.provideService(CurrentOutputLimits, { ...DEFAULT_OUTPUT_LIMITS, truncateChars: 200 }))
      const cut = yield* Effect.flip(w.notebook.call({ notebook_path: nb, cell_id: "cell-0", new_source: "" }))
      assert.strictEqual(cut.code, "edit_requires_prior_read")
      assert.strictEqual(
        cut.message,
        `Notebook ${nb} is too large for cell-level editing because its rendered output was truncated when read. Reduce the notebook output size or split the notebook before editing cells.`
      )
    }))

  it.effect("file_changed_since_read when the notebook changed after the read", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x", { id: "a" })]))
      fs.appendFileSync(w.nb, " ")
      const e = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "y" }))
      assert.strictEqual(e.code, "file_changed_since_read")
      assert.strictEqual(e.message, `Notebook ${w.nb} has been modified since you last read it. Re-read it with the read_file tool before editing it.`)
    }))

  it.effect("target_is_directory, target_not_regular_file, prior_read_verification_failed, file_not_found", () =>
    Effect.gen(function*() {
      const w = yield* fileWorld()
      fs.mkdirSync(path.join(w.root, "dir.ipynb"))
      assert.strictEqual((yield* Effect.flip(w.notebook.call({ notebook_path: "dir.ipynb", cell_id: "a", new_source: "" }))).code, "target_is_directory")
      execFileSync("mkfifo", [path.join(w.root, "fifo.ipynb")])
      assert.strictEqual((yield* Effect.flip(w.notebook.call({ notebook_path: "fifo.ipynb", cell_id: "a", new_source: "" }))).code, "target_not_regular_file")
      w.file("file.txt", "x")
      const stat = yield* Effect.flip(w.notebook.call({ notebook_path: "file.txt/x.ipynb", cell_id: "a", new_source: "" }))
      assert.strictEqual(stat.code, "prior_read_verification_failed")
      assert.strictEqual((yield* Effect.flip(w.notebook.call({ notebook_path: "none.ipynb", cell_id: "a", new_source: "" }))).code, "file_not_found")
    }))

  it.effect("file_changed_since_read when the notebook disappeared after it was read (post-read / pre-write check)", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x", { id: "a" })]))
      fs.unlinkSync(w.nb)
      const guard = notebookGuard({
        cache: Context.get(w.context, FileReadCache),
        workspace: Context.get(w.context, Workspace),
        sessionId: "s",
        settings: DEFAULT_FILE_TOOLS_SETTINGS
      }, w.nb)
      const e = yield* Effect.flip(guard(true))
      assert.strictEqual(e.code, "file_changed_since_read")
      yield* guard(undefined)
    }))

  it.effect("notebook_edit_failure for a character the notebook's encoding cannot hold", () =>
    Effect.gen(function*() {
      const nb = notebook([cell("code", "s = 'caf\u00e9 cr\u00e8me na\u00efve'", { id: "a" })])
      const w = yield* readNotebook(nb, "") // replaced below
      fs.writeFileSync(w.nb, iconv.encode(JSON.stringify(nb, null, 1), "windows-1252"))
      yield* w.read.call({ file_path: w.nb })
      const e = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "check = '\u2713'" }))
      assert.strictEqual(e.code, "notebook_edit_failure")
    }))

  it.effect("permission_denied when the OS refuses the write (immutable file: EPERM)", () =>
    Effect.gen(function*() {
      const w = yield* readNotebook(notebook([cell("code", "x", { id: "a" })]))
      yield* Effect.acquireRelease(
        Effect.sync(() => execFileSync("chattr", ["+i", w.nb])),
        () => Effect.sync(() => execFileSync("chattr", ["-i", w.nb]))
      )
      const e = yield* Effect.flip(w.notebook.call({ notebook_path: w.nb, cell_id: "a", new_source: "y" }))
      assert.strictEqual(e.code, "permission_denied")
      assert.isTrue(e.message.startsWith(`Permission denied writing to file: ${w.nb} (EPERM). `), e.message)
    }))
})
