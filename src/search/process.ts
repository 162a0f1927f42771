/**
 * Child processes for the grep backends: `node:child_process` wrapped in Effect, killed when
 * the fiber is interrupted, stdout streamed line by line as raw bytes.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** A process could not be started. @category errors */
export class ProcessError extends Data.TaggedError("ProcessError")<{ readonly message: string }> {}

/** How a process ended. @category models */
export interface ProcessExit {
  readonly exitCode: number | null
  readonly signal: string | null
  readonly stderr: string
}

/** Options of {@link runProcess}. @category models */
export interface RunOptions {
  readonly cwd: string
  readonly env?: NodeJS.ProcessEnv
  /** Receives every complete stdout line (without its `\n`), as raw bytes. */
  readonly onLine?: (line: Buffer) => void
}

const STDERR_LIMIT = 64 * 1024

/** Splits a byte stream into `\n`-terminated lines; `end` flushes a last unterminated line. @category streams */
export const makeLineSplitter = (onLine: (line: Buffer) => void): { readonly push: (chunk: Buffer) => void; readonly end: () => void } => {
  let pending: Buffer | undefined
  return {
    push: (chunk) => {
      const data = pending === undefined ? chunk : Buffer.concat([pending, chunk])
      let start = 0
      let nl = data.indexOf(0x0a, start)
      while (nl !== -1) {
        onLine(data.subarray(start, nl))
        start = nl + 1
        nl = data.indexOf(0x0a, start)
      }
      pending = start < data.length ? data.subarray(start) : undefined
    },
    end: () => {
      if (pending !== undefined && pending.length > 0) onLine(pending)
      pending = undefined
    }
  }
}

/** Runs a command to completion, streaming stdout lines; interruption kills the child. @category processes */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: RunOptions
): Effect.Effect<ProcessExit, ProcessError> =>
  Effect.callback<ProcessExit, ProcessError>((resume) => {
    let done = false
    const finish = (effect: Effect.Effect<ProcessExit, ProcessError>) => {
      if (done) return
      done = true
      resume(effect)
    }
    const child = spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    const splitter = makeLineSplitter(options.onLine ?? (() => undefined))
    const stderr: Array<Buffer> = []
    let stderrBytes = 0
    child.stdout.on("data", (chunk: Buffer) => splitter.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderrBytes >= STDERR_LIMIT) return
      stderr.push(chunk)
      stderrBytes += chunk.length
    })
    child.on("error", (error) => finish(Effect.fail(new ProcessError({ message: `${command}: ${error.message}` }))))
    child.on("close", (exitCode, signal) => {
      splitter.end()
      finish(Effect.succeed({ exitCode, signal, stderr: Buffer.concat(stderr).toString("utf8") }))
    })
    return Effect.sync(() => {
      done = true
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    })
  })

/** Exit code of a short probe command, or undefined when it cannot be started. @category processes */
export const probeExitCode = (command: string, args: ReadonlyArray<string>, cwd: string, env?: NodeJS.ProcessEnv): Effect.Effect<number | undefined> =>
  runProcess(command, args, env === undefined ? { cwd } : { cwd, env }).pipe(
    Effect.map((exit) => exit.exitCode ?? undefined),
    Effect.catch(() => Effect.succeed(undefined))
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
