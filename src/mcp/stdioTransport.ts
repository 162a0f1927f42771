/**
 * The client transport for local servers: a child process speaking newline-delimited JSON-RPC on
 * stdin/stdout. Unlike the SDK's, it bounds each message (not the whole buffer, so a 10 MB result
 * passes and a runaway one closes the connection), skips lines that are not JSON-RPC instead of
 * failing on them, keeps the tail of stderr for error messages, and starts the server in its own
 * process group so that stopping it stops its whole tree.
 *
 * @since 0.1.0
 */
import { type ChildProcess, spawn } from "node:child_process"
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { ErrorCode, type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { KILL_GRACE_MS, MAX_STDIO_MESSAGE_BYTES, STDERR_TAIL_BYTES } from "./constants.js"

/** Variables a local server inherits besides the SDK's defaults (HOME, LOGNAME, PATH, SHELL, TERM, USER). */
const EXTRA_INHERITED_ENV = [
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TMPDIR",
  "TZ",
  "NODE_EXTRA_CA_CERTS",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy"
]

/**
 * The environment of a local server: a short list of safe variables from ours (secrets in our
 * environment do not leak to every server), then the server's `env`.
 *
 * @category constructors
 */
export const serverEnvironment = (env: Readonly<Record<string, string>>): Record<string, string> => {
  const base: Record<string, string> = getDefaultEnvironment()
  for (const key of EXTRA_INHERITED_ENV) {
    const value = process.env[key]
    if (value !== undefined && !value.startsWith("()")) base[key] = value
  }
  return { ...base, ...env }
}

/** How to start a local server. @category models */
export interface StdioServerParams {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  /** Default {@link MAX_STDIO_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number | undefined
  /** Lines on stdout that are not JSON-RPC (logged by the caller). */
  readonly onGarbage?: ((line: string) => void) | undefined
}

/**
 * A stdio client transport with bounded messages and process-group spawning.
 *
 * @category transports
 */
export class BoundedStdioTransport implements Transport {
  onclose?: (() => void) | undefined
  onerror?: ((error: Error) => void) | undefined
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined

  #child: ChildProcess | undefined
  #pending: Array<Buffer> = []
  #pendingBytes = 0
  #stderr = ""
  #exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
  #closeReason: string | undefined
  #garbage = 0

  constructor(readonly params: StdioServerParams) {}

  /** The server's pid once started. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** The last {@link STDERR_TAIL_BYTES} of the server's stderr. */
  get stderrTail(): string {
    return this.#stderr
  }

  /** Why the connection closed: our reason (an oversized message) or the exit status; undefined while open. */
  get closeReason(): string | undefined {
    if (this.#closeReason !== undefined) return this.#closeReason
    if (this.#exit === undefined) return undefined
    const how = this.#exit.signal ? `was killed by ${this.#exit.signal}` : `exited with code ${this.#exit.code}`
    const tail = this.#stderr.trim()
    return `the server process ${how}${tail ? `; its stderr ends with: ${tail.slice(-600)}` : ""}`
  }

  /** Whether the server process has exited. */
  get exited(): boolean {
    return this.#exit !== undefined
  }

  /** How many stdout lines were not JSON-RPC and were skipped. */
  get garbageLines(): number {
    return this.#garbage
  }

  start(): Promise<void> {
    if (this.#child) return Promise.reject(new Error("BoundedStdioTransport already started"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        cwd: this.params.cwd,
        env: serverEnvironment(this.params.env),
        stdio: ["pipe", "pipe", "pipe"],
        detached: process.platform !== "win32",
        windowsHide: true,
        shell: false
      })
      this.#child = child
      let started = false
      child.once("spawn", () => {
        started = true
        resolve()
      })
      child.once("error", (error: NodeJS.ErrnoException) => {
        const message = error.code === "ENOENT"
          ? `command "${this.params.command}" was not found (is it installed and on PATH?)`
          : error.code === "EACCES"
          ? `command "${this.params.command}" is not executable`
          : `the server could not be started: ${error.message}`
        this.#closeReason ??= message
        if (!started) reject(new Error(message))
        else this.onerror?.(error)
      })
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal }
        // Orphans of a dead server stay in its process group; stop them now, while the group id
        // cannot belong to anyone else.
        if (child.pid !== undefined && process.platform !== "win32") {
          try {
            process.kill(-child.pid, "SIGTERM")
          } catch {
            // the group is empty
          }
        }
      })
      child.once("close", () => {
        this.#child = undefined
        this.onclose?.()
      })
      child.stdin?.on("error", () => {
        // EPIPE after the server died: the close event reports it.
      })
      child.stdout?.on("data", (chunk: Buffer) => this.#onData(chunk))
      child.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES)
      })
    })
  }

  #onData(chunk: Buffer): void {
    let rest = chunk
    for (;;) {
      const newline = rest.indexOf(0x0a)
      if (newline === -1) {
        this.#pending.push(rest)
        this.#pendingBytes += rest.length
        if (this.#pendingBytes > (this.params.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES)) this.#overflow()
        return
      }
      const head = rest.subarray(0, newline)
      const line = this.#pending.length === 0 ? head : Buffer.concat([...this.#pending, head])
      this.#pending = []
      this.#pendingBytes = 0
      rest = rest.subarray(newline + 1)
      if (line.length > (this.params.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES)) {
        this.#overflow()
        return
      }
      this.#onLine(line.toString("utf8").replace(/\r$/, ""))
      if (rest.length === 0) return
    }
  }

  #overflow(): void {
    const max = this.params.maxMessageBytes ?? MAX_STDIO_MESSAGE_BYTES
    this.#pending = []
    this.#pendingBytes = 0
    this.#closeReason = `the server sent a message larger than ${max} bytes, so the connection was closed`
    this.onerror?.(new Error(this.#closeReason))
    void this.close()
  }

  #onLine(line: string): void {
    if (line.trim() === "") return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      this.#skipGarbage(line)
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (parsed.success) {
      this.onmessage?.(parsed.data)
      return
    }
    // An answer to one of our requests that is not a valid response: fail that request now
    // (skipped, it would wait for the idle timeout).
    const invalid = invalidResponse(json)
    if (invalid !== undefined) this.onmessage?.(invalid)
    else this.#skipGarbage(line)
  }

  #skipGarbage(line: string): void {
    this.#garbage++
    this.params.onGarbage?.(line.length > 200 ? `${line.slice(0, 200)}…` : line)
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin
    if (!stdin || stdin.destroyed || !stdin.writable) return Promise.reject(new Error("Not connected"))
    return new Promise((resolve, reject) => {
      const ok = stdin.write(`${JSON.stringify(message)}\n`, (error) => {
        if (error) reject(new Error(`Not connected: ${error.message}`))
      })
      if (ok) resolve()
      else stdin.once("drain", () => resolve())
    })
  }

  /** Ends stdin, then SIGTERM to the process group, then SIGKILL after a grace period. */
  close(): Promise<void> {
    const child = this.#child
    if (!child) return Promise.resolve()
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(term)
        clearTimeout(kill)
        resolve()
      }
      child.once("close", done)
      const pid = child.pid
      const send = (sig: NodeJS.Signals) => {
        try {
          if (pid !== undefined && process.platform !== "win32") process.kill(-pid, sig)
          else child.kill(sig)
        } catch {
          // already gone
        }
      }
      try {
        child.stdin?.end()
      } catch {
        // already closed
      }
      const term = setTimeout(() => send("SIGTERM"), 200)
      const kill = setTimeout(() => {
        send("SIGKILL")
        setTimeout(done, 500).unref()
      }, KILL_GRACE_MS)
      term.unref()
      kill.unref()
    })
  }
}

