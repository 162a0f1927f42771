/**
 * Spawns the built CLI's HTTP door (`toolwright serve --http 127.0.0.1:0 …`) and connects SDK
 * clients to it over Streamable HTTP.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { cliUnderTest } from "./serve.js"

export interface HttpDoor {
  readonly url: string
  readonly child: ChildProcess
  /** Everything the server said on stderr so far. */
  readonly stderr: () => string
}

/** Starts the HTTP door (killed with the scope) and waits for its address. */
export const startHttpDoor = (args: ReadonlyArray<string>, extraEnv: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<HttpDoor>((resolve, reject) => {
        const child = spawn(process.execPath, [cliUnderTest, "serve", "--http", "127.0.0.1:0", ...args], {
          stdio: ["ignore", "ignore", "pipe"],
          env: { ...process.env, ...extraEnv, NO_COLOR: "1" }
        })
        let text = ""
        child.stderr!.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8")
          const found = /listening on (\S+)/.exec(text)
          if (found) resolve({ url: found[1]!, child, stderr: () => text })
        })
        child.on("exit", (code) => reject(new Error(`serve --http exited (${code}) before listening:\n${text}`)))
      })
    ),
    (door) => Effect.sync(() => door.child.kill("SIGKILL"))
  )

/** Connects an SDK client (closed with the scope); `roots` are offered through the roots capability. */
export const connectHttp = (
  url: string,
  options: {
    readonly token?: string
    readonly roots?: ReadonlyArray<string>
    readonly capabilities?: Record<string, unknown>
    /** More headers on every request (e.g. X-Toolwright-Session). */
    readonly headers?: Record<string, string>
  } = {}
) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const roots = options.roots
      const client = new Client({ name: "toolwright-http-test", version: "0" }, {
        capabilities: { ...options.capabilities, ...(roots ? { roots: {} } : {}) }
      })
      if (roots) {
        client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: roots.map((dir) => ({ uri: `file://${dir}` })) }))
      }
      const headers = { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) }
      const transport = new StreamableHTTPClientTransport(new URL(url), {
        ...(Object.keys(headers).length > 0 ? { requestInit: { headers } } : {})
      })
      await client.connect(transport)
      return { client, transport }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )

/** Pids whose command line contains `marker` (from /proc). */
export const processesWith = (marker: string): Array<number> =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      return fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker) ? [Number(name)] : []
    } catch {
      return []
    }
  })

/** Polls `check` every 50 ms until it holds or `ms` pass; returns whether it held. */
export const eventually = (check: () => boolean, ms = 15_000) =>
  Effect.promise(async () => {
    const deadline = Date.now() + ms
    while (!check()) {
      if (Date.now() > deadline) return false
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return true
  })

/** The text of a tool result's first part. */
export const textOf = (result: { readonly content?: unknown }): string =>
  ((result.content as Array<{ text?: string }> | undefined)?.[0]?.text) ?? ""
