/**
 * A real session (temp root and state dir, the built-in catalog) for the planning tools' tests,
 * and small helpers to call tools through the scheduler.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { Approver } from "../../src/run/approver.js"
import type { ToolHooks } from "../../src/run/hooks.js"
import type { ApprovalMode, PermissionRule } from "../../src/run/policy.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { llmText } from "../../src/tool/result.js"

/** A fresh temp dir (real path), removed when the test's scope closes. */
export const tempDir = (prefix = "tw-plan-") =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Options of {@link planSession}. */
export interface PlanSessionOptions {
  readonly root: string
  readonly stateDir: string
  readonly mode?: ApprovalMode
  readonly rules?: ReadonlyArray<PermissionRule>
  readonly hooks?: Layer.Layer<ToolHooks>
  readonly approver?: Layer.Layer<Approver>
}

/** A whole session with the built-in tools; the approver allows once unless given. */
export const planSession = (options: PlanSessionOptions) =>
  SessionLayer.layer({
    roots: [options.root],
    stateDir: options.stateDir,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.rules ? { rules: options.rules } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {})
  }).pipe(Layer.provide(options.approver ?? Approver.layerFixed({ _tag: "proceed_once" })))

/** Runs one call through the session's scheduler. */
export const run = (name: string, args: unknown): Effect.Effect<CallResult, never, Scheduler> =>
  Scheduler.use((scheduler) => scheduler.runOne({ callId: `${name}-${Math.random().toString(16).slice(2, 10)}`, name, args }))

/** The model-facing text of a result (the message of a failure or cancellation). */
export const textOf = (result: CallResult): string =>
  result._tag === "Success" ? llmText(result.llmContent) : result.message

/** The wire code of a failure, or the tag. */
export const codeOf = (result: CallResult): string => (result._tag === "Failure" ? result.code : result._tag)

/** Asserts nothing about the type: returns the success's data. */
export const dataOf = <A>(result: CallResult): A => (result._tag === "Success" ? (result.data as A) : (undefined as A))
