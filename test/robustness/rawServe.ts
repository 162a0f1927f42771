/**
 * `toolwright serve` spawned with raw stdio: the test writes bytes to its stdin and sees every line
 * of its stdout, so it can send what no SDK client would (malformed JSON, oversized messages) and
 * check that stdout holds nothing but JSON-RPC.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Effect } from "effect"
import { cliPath } from "../support/serve.js"

export interface RawServe {
  readonly child: ChildProcessWithoutNullStreams
  /** Every stdout line so far, as written. */
  readonly lines: Array<string>
  readonly stderr: () => string
  /** Writes raw text to stdin. */
  readonly write: (text: string) => Promise<void>
  /** Sends a request and waits for the answer with its id. */
  readonly request: (method: string, params?: unknown, id?: number | string) => Promise<Record<string, any>>
  /** Waits for the answer with this id (null: the first answer with a null id not yet taken). */
  readonly answerTo: (id: number | string | null) => Promise<Record<string, any>>
  /** The exit code (null when killed), once the process exits. */
  readonly exited: Promise<number | null>
}

const ANSWER_WAIT_MS = 20_000

/** Spawns the built CLI's `serve`, initializes the MCP session, and kills the process with the scope. */
export const rawServe = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<RawServe> => {
      const child = spawn(process.execPath, [cliPath, "serve", ...args], {
        env: { ...process.env, NO_COLOR: "1", ...env },
        stdio: ["pipe", "pipe", "pipe"]
      })
      const lines: Array<string> = []
      const parsed: Array<Record<string, any> | undefined> = []
      const taken = new Set<number>()
      const waiters = new Set<() => void>()
      let pending = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (chunk: string) => {
        pending += chunk
        let newline: number
        while ((newline = pending.indexOf("\n")) !== -1) {
          const line = pending.slice(0, newline)
          pending = pending.slice(newline + 1)
          lines.push(line)
          try {
            parsed.push(JSON.parse(line))
          } catch {
            parsed.push(undefined)
          }
        }
        for (const wake of waiters) wake()
      })
      let stderr = ""
      child.stderr.setEncoding("utf8")
      child.stderr.on("data", (chunk: string) => {
        stderr += chunk
      })
      const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
      const answerTo = (id: number | string | null) =>
        new Promise<Record<string, any>>((resolve, reject) => {
          const check = () => {
            const index = parsed.findIndex((m, i) => !taken.has(i) && m !== undefined && m.id === id && ("result" in m || "error" in m))
            if (index === -1) return false
            taken.add(index)
            waiters.delete(wake)
            clearTimeout(timer)
            resolve(parsed[index]!)
            return true
          }
          const wake = () => void check()
          const timer = setTimeout(() => {
            waiters.delete(wake)
            reject(new Error(`no answer to id ${JSON.stringify(id)} within ${ANSWER_WAIT_MS} ms; stderr: ${stderr.slice(-2000)}`))
          }, ANSWER_WAIT_MS)
          if (!check()) waiters.add(wake)
        })
      const write = (text: string) =>
        new Promise<void>((resolve, reject) => child.stdin.write(text, (error) => (error ? reject(error) : resolve())))
      let nextId = 1000
      const request = async (method: string, params?: unknown, id: number | string = ++nextId) => {
        const answer = answerTo(id)
        await write(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params !== undefined ? { params } : {}) }) + "\n")
        return answer
      }
      const serve: RawServe = { child, lines, stderr: () => stderr, write, request, answerTo, exited }
      await request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } })
      await write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n")
      return serve
    }),
    (serve) =>
      Effect.promise(async () => {
        if (serve.child.exitCode === null && serve.child.signalCode === null) {
          serve.child.stdin.end()
          const timer = setTimeout(() => serve.child.kill("SIGKILL"), 5_000)
          await serve.exited
          clearTimeout(timer)
        }
      })
  )

/** The lines of stdout that are not JSON-RPC 2.0 messages. */
export const nonJsonRpcLines = (lines: ReadonlyArray<string>): Array<string> =>
  lines.filter((line) => {
    try {
      const value = JSON.parse(line)
      return typeof value !== "object" || value === null || value.jsonrpc !== "2.0"
    } catch {
      return true
    }
  })
