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
import * as Schema from "effect/Schema"
import { OutputStore } from "../../output/store.js"
import { Workspace } from "../../session/workspace.js"
import { defineTool, InvalidToolParams, Kind, textResult } from "../../tool/index.js"
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
import type { ExecutionTimeout, SandboxUnavailable, ShellExecuteError } from "../../tool/errors.js"
import type { InvocationSpec } from "../../tool/tool.js"

/** The warning shown when a command substitutes commands. @category constants */
export const SUBSTITUTION_WARNING = "Contains command substitution ($(...), backticks, <(...), or >(...))."

const DESCRIPTION = `Executes a bash command as \`bash -c <command>\` in the workspace and returns its output.

Output comes back as:
Command: <command>
Directory: <directory or (root)>
Output: <stdout and stderr, interleaved as a terminal shows them, colours removed>
Error: <spawn error or (none)>
Exit Code: <exit code or (none)>
Signal: <signal or (none)>
Process Group PGID: <pid or (none)>

Usage notes:
- Prefer the dedicated tools over shell commands: glob to find files, grep_search to search contents, read_file to read, edit and write_file to change files. Do not use find, grep, cat, head, tail, sed or echo for those jobs.
- Quote paths that contain spaces. Chain dependent commands with \`&&\` (use \`;\` only when later commands should run regardless); do not separate commands with newlines.
- Avoid \`cd\`: pass \`directory\` (an absolute path inside the workspace) instead, or use absolute paths.
- Timeout: \`timeout\` in milliseconds, default 120000 (2 minutes), at most 600000 (10 minutes). On timeout or cancellation the command's whole process tree is stopped.
- Long-running processes (dev servers, watchers, anything that does not exit by itself) must use \`is_background: true\`. You get an id (bg_…), an output file and a status file; read them to follow it, answer its prompts with send_message, stop it with task_stop. Do not end a command with \`&\`.
- Do not \`sleep\` to wait: a leading \`sleep N\` (2 s or more) is refused unless it stands alone with a \`# intentional-sleep: <reason>\` comment.
- The command leads its own process group (\`kill -- -PGID\` stops it and its children). Never run \`pkill node\`, \`killall node\` or similar: they would stop this tool server too; use task_stop or kill a specific PID.
- Output over 30000 characters is cut to its beginning and end; the full output is saved to a file you can read with read_file.
- Exit code 1 from grep, rg, diff, test, [ and [[ (also at the end of a pipeline) means "no match" / "false" and is not reported as an error.
- An in-place \`sed -i 's/old/new/flags' file\` is applied as an edit (previewed as a diff; the file must have been read first).`

const Params = Schema.Struct({
  command: Schema.String.annotate({ description: "Exact bash command to execute as `bash -c <command>`" }),
  is_background: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "Run in the background (default false): for dev servers, watchers and other processes that keep running. Returns at once with an id, an output file and a status file."
    })
  ),
  timeout: Schema.optionalKey(
    Schema.Finite.annotate({ description: "Timeout in milliseconds for a foreground command (default 120000, max 600000)." })
  ),
  description: Schema.optionalKey(
    Schema.String.annotate({ description: "Brief description of the command for the user (a few words)." })
  ),
  directory: Schema.optionalKey(
    Schema.String.annotate({
      description: "Absolute path of an existing directory inside the workspace to run the command in (default: the project root)."
    })
  ),
  sandbox: Schema.optionalKey(
    Schema.Boolean.annotate({
      description:
        "false: run this one command outside the command sandbox. Only when a sandboxed run was blocked (\"blocked by the sandbox: …\") and the command really needs that access; a person must approve it every time."
    })
  )
})

type Params = typeof Params.Type

/** The warning shown when a command asks to run outside the sandbox. @category constants */
export const UNSANDBOXED_WARNING = "Runs WITHOUT the command sandbox: it can read credentials, write anywhere and use the network."

/** What a successful call returns to programs: a foreground run, a started background shell, or a sed edit. @category models */
export type ShellData = ShellRunData | ({ readonly kind: "background" } & BackgroundShell) | SedEditData

/** Every error a call can fail with once built. @category errors */
export type ShellError = ExecutionTimeout | ShellExecuteError | SandboxUnavailable | SedEditError

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
    name: SHELL_TOOL_NAME,
    displayName: "Shell",
    description: DESCRIPTION,
    kind: Kind.Execute,
    params: Params,
    maxOutputChars: 30_000,
    truncateKeep: "both",
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
            rootCommand: (roots.length > 0 ? roots : analysis.roots).join(", ")
          })),
          concurrencySafe: readOnly && !isBackground && !unsandboxed,
          ruleSubjects: access.subjects,
          execute: ({ onOutput }) => {
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
              unsandboxed
            }).pipe(services, withStore)
          }
        }
        return spec
      })
  })
})
