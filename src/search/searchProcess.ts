/**
 * Child processes for the grep backends: `node:child_process` wrapped in Effect, killed when
 * the fiber is interrupted (or an abort signal fires), stdout streamed line by line as raw bytes.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { gatedLaunch, Launcher, type LauncherService } from "../process/index.js"
import type { LaunchQueueTimeout } from "../tool/index.js"
import { MAX_SEARCH_FILE_BYTES } from "./constants.js"

/** A process could not be started. @category errors */
export class ProcessError extends Data.TaggedError("ProcessError")<{
  readonly message: string
  /** The system error code (`ENOENT`: the program is not on PATH). */
  readonly code?: string | undefined
}> {}

/** How a process ended. @category models */
export interface ProcessExit {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stderr: string
  /** True when {@link RunOptions.signal} stopped the process. */
  readonly aborted: boolean
}

/** Options of {@link runProcess}. @category models */
export interface RunOptions {
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Receives every complete stdout line (without its `\n`), as raw bytes. */
  readonly onLine?: (line: Buffer) => void
  /**
   * Receives every stderr line (without its `\n`); only the lines it returns true for are kept in
   * {@link ProcessExit.stderr}. Without it, stderr is kept as it came (up to 64 KiB either way).
   */
  readonly onStderrLine?: (line: Buffer) => boolean
  /** Aborting it kills the process and ends the run at once (not when the process is reaped), with `aborted` set and no exit code. */
  readonly signal?: AbortSignal
  /** Told the process id once the process is started (the grep size watch looks at its open files). */
  readonly onSpawn?: (pid: number) => void
}

const STDERR_LIMIT = 64 * 1024
const NEWLINE = Buffer.from("\n")

/**
 * Longest stdout line kept: a line of a file over `MAX_SEARCH_FILE_BYTES` can never be shown, so
 * a longer one (git grep or grep printing a 200 MB one-line file) is dropped as it streams instead
 * of being buffered whole.
 */
const MAX_LINE_BYTES = MAX_SEARCH_FILE_BYTES + 64 * 1024

/**
 * Splits a byte stream into `\n`-terminated lines; `end` flushes a last unterminated line. A line
 * longer than `maxLineBytes` is dropped, not buffered.
 * @category streams
 */
export const makeLineSplitter = (
  onLine: (line: Buffer) => void,
  maxLineBytes: number = MAX_LINE_BYTES
): { readonly push: (chunk: Buffer) => void; readonly end: () => void } => {
  // the unterminated tail, kept as chunks (one concat per line, not one per chunk: a long line stays linear)
  let pending: Array<Buffer> = []
  let pendingBytes = 0
  let dropping = false
  const takeLine = (last: Buffer): Buffer => {
    const line = pending.length === 0 ? last : Buffer.concat([...pending, last])
    pending = []
    pendingBytes = 0
    return line
  }
  return {
    push: (chunk) => {
      let start = 0
      let nl = chunk.indexOf(0x0a, start)
      while (nl !== -1) {
        const line = takeLine(chunk.subarray(start, nl))
        if (!dropping) onLine(line)
        dropping = false
        start = nl + 1
        nl = chunk.indexOf(0x0a, start)
      }
      if (start < chunk.length && !dropping) {
        pending.push(chunk.subarray(start))
        pendingBytes += chunk.length - start
        if (pendingBytes > maxLineBytes) {
          pending = []
          pendingBytes = 0
          dropping = true
        }
      }
    },
    end: () => {
      const line = takeLine(Buffer.alloc(0))
      if (line.length > 0 && !dropping) onLine(line)
    }
  }
}

/**
 * Runs a command to completion, streaming stdout lines; interruption kills the child. The spawn
 * waits its turn at the process's launch gate, if there is one (`process/launchGate.ts`).
 * @category processes
 */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: RunOptions
): Effect.Effect<ProcessExit, ProcessError | LaunchQueueTimeout> =>
  gatedLaunch(command, (admitted) =>
    Effect.flatMap(Launcher, (launcher) => runAdmitted(launcher, command, args, options, admitted.spawned)))

