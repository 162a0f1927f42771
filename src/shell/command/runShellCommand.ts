/**
 * `run_shell_command` (reference §9): runs `bash -c <command>` in the workspace, in the foreground
 * (PTY, timeout, live output, process-tree kill) or in the background (a registered process with
 * output and status files). Validation follows the reference's order and messages; commands the
 * parser proves read-only are allowed without asking and may run in parallel; a recognised
 * `sed -i` substitution is simulated as an edit (see `sedEdit.ts`).
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import * as nodePath from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { OutputStore } from "../../output/index.js"
import { Workspace } from "../../session/index.js"
import {
  defineTool,
  type ExecutionTimeout,
  InvalidToolParams,
  type InvocationSpec,
  progress,
  type LaunchQueueTimeout,
  type SandboxUnavailable,
  type ShellExecuteError,
  textResult
} from "../../tool/index.js"
import { BackgroundShells } from "../background/background.js"
import { outsideWarnings } from "./access.js"
import { accessOf, analyzeCommand, type CommandAnalysis, CommandScanProbe } from "./analysis.js"
import { accessesOutside } from "./outside.js"
import { MAX_TIMEOUT_MS } from "../config.js"
import { runForeground, SHELL_TOOL_NAME } from "./foreground.js"
import { ProcessHost } from "../terminal/host.js"
import { launchMessage } from "../background/notification.js"
import { SELF_KILL_MESSAGE } from "./selfKill.js"
import { blockedSleepMessage } from "./sleep.js"
import { planSedEdit, type SedEditData, type SedEditError } from "./sedEdit.js"
import { stat } from "../../disk/index.js"
import { makeMutationContext } from "../../write/index.js"
import type { BackgroundShell } from "../background/background.js"
import type { ShellRunData } from "./foreground.js"
import { RunShellCommandParams, runShellCommandDeclaration } from "./runShellCommand.decl.js"

export { RunShellCommandParams } from "./runShellCommand.decl.js"

/** The warning shown when a command substitutes commands. @category constants */
export const SUBSTITUTION_WARNING = "Contains command substitution ($(...), backticks, <(...), or >(...))."


type Params = typeof RunShellCommandParams.Type

/** The warning shown when a command asks to run outside the sandbox. @category constants */
export const UNSANDBOXED_WARNING = "Runs WITHOUT the command sandbox: it can read credentials, write anywhere and use the network."

/** What a successful call returns to programs: a foreground run, a started background shell, or a sed edit. @category models */
export type ShellData = ShellRunData | ({ readonly kind: "background" } & BackgroundShell) | SedEditData

/** Every error a call can fail with once built. @category errors */
export type ShellError = ExecutionTimeout | ShellExecuteError | SandboxUnavailable | LaunchQueueTimeout | SedEditError

/** The checks that need no I/O, in the reference's order (§9.2 steps 1–6a), on the call's one analysis. @category validation */
export const validateShellParams = (p: Params, analysis: CommandAnalysis): string | undefined => {
  if (p.command.trim() === "") return "Command cannot be empty."
  if (analysis.killsSelf) return SELF_KILL_MESSAGE
  if (p.is_background === true && analysis.endsWithBareAmpersand) {
    return "Background shell commands must not end with a bare \"&\". Remove the trailing \"&\" and rely on is_background: true instead."
  }
  if (analysis.roots.length === 0) return "Could not identify command root to obtain permission from user."
  if (p.timeout !== undefined) {
    if (!Number.isInteger(p.timeout)) return "Timeout must be an integer number of milliseconds."
    if (p.timeout <= 0) return "Timeout must be a positive number."
    if (p.timeout > MAX_TIMEOUT_MS) return `Timeout cannot exceed ${MAX_TIMEOUT_MS}ms (10 minutes).`
  }
  if (p.directory !== undefined && !nodePath.isAbsolute(p.directory)) return "Directory must be an absolute path."
  return undefined
}

/** The one-line description (§9.1). @category formatting */
export const describeShellCall = (p: Params): string => {
  let out = p.command
  if (p.directory !== undefined) out += ` [in ${p.directory}]`
  if (p.is_background === true) out += " [background]"
  else if (p.timeout !== undefined) out += ` [timeout: ${p.timeout}ms]`
  if (p.description !== undefined && p.description.trim() !== "") out += ` (${p.description.replace(/[\r\n]+/g, " ")})`
  return out
}

/**
 * Builds the tool for the current session.
 *
 * @category constructors
 */