/**
 * What is wrong with a JSON-RPC answer (`jsonrpc` 2.0, an id, no method) that the schema refuses:
 * its `result` is not an object, its `error` lacks a numeric code and a message, or it has neither.
 */
const responseProblem = (value: Record<string, unknown>): string => {
  if ("result" in value && "error" in value) return "it has both a result and an error"
  if ("result" in value) return `its result is ${describeJson(value["result"])}, not an object`
  if ("error" in value) return `its error is ${describeJson(value["error"])}, not an object with a numeric code and a message`
  return "it has neither a result nor an error"
}

const describeJson = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "object" ? "an object of the wrong shape" : `a ${typeof value}`

/**
 * An error response standing for an invalid answer to one of our requests, so that the request
 * fails at once with what was wrong; undefined for lines that answer no request.
 *
 * @category parsing
 */
export const invalidResponse = (json: unknown): JSONRPCMessage | undefined => {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined
  const value = json as Record<string, unknown>
  const id = value["id"]
  if (value["jsonrpc"] !== "2.0" || "method" in value) return undefined
  if (typeof id !== "string" && !(typeof id === "number" && Number.isInteger(id))) return undefined
  return {
    jsonrpc: "2.0",
    id,
    error: { code: ErrorCode.InternalError, message: `the server sent an invalid response: ${responseProblem(value)}` }
  }
}
