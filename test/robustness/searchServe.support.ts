/**
 * The serve door for the robustness and security suites: `toolwright serve` (the built CLI) with
 * an environment of the test's choosing (a forced grep backend), and calls timed from outside.
 * Run `npm run build` first.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { connectServeWith } from "../support/serve.js"

type Content = Array<{ type: string; text?: string }>

/** The first text block of a tool result. */
export const textOf = (result: unknown): string => ((result as { content?: Content }).content ?? [])[0]?.text ?? ""

/** The error code of a failed tool result, or undefined when it succeeded. */
export const errorTypeOf = (result: { readonly isError?: unknown; readonly _meta?: Record<string, unknown> | undefined }) =>
  result.isError === true ? result._meta?.["toolwright/errorType"] : undefined

/** Spawns `toolwright serve --root ROOT --state-dir STATE` with extra environment variables (closed with the scope). */
export const serveWithEnv = (root: string, state: string, env: Record<string, string> = {}) =>
  Effect.map(connectServeWith({ args: ["--root", root, "--state-dir", state], extraEnv: env }), (s) => s.client)

/** A tool call and how long it took, measured by the client (the request timeout is far above the bounds tested). */
export const timedCall = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const started = performance.now()
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
    return { result, ms: performance.now() - started }
  })

/**
 * Runs `heavy`, and 300 ms into it a `list_directory` of `probeDir`: both results with their
 * times, so a test can check that the heavy call did not hold up the server.
 */
export const withProbe = (client: Client, heavy: { readonly name: string; readonly args: Record<string, unknown> }, probeDir: string) =>
  Effect.gen(function*() {
    const [main, probe] = yield* Effect.all([
      timedCall(client, heavy.name, heavy.args),
      Effect.sleep("300 millis").pipe(Effect.andThen(timedCall(client, "list_directory", { path: probeDir })))
    ], { concurrency: 2 })
    return { main, probe }
  })
