/**
 * Editing a proposal at the terminal before approving it: the proposal goes into a temp file,
 * `$VISUAL` (else `$EDITOR`) opens it on the terminal, and what the person saved comes back as the
 * amendment.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { Amendable } from "../tool/index.js"

/** The editor command a person set (`$VISUAL`, then `$EDITOR`), if any. @category editor */
export const editorCommand = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const visual = env["VISUAL"]?.trim()
  if (visual) return visual
  const editor = env["EDITOR"]?.trim()
  return editor ? editor : undefined
}

/** What came back from the editor: the saved text, or why there is none. @category models */
export type EditorResult =
  | { readonly _tag: "Edited"; readonly value: string }
  | { readonly _tag: "Failed"; readonly reason: string }

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`

/** Runs the editor command (a shell command line, so `code --wait` works) on `file`, on this terminal. */
const runEditor = (command: string, file: string) =>
  Effect.callback<number | string>((resume) => {
    const child = spawn(`${command} ${quote(file)}`, { shell: true, stdio: "inherit" })
    child.on("error", (e) => resume(Effect.succeed(e.message)))
    child.on("exit", (code, signal) => resume(Effect.succeed(signal !== null ? `killed by ${signal}` : code ?? 0)))
  })

/**
 * A trailing newline the editor added to a proposal that had none is dropped (most editors end the
 * last line on save); everything else the person saved is the value.
 *
 * @category editor
 */
export const savedValue = (proposal: string, saved: string): string =>
  !proposal.endsWith("\n") && saved.endsWith("\n") ? saved.slice(0, saved.endsWith("\r\n") ? -2 : -1) : saved

/**
 * Opens the proposal in the person's editor and reads back what they saved. `fileName` names the
 * temp file (the edited file's name, so the editor picks its syntax; `command.sh` for a command).
 *
 * @category editor
 */
export const editProposal = (amendable: Amendable, fileName: string, env: NodeJS.ProcessEnv = process.env) =>
  Effect.gen(function*() {
    const command = editorCommand(env)
    if (command === undefined) {
      return { _tag: "Failed", reason: "neither $VISUAL nor $EDITOR is set; set one to edit proposals" } as EditorResult
    }
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-amend-"))),
      (d) => Effect.sync(() => fs.rmSync(d, { recursive: true, force: true }))
    )
    const file = path.join(dir, path.basename(fileName) || "proposal.txt")
    yield* Effect.sync(() => fs.writeFileSync(file, amendable.proposal))
    const exit = yield* runEditor(command, file)
    if (exit !== 0) {
      return { _tag: "Failed", reason: `the editor (${command}) ${typeof exit === "number" ? `exited with code ${exit}` : `failed: ${exit}`}` } as EditorResult
    }
    const saved = yield* Effect.sync(() => fs.readFileSync(file, "utf8"))
    return { _tag: "Edited", value: savedValue(amendable.proposal, saved) } as EditorResult
  }).pipe(
    Effect.scoped,
    // a temp file that cannot be made or read back (a full disk, the editor deleted it) is a failed edit, not a crash
    Effect.catchDefect((defect) =>
      Effect.succeed({ _tag: "Failed", reason: defect instanceof Error ? defect.message : String(defect) } as EditorResult)
    )
  )
