/**
 * The built serve door as a process the test can look at: its pid (for /proc), and optionally run
 * as an unprivileged user (root bypasses file modes, so permission tests need another uid).
 */
import * as fs from "node:fs"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { connectServeWith, NOBODY } from "../support/serve.js"

/** The uid/gid of `nobody`, the unprivileged user the permission tests run the server as. */
export { NOBODY }

/** A connected client, the server's pid, and a way to call a tool and time it. */
export interface Served {
  readonly client: Client
  readonly pid: number
  readonly call: (name: string, args: Record<string, unknown>) => Promise<CallOutcome>
}

/** One tool call's answer: its text, its error code (if any) and how long it took. */
export interface CallOutcome {
  readonly text: string
  readonly code: string | undefined
  readonly ms: number
}

/** Spawns `toolwright serve` (as `nobody` when `asNobody`), connected until the scope closes. */
export const serveProcess = (args: ReadonlyArray<string>, options: { readonly asNobody?: boolean } = {}) =>
  Effect.map(connectServeWith({ args, ...(options.asNobody ? { asNobody: true } : {}) }), ({ client, pid }): Served => ({
    client,
    pid: pid!,
    call: async (name, callArgs) => {
      const started = performance.now()
      const result = await client.callTool({ name, arguments: callArgs }, undefined, { timeout: 120_000 })
      const ms = performance.now() - started
      const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join("")
      const code = result.isError === true ? String(result._meta?.["toolwright/errorType"]) : undefined
      return { text, code, ms }
    }
  }))

/** A process's peak resident set (VmHWM) in bytes, from /proc; undefined where /proc has no such entry. */
export const peakRss = (pid: number): number | undefined => {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1]
  return kib === undefined ? undefined : Number(kib) * 1024
}
