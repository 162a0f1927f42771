/**
 * Cluster tests: runner processes of the built CLI (`npm run build` first) on a private PostgreSQL,
 * and a front in the test process.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { Effect, Layer } from "effect"
import type { WireBatch } from "../../src/cluster/index.js"
import { cleanEnv } from "./cli.js"
import { freePort } from "./postgres.js"
import { cliPath } from "./serve.js"

/** A running runner process. */
export interface TestRunner {
  readonly name: string
  readonly port: number
  readonly child: ChildProcess
  /** What it wrote to stderr so far. */
  readonly stderr: () => string
  /** Sends a signal and waits for the process to exit. */
  readonly stop: (signal: NodeJS.Signals) => Effect.Effect<number | null>
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode)
    else child.once("exit", (code) => resolve(code))
  })

/**
 * Starts `toolwright runner` and waits for its ready line. Scoped: the runner is stopped (SIGTERM,
 * then SIGKILL) when the scope closes, if it still runs.
 */
export const startRunner = (options: {
  readonly sqlUrl: string
  readonly root: string
  readonly stateDir: string
  readonly groups?: ReadonlyArray<string>
  readonly extraArgs?: ReadonlyArray<string>
}) =>
  Effect.acquireRelease(
    Effect.gen(function*() {
      const port = yield* Effect.promise(freePort)
      const args = [
        cliPath, "runner", "--sql", options.sqlUrl, "--host", "127.0.0.1", "--port", String(port),
        "--root", options.root, "--state-dir", options.stateDir,
        ...(options.groups ?? []).flatMap((g) => ["--group", g]),
        ...(options.extraArgs ?? [])
      ]
      const child = spawn(process.execPath, args, { cwd: options.root, env: cleanEnv(), stdio: ["ignore", "ignore", "pipe"] })
      let stderr = ""
      child.stderr!.on("data", (d) => (stderr += d))
      yield* Effect.callback<void, Error>((resume) => {
        const onData = () => {
          if (stderr.includes("toolwright runner ready")) {
            child.stderr!.off("data", onData)
            resume(Effect.void)
          }
        }
        child.stderr!.on("data", onData)
        child.once("exit", (code) => resume(Effect.fail(new Error(`runner exited (${code}) before it was ready:\n${stderr}`))))
      }).pipe(Effect.timeout("60 seconds"))
      const runner: TestRunner = {
        name: `127.0.0.1:${port}`,
        port,
        child,
        stderr: () => stderr,
        stop: (signal) =>
          Effect.promise(() => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal)
            return exited(child)
          })
      }
      return runner
    }),
    (runner) =>
      Effect.promise(async () => {
        if (runner.child.exitCode !== null || runner.child.signalCode !== null) return
        runner.child.kill("SIGTERM")
        const timer = setTimeout(() => runner.child.kill("SIGKILL"), 20_000)
        await exited(runner.child)
        clearTimeout(timer)
      })
  )

/** Builds a layer into the current scope and returns its context (a front, here). */
export const buildIn = <A, E>(layer: Layer.Layer<A, E>) => Layer.build(layer)

/** One call's result as the cluster returns it (an MCP `CallToolResult`). */
export interface McpResult {
  readonly isError?: boolean
  readonly content: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  readonly _meta?: Record<string, unknown>
}

/** The result of the batch's call `i`. */
export const resultOf = (batch: WireBatch, i = 0) => batch.results[i]!.result as McpResult
/** A result's text parts, joined. */
export const textOf = (r: McpResult) => r.content.map((c) => c.text ?? "").join("\n")
/** A failed result's error code. */
export const errorType = (r: McpResult) => r._meta?.["toolwright/errorType"]
