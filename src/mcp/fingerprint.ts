/**
 * The identity of a server connection: a stable hash of how it is reached, so sessions that use
 * the same server share one connection and a changed server gets a new one (reference §13.5).
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import type { McpTransportConfig } from "./config.js"

const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
    : value

/**
 * A short stable hash of how a server is reached (command, args, env, cwd or url, headers), so two
 * sessions with the same server share one connection and a changed server gets a new one.
 *
 * @category config
 */
export const fingerprint = (transport: McpTransportConfig): string =>
  createHash("sha256").update(JSON.stringify(canonical(transport))).digest("hex").slice(0, 16)

/** The pool key of a server: `<name>::<fingerprint>` (reference §13.5). @category config */
export const poolKey = (name: string, transport: McpTransportConfig): string => `${name}::${fingerprint(transport)}`
