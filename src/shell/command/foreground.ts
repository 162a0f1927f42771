/**
 * A foreground `run_shell_command`: run through the {@link ProcessHost}, then turn the result into
 * the reference's texts and error codes — exit 1 of `grep`/`rg`/`diff`/`test`/`[`/`[[` is not a
 * failure, a timeout is `execution_timeout`, any other non-zero exit or a spawn error is
 * `shell_execute_error` — with the output self-truncated at 30 000 chars (head and tail kept,
 * the full text saved) like the reference does.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import { OutputStore, truncateAndPersist } from "../../output/index.js"
import {
  type Display,
  ExecutionTimeout,
  type LiveOutput,
  ShellExecuteError,
  textResult,
  type ToolResult
} from "../../tool/index.js"
import { type LauncherName, sandboxBlockedText, sandboxBlocks } from "../../process/index.js"
import { type CommandAnalysis, isExitError } from "./analysis.js"
import { SHELL_MAX_OUTPUT_CHARS, SHELL_PREVIEW_CHARS } from "../config.js"
import type { Backend } from "../terminal/spawn.js"
import { type Handoff, ProcessHost } from "../terminal/host.js"
import { type BackgroundShell, BackgroundShells } from "../background/background.js"
import {
  formatShellResult,
  longRunHint,
  spilledResultText,
  timeoutSummary,
  timeoutText,
  viewOf,
  wantsLongRunHint
} from "./result.js"

/** The tool's name (also the prefix of saved outputs). @category constants */
export const SHELL_TOOL_NAME = "run_shell_command"

/** What a successful foreground call returns to programs. @category models */
export interface ShellRunData {
  readonly kind: "foreground"
  readonly command: string
  readonly directory: string
  readonly exitCode: number | null
  readonly signal: string | null
  readonly pid: number | undefined
  readonly backend: Backend
  /** What started the process: the posix_spawn addon, or child_process / node-pty. */
  readonly launcher: LauncherName
  /** Why the PTY was not used, when it was not. */
  readonly fallbackReason?: string | undefined
  /** Raw bytes the command printed. */
  readonly outputBytes: number
  /** Where the whole output is, when the model got only part of it. */
  readonly outputFile?: string | undefined
  readonly elapsedMs: number
  /** Time the command waited for a launch slot before it started (ms; absent when it did not wait), not part of `elapsedMs` or the timeout. */
  readonly launchWaitMs?: number
}

/** What a foreground run needs. @category models */
export interface ForegroundRequest {
  readonly command: string
  /** The command's analysis (its exit-code rule). */
  readonly analysis: CommandAnalysis
  /** The absolute working directory. */
  readonly cwd: string
  /** As given by the model (the result's `Directory:` line). */
  readonly directoryParam: string | undefined
  readonly timeoutMs: number
  readonly onOutput?: ((chunk: LiveOutput) => Effect.Effect<void>) | undefined
  /** New output lines as they come (see `RunRequest.onLiveText`). */
  readonly onLiveText?: ((text: string) => Effect.Effect<void>) | undefined
  /** Run outside the sandbox (a person approved it). */
  readonly unsandboxed?: boolean | undefined
}

/** The result of a foreground command moved to the background: what it printed, its task id, how to go on. */
export const movedToBackgroundText = (
  request: Pick<ForegroundRequest, "command" | "directoryParam">,
  reason: Handoff["reason"],
  elapsedMs: number,
  output: string,
  shell: BackgroundShell
): string => {
  const why = reason === "input"
    ? "It is waiting for input: it printed nothing more and reads from its terminal."
    : `It was still running after ${Math.round(elapsedMs / 1000)} s.`
  const tail = output.length > SHELL_PREVIEW_CHARS ? `…${output.slice(-SHELL_PREVIEW_CHARS)}` : output
  return [
    `Command: ${request.command}`,
    `Directory: ${request.directoryParam ?? "(root)"}`,
    `${why} So it was moved to the background instead of waiting, as task ${shell.id}${shell.pid !== undefined ? ` (pid ${shell.pid})` : ""}.`,
    `Output so far:\n${tail === "" ? "(none)" : tail}`,
    `Its output continues in ${shell.outputPath}.`,
    `To type a line into it, call send_message with task_id "${shell.id}" and the text (a newline is added); to end it, call task_stop with ` +
    `task_id "${shell.id}". Both are deferred tools: fetch them with tool_search "select:send_message,task_stop" first if you have not. ` +
    `You are told when it finishes.`
  ].join("\n")
}

const selfTruncate = (text: string) =>
  truncateAndPersist(SHELL_TOOL_NAME, text, { chars: SHELL_MAX_OUTPUT_CHARS, lines: Infinity, keep: "both", previewChars: SHELL_PREVIEW_CHARS })

