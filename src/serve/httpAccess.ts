/**
 * Who may talk to the HTTP door: the listen address, the bearer token and the `Origin`/`Host`
 * checks that keep a web page (DNS rebinding included) from driving a local server. Pure, apart
 * from the token comparison's hashing.
 *
 * @since 0.1.0
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as Schema from "effect/Schema"

/** The address `--http` binds when only a port is given. @category constants */
export const DEFAULT_HTTP_HOST = "127.0.0.1"

/** The path of the MCP endpoint. @category constants */
export const MCP_PATH = "/mcp"

/** Default `--idle-timeout`: a session with no request for this long is closed (ms). @category constants */
export const DEFAULT_IDLE_TIMEOUT_MS = 30 * 60_000

/** Default `--max-sessions`. @category constants */
export const DEFAULT_MAX_SESSIONS = 100

/** `--http` is not `[HOST:]PORT`. @category errors */
export class InvalidListenAddress extends Schema.TaggedError<InvalidListenAddress>()("InvalidListenAddress", {
  message: Schema.String
}) {}

/** A non-loopback bind without a bearer token. @category errors */
export class TokenRequired extends Schema.TaggedError<TokenRequired>()("TokenRequired", { message: Schema.String }) {}

/** Where the door listens. @category models */
export interface ListenAddress {
  readonly host: string
  readonly port: number
}

/**
 * Parses `PORT`, `HOST:PORT` or `[IPv6]:PORT`.
 *
 * @category parsing
 */
export const parseListenAddress = (text: string): ListenAddress | InvalidListenAddress => {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]:|([^:[\]]+):)?(\d{1,5})$/.exec(text.trim())
  const port = match === null ? NaN : Number(match[3])
  if (match === null || port > 65535) {
    return new InvalidListenAddress({
      message: `--http ${JSON.stringify(text)} is not [HOST:]PORT. Examples: --http 8931, --http 127.0.0.1:8931, --http [::1]:8931, --http 0.0.0.0:8931 (with a token).`
    })
  }
  return { host: match[1] ?? match[2] ?? DEFAULT_HTTP_HOST, port }
}

/** Whether a host name or address only reaches this machine. @category predicates */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "")
  return h === "localhost" || h === "::1" || /^127(?:\.\d{1,3}){3}$/.test(h) || h === "::ffff:127.0.0.1"
}

/** A token given where none may be empty. @category parsing */
export const requireToken = (address: ListenAddress, token: string | undefined): TokenRequired | undefined =>
  token === undefined && !isLoopbackHost(address.host)
    ? new TokenRequired({
      message: `Refusing to serve on ${address.host}, which other machines can reach, without a bearer token. ` +
        `Give one with --token-file FILE or the TOOLWRIGHT_TOKEN environment variable, or bind 127.0.0.1.`
    })
    : undefined

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest()

/**
 * Compares a presented token with the expected one in constant time (both hashed first, so the
 * lengths match and the time says nothing about either).
 *
 * @category predicates
 */
export const tokenMatches = (expected: string, presented: string): boolean => timingSafeEqual(digest(expected), digest(presented))

/** What the door checks requests against. @category models */
export interface AccessPolicy {
  /** The bearer token, when one is required. */
  readonly token: string | undefined
  /** Origins a browser page may call from (`--allow-origin`), e.g. `https://app.example.com`. */
  readonly allowedOrigins: ReadonlyArray<string>
  /** `Host` values accepted, when the door is bound to loopback (DNS-rebinding protection); undefined: any. */
  readonly allowedHosts: ReadonlyArray<string> | undefined
}

/** The headers the checks read. @category models */
export interface AccessHeaders {
  readonly origin?: string | undefined
  readonly host?: string | undefined
  readonly authorization?: string | undefined
}

/** A request refused: its HTTP status and the message for the client. @category models */
export interface Refusal {
  readonly status: 401 | 403
  readonly message: string
}

/**
 * The `Host` values a loopback bind answers to: the loopback names with the bound port.
 *
 * @category constructors
 */
export const loopbackHosts = (port: number): ReadonlyArray<string> =>
  ["127.0.0.1", "localhost", "[::1]"].map((host) => `${host}:${port}`)

const normalizeOrigin = (origin: string) => origin.trim().replace(/\/+$/, "").toLowerCase()

/**
 * Checks one request: a foreign `Origin` or `Host` is refused with 403, a missing or wrong bearer
 * token with 401. Requests without `Origin` (not from a browser page) pass the origin check.
 *
 * @category predicates
 */
export const checkAccess = (policy: AccessPolicy, headers: AccessHeaders): Refusal | undefined => {
  if (headers.origin !== undefined && headers.origin !== "") {
    const origin = normalizeOrigin(headers.origin)
    if (!policy.allowedOrigins.some((allowed) => normalizeOrigin(allowed) === origin)) {
      return {
        status: 403,
        message: `Origin ${headers.origin} may not use this server. Start it with --allow-origin ${headers.origin} to allow that page.`
      }
    }
  }
  if (policy.allowedHosts !== undefined) {
    const host = (headers.host ?? "").toLowerCase()
    if (!policy.allowedHosts.includes(host)) {
      return { status: 403, message: `Host ${JSON.stringify(headers.host ?? "")} is not this server's address; connect to ${policy.allowedHosts[0]}.` }
    }
  }
  if (policy.token !== undefined) {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? "")?.[1]
    if (presented === undefined) {
      return { status: 401, message: "Missing bearer token: send the header Authorization: Bearer <token>." }
    }
    if (!tokenMatches(policy.token, presented)) {
      return { status: 401, message: "Wrong bearer token: use the token the server was started with (--token-file or TOOLWRIGHT_TOKEN)." }
    }
  }
  return undefined
}