const runAdmitted = (
  launcher: LauncherService,
  command: string,
  args: ReadonlyArray<string>,
  options: RunOptions,
  spawned: () => void
): Effect.Effect<ProcessExit, ProcessError> =>
  Effect.callback<ProcessExit, ProcessError>((resume) => {
    let done = false
    const finish = (effect: Effect.Effect<ProcessExit, ProcessError>) => {
      if (done) return
      done = true
      resume(effect)
    }
    const child = launcher.launch(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    spawned()
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
    const abort = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    }
    const splitter = makeLineSplitter(options.onLine ?? (() => undefined))
    const stderr: Array<Buffer> = []
    let stderrBytes = 0
    const keepStderr = (bytes: Buffer) => {
      if (stderrBytes >= STDERR_LIMIT) return
      stderr.push(bytes)
      stderrBytes += bytes.length
    }
    const onStderrLine = options.onStderrLine
    const stderrLines = onStderrLine === undefined ? undefined : makeLineSplitter((line) => {
      if (onStderrLine(line)) keepStderr(Buffer.concat([line, NEWLINE]))
    })
    // a throw from a line handler must not escape an event callback (it would kill the process):
    // it stops the child and becomes this run's failure
    const guarded = (handle: () => void) => {
      if (done) return
      try {
        handle()
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        abort()
        finish(Effect.fail(new ProcessError({ message: `${command}: reading its output failed: ${message.slice(0, 200)}` })))
      }
    }
    child.stdout?.on("data", (chunk: Buffer) => guarded(() => splitter.push(chunk)))
    child.stderr?.on("data", (chunk: Buffer) =>
      guarded(() => (stderrLines === undefined ? keepStderr(chunk) : stderrLines.push(chunk)))
    )
    child.on("error", (error: NodeJS.ErrnoException) =>
      finish(Effect.fail(new ProcessError({ message: `${command}: ${error.message}`, code: error.code })))
    )
    // stopped on purpose: the answer is complete, so the run ends now, not when the killed process is reaped (~6 ms later, more under load)
    const stop = () => {
      abort()
      finish(Effect.succeed({ exitCode: null, signal: null, stderr: Buffer.concat(stderr).toString("utf8"), aborted: true }))
    }
    options.signal?.addEventListener("abort", stop, { once: true })
    child.on("close", (exitCode, signal) => {
      options.signal?.removeEventListener("abort", stop)
      const aborted = options.signal?.aborted ?? false
      if (!aborted && !done) {
        guarded(() => {
          splitter.end()
          stderrLines?.end()
        })
      }
      finish(Effect.succeed({ exitCode, signal, stderr: Buffer.concat(stderr).toString("utf8"), aborted }))
    })
    return Effect.sync(() => {
      done = true
      abort()
    })
  })

/** Exit code of a short probe command, or undefined when it cannot be started (a launch given up in the queue stays an error). @category processes */
export const probeExitCode = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  env?: NodeJS.ProcessEnv
): Effect.Effect<number | undefined, LaunchQueueTimeout> =>
  runProcess(command, args, env === undefined ? { cwd } : { cwd, env }).pipe(
    Effect.map((exit) => exit.exitCode ?? undefined),
    Effect.catchTag("ProcessError", () => Effect.succeed(undefined))
  )

/** The environment for search processes: a UTF-8 locale, no ripgrep config file, no grep colour/options variables. @category processes */
export const searchEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C.UTF-8", LANG: "C.UTF-8" }
  delete env.RIPGREP_CONFIG_PATH
  delete env.GREP_OPTIONS
  delete env.GREP_COLOR
  delete env.GREP_COLORS
  env.GIT_PAGER = "cat"
  return env
}
