/**
 * A real session for the search-tool tests: temp workspace roots, the three search tools (grep
 * with the backend the test forces), read_file and edit, run through the scheduler.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { makeEdit } from "../../src/files/edit.js"
import { makeReadFile } from "../../src/files/readFile.js"
import type { LaunchGate } from "../../src/process/index.js"
import type { ToolFactory } from "../../src/registry/registry.js"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import type { SessionServices } from "../../src/run/catalog.js"
import type { ApprovalMode } from "../../src/run/policy.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { makeGlob, makeGrepSearchTool, makeListDirectory, type GrepSearchToolOptions } from "../../src/search/index.js"
import type { ReadEvidence } from "../../src/session/readCache.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"

/** A fresh temp directory (real path), removed when the scope closes. */
export const tempDir = (prefix = "tw-search-tools-") =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Writes `content` at `rel` under `root` (parents created); returns the absolute path. */
export const write = (root: string, rel: string, content: string | Buffer = ""): string => {
  const abs = path.join(root, rel)
  fs.mkdirSync(path.dirname(abs), { recursive: true })
  fs.writeFileSync(abs, content)
  return abs
}

/** Options of {@link searchSession}. */
export interface SearchSessionOptions {
  readonly roots: ReadonlyArray<string>
  readonly stateDir: string
  readonly grep?: GrepSearchToolOptions
  readonly readEvidence?: ReadEvidence
  readonly mode?: ApprovalMode
  readonly approver?: Layer.Layer<Approver>
  /** A launch gate shared with other sessions (as one process's sessions share one); default: the session's own. */
  readonly launchGate?: LaunchGate.Service
}

/** The session layer: grep_search, glob, list_directory, read_file and edit over real roots. */
export const searchSession = (options: SearchSessionOptions) => {
  const tools: ReadonlyArray<ToolFactory<SessionServices>> = [
    { name: "grep_search", load: makeGrepSearchTool(options.grep ?? {}) },
    { name: "glob", load: makeGlob },
    { name: "list_directory", load: makeListDirectory },
    { name: "read_file", load: makeReadFile },
    { name: "edit", load: makeEdit }
  ]
  return SessionLayer.layer({
    roots: options.roots,
    stateDir: options.stateDir,
    builtins: false,
    tools,
    mode: options.mode ?? "default",
    ...(options.launchGate ? { launchGate: options.launchGate } : {}),
    ...(options.readEvidence ? { readEvidence: options.readEvidence } : {})
  }).pipe(Layer.provide(options.approver ?? Approver.layerFixed({ _tag: "proceed_once" })))
}

let counter = 0

/** Runs one call through the scheduler. */
export const call = (name: string, args: unknown) =>
  Scheduler.use((scheduler) => scheduler.runOne({ callId: `c${++counter}`, name, args }))

/** The model-facing text of a successful result (fails the test otherwise). */
export const okText = (result: CallResult): string => {
  if (result._tag !== "Success") throw new Error(`expected success, got ${JSON.stringify(result)}`)
  return llmText(result.llmContent)
}

/** The code and message of a failed result (fails the test otherwise). */
export const failure = (result: CallResult): { readonly code: string; readonly message: string; readonly display: string } => {
  if (result._tag !== "Failure") throw new Error(`expected failure, got ${JSON.stringify(result)}`)
  return { code: result.code, message: result.message, display: result.display }
}

/** The typed data of a successful result. */
export const dataOf = <A>(result: CallResult): A => {
  if (result._tag !== "Success") throw new Error(`expected success, got ${JSON.stringify(result)}`)
  return result.data as A
}

export { makeRecordingApprover }