export const makeRunShellCommand = Effect.gen(function*() {
  const workspace = yield* Workspace
  const host = yield* ProcessHost
  const background = yield* BackgroundShells
  const store = yield* OutputStore
  const mutation = yield* makeMutationContext
  const services = Effect.provideService(ProcessHost, host)
  const withStore = Effect.provideService(OutputStore, store)
  const withBackground = Effect.provideService(BackgroundShells, background)

  const resolveDirectory = Effect.fnUntraced(function*(directory: string | undefined) {
    if (directory === undefined) return workspace.primaryRoot
    const outside = new InvalidToolParams({
      message: `Directory '${directory}' is not within any of the registered workspace directories.`
    })
    const abs = yield* workspace.resolve(directory).pipe(Effect.mapError(() => outside))
    const stats = yield* Effect.option(stat(abs))
    if (Option.isNone(stats)) {
      return yield* new InvalidToolParams({
        message: `Directory '${directory}' does not exist. Pass an existing directory inside the workspace, or omit directory to run in the project root.`
      })
    }
    if (!stats.value.isDirectory()) {
      return yield* new InvalidToolParams({ message: `Directory '${directory}' is not a directory. Pass a directory, or omit directory to run in the project root.` })
    }
    return abs
  })

  return defineTool({
    ...runShellCommandDeclaration,
    toAutoClassifierInput: (p) => p.command,
    invoke: (p) =>
      Effect.gen(function*() {
        // The one parse of the call: validation, sleep, sed, permission and the exit-code rule all read it.
        const analysis = analyzeCommand(p.command, yield* CommandScanProbe)
        const problem = validateShellParams(p, analysis)
        if (problem !== undefined) return yield* new InvalidToolParams({ message: problem })
        const cwd = yield* resolveDirectory(p.directory)
        const isBackground = p.is_background === true
        if (!isBackground && analysis.blockedSleep !== undefined) {
          return yield* new InvalidToolParams({ message: blockedSleepMessage(analysis.blockedSleep) })
        }
        const description = describeShellCall(p)
        // In a read-only sandbox a `sed -i` is not turned into an edit (which the server would write): it runs, confined, and is refused.
        const sed = isBackground || host.sandbox.mode === "read-only" ? undefined : yield* planSedEdit({ sed: analysis.sedEdit, cwd, description, mutation })
        if (sed) return sed as InvocationSpec<ShellData, ShellError>
        // Permission: the same parse gives the subjects (redirections included), the read-only proof
        // and the paths it reads or writes; a read-only command reaching outside the roots asks.
        const access = accessOf(analysis, {
          cwd,
          root: workspace.primaryRoot,
          home: os.homedir(),
          cdPath: process.env["CDPATH"]
        })
        const outside = yield* accessesOutside(access.accesses, workspace.isWithin)
        const readOnly = access.readOnly && outside.length === 0
        const roots = [...new Set([...access.rootsNeedingApproval, ...outside.flatMap((a) => a.program ?? [])])]
        // An unsandboxed run is put to a person every time, whatever the mode or rules (plan mode refuses it).
        const unsandboxed = p.sandbox === false && host.sandbox.mode !== "off"
        const warnings = [
          ...(access.substitution ? [SUBSTITUTION_WARNING] : []),
          ...outsideWarnings(outside),
          ...(unsandboxed ? [UNSANDBOXED_WARNING] : [])
        ]
        const spec: InvocationSpec<ShellData, ShellError> = {
          description,
          defaultPermission: Effect.succeed(readOnly && !unsandboxed ? "allow" as const : "ask" as const),
          ...(unsandboxed ? { requiresPersonApproval: true } : {}),
          confirmation: Effect.sync(() => ({
            type: "exec" as const,
            title: "Confirm Shell Command",
            ...(warnings.length > 0 ? { warnings } : {}),
            command: p.command,
            rootCommand: (roots.length > 0 ? roots : analysis.roots).join(", "),
            amendable: { param: "command" as const, proposal: p.command }
          })),
          concurrencySafe: readOnly && !isBackground && !unsandboxed,
          ruleSubjects: access.subjects,
          execute: ({ onOutput, emit }) => {
            if (isBackground) {
              return background.start({ command: analysis.backgroundCommand, cwd, unsandboxed }).pipe(
                Effect.map((shell) =>
                  textResult(launchMessage(shell), {
                    display: `Background shell ${shell.id} started${shell.pid !== undefined ? ` (pid ${shell.pid})` : ""}.`,
                    data: { kind: "background" as const, ...shell }
                  })
                )
              )
            }
            return runForeground({
              command: p.command,
              analysis,
              cwd,
              directoryParam: p.directory,
              timeoutMs: p.timeout ?? host.settings.defaultTimeoutMs,
              onOutput,
              // New output lines go to the live tap as progress (MCP progress, effect/ai callers).
              ...(emit ? { onLiveText: (lines: string) => emit(progress(lines)) } : {}),
              unsandboxed
            }).pipe(services, withStore, withBackground)
          }
        }
        return spec
      })
  })
})
