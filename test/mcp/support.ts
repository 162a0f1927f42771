/**
 * Helpers for the MCP tests: configs for the fixture server and server-everything, decoded by the
 * real config decoder, and log readers.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { type McpServerConfig, parseMcpConfig } from "../../src/mcp/config.js"
import { repoRoot } from "../support/serve.js"

/** The fixture MCP server (stdio). */
export const fixtureServer = path.join(repoRoot, "test", "fixtures", "mcp", "server.mjs")

/** server-everything's entry point (its bin). */
export const everythingServer = path.join(repoRoot, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")

/** A raw config entry for the fixture server. */
export const fixtureEntry = (env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [fixtureServer],
  env,
  ...extra
})

/** A raw config entry for server-everything over stdio. */
export const everythingEntry = (extra: Record<string, unknown> = {}) => ({
  command: process.execPath,
  args: [everythingServer, "stdio"],
  ...extra
})

/** Decodes one server entry with the real decoder; fails the test on problems. */
export const decodeServer = (name: string, entry: unknown): Effect.Effect<McpServerConfig> =>
  Effect.gen(function*() {
    const config = yield* parseMcpConfig({ mcpServers: { [name]: entry } }).pipe(Effect.orDie)
    const server = config.servers[0]
    if (!server) return yield* Effect.die(new Error(`config problems: ${JSON.stringify(config.problems)}`))
    return server
  })

/** The `start <pid>` / `child <pid>` lines the fixture appended. */
export const readLog = (file: string): { readonly starts: Array<number>; readonly children: Array<number> } => {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n") : []
  const pick = (kind: string) => lines.filter((l) => l.startsWith(`${kind} `)).map((l) => Number(l.slice(kind.length + 1)))
  return { starts: pick("start"), children: pick("child") }
}

/** Polls a condition (real time) up to a bound; for effects of other processes, not for timing assertions. */
export const eventually = <A>(check: Effect.Effect<A | undefined>, what: string, limitMs = 10_000): Effect.Effect<A> =>
  Effect.gen(function*() {
    const deadline = Date.now() + limitMs
    for (;;) {
      const value = yield* check
      if (value !== undefined) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })
