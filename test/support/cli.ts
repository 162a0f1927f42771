/**
 * Running the built `toolwright` CLI in tests (`npm run build` first): piped stdio, so stdin is not
 * a terminal, and an environment without colour overrides.
 */
import { spawn } from "node:child_process"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { cliPath, tempDir } from "./serve.js"

/** The environment without colour overrides (each test sets its own). */
export const cleanEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "NO_COLOR" && k !== "FORCE_COLOR") env[k] = v
  return env
}

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs the built CLI with piped stdio (so stdin is not a terminal). */
export const runCli = (args: ReadonlyArray<string>, options: { readonly cwd: string; readonly input?: string; readonly env?: Record<string, string> }) =>
  Effect.callback<CliRun>((resume) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd,
      env: { ...cleanEnv(), ...options.env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d) => (stdout += d))
    child.stderr.on("data", (d) => (stderr += d))
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    child.stdin.end(options.input ?? "")
  })


/**
 * A workspace for CLI calls: a temp root holding `a.txt` ("hello world\nsecond line\n"), a temp
 * state dir, `read()` of a.txt, and `call(tool, args, extra, env)` running `toolwright call … --yes`
 * in the root with that state dir.
 */
export const cliWorkspace = (prefix: string) =>
  Effect.gen(function*() {
    const root = yield* tempDir(`${prefix}-`)
    const state = yield* tempDir(`${prefix}-state-`)
    fs.writeFileSync(path.join(root, "a.txt"), "hello world\nsecond line\n")
    const read = () => fs.readFileSync(path.join(root, "a.txt"), "utf8")
    const call = (tool: string, args: unknown, extra: ReadonlyArray<string> = [], env: Record<string, string> = {}) =>
      runCli(["call", tool, JSON.stringify(args), "--yes", "--state-dir", state, ...extra], { cwd: root, env })
    return { root, state, read, call }
  })