/**
 * Runs a foreground command and builds its result or error.
 *
 * @category execution
 */
export const runForeground = Effect.fnUntraced(function*(request: ForegroundRequest) {
  const host = yield* ProcessHost
  const store = yield* OutputStore
  const result = yield* host.run({
    command: request.command,
    cwd: request.cwd,
    timeoutMs: request.timeoutMs,
    spillDir: store.scratch.dir,
    spillBudget: store.scratch,
    onOutput: request.onOutput,
    onLiveText: request.onLiveText,
    unsandboxed: request.unsandboxed,
    autoBackground: { idleMs: host.settings.autoBackgroundIdleMs, wallMs: host.settings.autoBackgroundWallMs }
  })
  const view = viewOf(result.output)
  const plain = view.kind === "spilled" ? `${view.head}\n…\n${view.tail}` : view.text

  // still running, but waiting for input or past the wall time: it goes on as a background shell
  if (result.handoff !== undefined) {
    const background = yield* BackgroundShells
    const shell = yield* background.adopt({ command: request.command, cwd: request.cwd, handoff: result.handoff, outputSoFar: plain })
    return textResult(movedToBackgroundText(request, result.handoff.reason, result.elapsedMs, plain, shell), {
      display: `Moved to the background as ${shell.id} (${result.handoff.reason === "input" ? "waiting for input" : "still running"}).`,
      data: { kind: "background" as const, autoBackground: result.handoff.reason, ...shell }
    })
  }

  let display: Display = result.ansi !== undefined && result.ansi !== "" ? { _tag: "AnsiOutput", ansi: result.ansi } : plain
  if (plain.trim() === "") {
    display = result.timedOut
      ? timeoutSummary(request.timeoutMs)
      : result.error !== undefined
      ? `Command failed: ${result.error}`
      : result.signal !== null
      ? `Command terminated by signal: ${result.signal}`
      : `Command exited with code: ${result.exitCode}`
  }

  let outputFile: string | undefined = view.kind === "spilled" ? view.path : undefined
  const finalText = Effect.fnUntraced(function*(text: string) {
    if (view.kind === "spilled") return text
    const out = yield* selfTruncate(text)
    if (out.persisted) outputFile = out.persisted.path
    return out.content
  })

  if (result.timedOut) {
    const message = view.kind === "spilled"
      ? spilledResultText(view, (o) => timeoutText(request.timeoutMs, o))
      : timeoutText(request.timeoutMs, plain)
    return yield* new ExecutionTimeout({
      message: yield* finalText(message),
      display: typeof display === "string" && display !== plain ? display : `${timeoutSummary(request.timeoutMs)}\n${plain}`
    })
  }

  const lines = (output: string) =>
    formatShellResult({
      command: request.command,
      directory: request.directoryParam,
      output,
      error: result.error,
      exitCode: result.exitCode,
      signal: result.signal,
      pgid: result.pid
    })
  let text = view.kind === "spilled" ? spilledResultText(view, lines) : lines(plain)
  const failed = result.error !== undefined || result.signal !== null || isExitError(request.analysis, result.exitCode)
  const blocked = failed ? sandboxBlockedText(sandboxBlocks(plain, host.sandbox.mode === result.sandbox ? host.sandbox : { ...host.sandbox, mode: result.sandbox }, result.sandboxScope)) : ""
  if (blocked !== "") text += `\n\n${blocked}`
  if (wantsLongRunHint({ elapsedMs: result.elapsedMs, timeoutMs: request.timeoutMs, timedOut: false, signal: result.signal })) {
    text += `\n\n${longRunHint(result.elapsedMs)}`
  }
  const llm = yield* finalText(text)

  if (failed) {
    return yield* new ShellExecuteError({ message: llm, display: typeof display === "string" ? display : plain || `Command exited with code: ${result.exitCode}` })
  }
  const data: ShellRunData = {
    kind: "foreground",
    command: request.command,
    directory: request.cwd,
    exitCode: result.exitCode,
    signal: result.signal,
    pid: result.pid,
    backend: result.backend,
    launcher: result.launcher,
    ...(result.fallbackReason !== undefined ? { fallbackReason: result.fallbackReason } : {}),
    outputBytes: result.output.totalBytes,
    ...(outputFile !== undefined ? { outputFile } : {}),
    elapsedMs: result.elapsedMs,
    ...(result.launchWaitMs !== undefined ? { launchWaitMs: result.launchWaitMs } : {})
  }
  return textResult(llm, { display, data }) as ToolResult<ShellRunData>
})
