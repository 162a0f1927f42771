/**
 * Spawns the built CLI as an MCP server and connects the SDK client to it.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { Effect } from "effect"

export const repoRoot = path.resolve(import.meta.dirname, "../..")
export const cliPath = path.join(repoRoot, "bin", "toolwright.js")

/** A temp dir removed when the scope closes. */
export const tempDir = (prefix = "tw-") =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

/** Spawns `toolwright serve` with the args and connects a client (closed with the scope). */
export const connectServe = (args: ReadonlyArray<string>, capabilities: Record<string, unknown> = {}) =>
  Effect.map(connectServeWith({ args, capabilities }), (s) => s.client)

/** The CLI under test: this checkout's build, or another (`TOOLWRIGHT_TEST_CLI=/path/to/bin/toolwright.js`, to see a test fail on an older build). */
export const cliUnderTest = process.env["TOOLWRIGHT_TEST_CLI"] ?? cliPath

/** The uid/gid of `nobody`, for servers run unprivileged. */
export const NOBODY = 65534

/**
 * Like {@link connectServe}, with the server's environment (`env` replaces ours when given,
 * `extraEnv` adds to it), optionally as `nobody` (through `setpriv`), and its pid. Every suite that
 * drives the serve door spawns it here.
 */
export const connectServeWith = (options: {
  readonly args: ReadonlyArray<string>
  readonly capabilities?: Record<string, unknown>
  readonly env?: Record<string, string>
  readonly extraEnv?: Record<string, string>
  readonly asNobody?: boolean
  /** The `clientInfo.name` the client sends (default `toolwright-test`). */
  readonly clientName?: string
}) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: options.clientName ?? "toolwright-test", version: "0.0.0" }, { capabilities: options.capabilities ?? {} })
      const serve = [cliUnderTest, "serve", ...options.args]
      const transport = new StdioClientTransport({
        command: options.asNobody ? "setpriv" : process.execPath,
        args: options.asNobody ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", process.execPath, ...serve] : serve,
        stderr: "pipe",
        env: { ...(options.env ?? (process.env as Record<string, string>)), ...options.extraEnv, NO_COLOR: "1" }
      })
      await client.connect(transport)
      return { client, pid: transport.pid }
    }),
    ({ client }) => Effect.promise(() => client.close().catch(() => undefined))
  )
