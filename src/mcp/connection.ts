/**
 * One live connection to an upstream server: the transport (stdio, streamable HTTP, or SSE for old
 * servers), the SDK client, and the notifications it delivers. A connection is acquired in a
 * `Scope`; closing the scope kills a local server's whole process tree.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"
import { pathToFileURL } from "node:url"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { SseError, SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js"
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import {
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema
} from "@modelcontextprotocol/sdk/types.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { McpSandboxConfig, McpServerConfig } from "./config.js"
import {
  type CommandLine,
  confine,
  killProcessTree,
  probeSandbox,
  SandboxConfig,
  type SandboxSettings,
  sandboxSettingsOrDefault
} from "../process/index.js"
import { KILL_GRACE_MS } from "./constants.js"
import { McpConnectError } from "./errors.js"
import { BoundedStdioTransport } from "./stdioTransport.js"

/** Our name and version in `initialize`. @category constants */
export const CLIENT_INFO = { name: "toolwright", version: "0.1.0" } as const

/** Which wire a connection uses. @category models */
export type TransportKind = "stdio" | "streamable-http" | "sse"

/** What an upstream tells us without being asked. @category models */
export type UpstreamNotice =
  | { readonly _tag: "ListChanged"; readonly list: "tools" | "resources" | "prompts" }
  | { readonly _tag: "Log"; readonly level: string; readonly logger: string | undefined; readonly data: unknown }
  | { readonly _tag: "Closed" }
  | { readonly _tag: "Garbage"; readonly line: string }

/** Where a connection runs and what it may tell the server. @category models */
export interface ConnectOptions {
  /** The default working directory of a local server, and the base of a relative `cwd`. */
  readonly cwd: string
  /** Workspace roots, announced to servers that ask (`roots/list`). */
  readonly roots: ReadonlyArray<string>
  readonly onNotice: (notice: UpstreamNotice) => void
}

/** A connected upstream. @category models */
export interface LiveConnection {
  readonly client: Client
  readonly kind: TransportKind
  /** The server process (stdio only). */
  readonly pid: number | undefined
  /** Whether the transport has closed (the server died, the network dropped). */
  readonly isClosed: () => boolean
  /** Why it closed, when known (exit status and stderr tail, an oversized message…). */
  readonly closeReason: () => string | undefined
  /**
   * Routes `notifications/progress` for a token of ours to a callback, in order with the response
   * (the SDK dispatches notifications a tick late and drops progress that arrives with the result).
   * Returns the unregister function.
   */
  readonly trackProgress: (token: string, onProgress: (progress: ProgressParams) => void) => () => void
}

/** The params of a progress notification. @category models */
export interface ProgressParams {
  readonly progress: number
  readonly total?: number | undefined
  readonly message?: string | undefined
}

/** Watches messages before the SDK sees them, synchronously and in order. */
const progressRouter = (transport: Transport) => {
  const routes = new Map<string, (progress: ProgressParams) => void>()
  transport.onmessage = (message) => {
    if (!("method" in message) || message.method !== "notifications/progress" || "id" in message) return
    const params = (message.params ?? {}) as Record<string, unknown>
    const route = routes.get(String(params["progressToken"]))
    if (route && typeof params["progress"] === "number") {
      route({
        progress: params["progress"],
        ...(typeof params["total"] === "number" ? { total: params["total"] } : {}),
        ...(typeof params["message"] === "string" ? { message: params["message"] } : {})
      })
    }
  }
  return (token: string, onProgress: (progress: ProgressParams) => void) => {
    routes.set(token, onProgress)
    return () => {
      routes.delete(token)
    }
  }
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** A URL without its query and credentials (they may carry secrets). */
const withoutQuery = (raw: string): string => {
  const url = new URL(raw)
  return `${url.origin}${url.pathname}`
}

/** The connection-loss signature of an error (reference §13.3 step 6, plus HTTP gateway errors). */
const CONNECTION_LOST = /ECONNREFUSED|ENOTFOUND|ECONNRESET|ETIMEDOUT|EPIPE|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|connection (closed|lost)|not connected|disconnected|transport closed|fetch failed|socket hang up|other side closed/i

/** How a failed request failed. @category models */
export type RequestFailure =
  /** The connection is gone; reconnecting may help. */
  | { readonly _tag: "ConnectionLost"; readonly message: string }
  /** The server answered with a JSON-RPC error. */
  | { readonly _tag: "Protocol"; readonly code: number; readonly message: string }
  | { readonly _tag: "Other"; readonly message: string }

/** Classifies an error thrown by the SDK client. @category errors */
export const classifyFailure = (error: unknown): RequestFailure => {
  if (error instanceof McpError) {
    if (error.code === ErrorCode.ConnectionClosed) return { _tag: "ConnectionLost", message: error.message }
    return { _tag: "Protocol", code: error.code, message: error.message }
  }
  if (error instanceof StreamableHTTPError && error.code !== undefined && [502, 503, 504].includes(error.code)) {
    return { _tag: "ConnectionLost", message: errorText(error) }
  }
  // 404 on a session request: the server forgot our session (it restarted); a new one is needed.
  if (error instanceof StreamableHTTPError && error.code === 404) {
    return { _tag: "ConnectionLost", message: `the server no longer knows this session (${errorText(error)})` }
  }
  const message = errorText(error)
  const cause = error instanceof Error && error.cause !== undefined ? errorText(error.cause) : ""
  return CONNECTION_LOST.test(`${message} ${cause}`) ? { _tag: "ConnectionLost", message: cause ? `${message} (${cause})` : message } : { _tag: "Other", message }
}

const makeClient = (options: ConnectOptions): Client => {
  const client = new Client(CLIENT_INFO, { capabilities: { roots: { listChanged: false } } })
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: options.roots.map((root) => ({ uri: pathToFileURL(root).href, name: nodePath.basename(root) }))
  }))
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => options.onNotice({ _tag: "ListChanged", list: "tools" }))
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => options.onNotice({ _tag: "ListChanged", list: "resources" }))
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => options.onNotice({ _tag: "ListChanged", list: "prompts" }))
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) =>
    options.onNotice({ _tag: "Log", level: n.params.level, logger: n.params.logger, data: n.params.data }))
  // Progress is routed by `progressRouter` (our tokens); the SDK's own routing is not used.
  client.setNotificationHandler(ProgressNotificationSchema, () => undefined)
  return client
}

/**
 * The command line of a local server that opted into the sandbox: bubblewrap (or sandbox-exec)
 * around it, writable roots and a private TMPDIR (removed with the connection). Fails to connect
 * when the sandbox cannot start, never falling back to an unconfined server.
 */
const sandboxedLaunch = (
  name: string,
  config: McpSandboxConfig,
  command: CommandLine,
  env: Readonly<Record<string, string>>,
  writable: ReadonlyArray<string>,
  cwd: string
) =>
  Effect.gen(function*() {
    const session = sandboxSettingsOrDefault(yield* SandboxConfig)
    const settings: SandboxSettings = { ...session, mode: config.mode, network: config.network ?? session.network }
    yield* probeSandbox(settings).pipe(Effect.mapError((e) => new McpConnectError({ server: name, message: e.message })))
    const tmpDir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(nodePath.join(os.tmpdir(), "toolwright-mcp-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const line = confine(settings, { writable, tmpDir, cwd }, command)
    return { file: line.file, args: line.args, env: { ...env, TMPDIR: tmpDir } }
  })

/** Starts a local server and connects to it; the scope kills its process tree. */
const connectStdio = (server: McpServerConfig & { readonly transport: { readonly _tag: "stdio" } }, options: ConnectOptions) =>
  Effect.gen(function*() {
    const t = server.transport
    const cwd = t.cwd === undefined ? options.cwd : nodePath.resolve(options.cwd, t.cwd)
    const launch = t.sandbox === undefined
      ? { file: t.command, args: t.args, env: t.env }
      : yield* sandboxedLaunch(server.name, t.sandbox, { file: t.command, args: t.args }, t.env, [...options.roots, cwd], cwd)
    const transport = new BoundedStdioTransport({
      command: launch.file,
      args: launch.args,
      env: launch.env,
      cwd,
      onGarbage: (line) => options.onNotice({ _tag: "Garbage", line })
    })
    const client = makeClient(options)
    const trackProgress = progressRouter(transport)
    let closed = false
    client.onclose = () => {
      closed = true
      options.onNotice({ _tag: "Closed" })
    }
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => client.connect(transport, { timeout: server.discoveryTimeoutMs }),
        catch: (error) => new McpConnectError({ server: server.name, message: describeConnectFailure(server, error, transport.closeReason) })
      }).pipe(Effect.onError(() => stopStdio(client, transport))),
      () => stopStdio(client, transport)
    )
    return {
      client,
      kind: "stdio",
      pid: transport.pid,
      isClosed: () => closed,
      closeReason: () => transport.closeReason,
      trackProgress
    } satisfies LiveConnection
  })

const stopStdio = (client: Client, transport: BoundedStdioTransport) =>
  Effect.gen(function*() {
    // A server that already exited had its group signalled then; its pid may belong to someone else now.
    if (transport.pid !== undefined && !transport.exited) yield* killProcessTree(transport.pid, { group: true, graceMs: KILL_GRACE_MS })
    yield* Effect.promise(() => client.close().catch(() => undefined))
  })

const connectHttp = (
  server: McpServerConfig & { readonly transport: { readonly _tag: "http" } },
  options: ConnectOptions,
  kind: "streamable-http" | "sse"
) =>
  Effect.gen(function*() {
    const t = server.transport
    const url = new URL(t.url)
    const requestInit = { headers: { ...t.headers } }
    const transport = kind === "sse"
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit })
    const client = makeClient(options)
    const trackProgress = progressRouter(transport)
    let closed = false
    let lastError: string | undefined
    client.onclose = () => {
      closed = true
      options.onNotice({ _tag: "Closed" })
    }
    client.onerror = (error) => {
      lastError = errorText(error)
    }
    const close = Effect.promise(async () => {
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
        await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 1_000).unref())])
      }
      await client.close().catch(() => undefined)
    })
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => client.connect(transport, { timeout: server.discoveryTimeoutMs }),
        catch: (error) => error
      }).pipe(Effect.onError(() => close)),
      () => close
    )
    return {
      client,
      kind,
      pid: undefined,
      isClosed: () => closed,
      closeReason: () => (closed ? `the connection to ${withoutQuery(t.url)} closed${lastError ? ` (${lastError})` : ""}` : undefined),
      trackProgress
    } satisfies LiveConnection
  })

/** A streamable-HTTP refusal that means "this is an old SSE server" (not auth, not down). */
const wantsSseFallback = (error: unknown): boolean =>
  error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500 &&
  error.code !== 401 && error.code !== 403

const describeConnectFailure = (server: McpServerConfig, error: unknown, reason?: string): string => {
  // Neither args nor a query string: they may carry expanded secrets, and this text reaches the model.
  const where = server.transport._tag === "stdio"
    ? `command ${JSON.stringify(server.transport.command)}`
    : withoutQuery(server.transport.url)
  const status = (error instanceof StreamableHTTPError || error instanceof SseError) && error.code !== undefined ? `HTTP ${error.code}: ` : ""
  const why = reason ?? `${status}${errorText(error)}`
  const hint = (error instanceof StreamableHTTPError || error instanceof SseError) && (error.code === 401 || error.code === 403)
    ? " The server refused our credentials: check the \"headers\" of this server in the MCP config."
    : ""
  return `MCP server "${server.name}" (${where}) could not be connected: ${why}.${hint}`
}

/**
 * Connects to a server. A `url` server is tried over streamable HTTP first and, when it answers
 * like an old server (4xx other than 401/403), over SSE.
 *
 * @category constructors
 */
export const connect = (server: McpServerConfig, options: ConnectOptions): Effect.Effect<LiveConnection, McpConnectError, Scope.Scope> => {
  const t = server.transport
  if (t._tag === "stdio") return connectStdio({ ...server, transport: t }, options)
  const http = { ...server, transport: t }
  const attempt = (kind: "streamable-http" | "sse") =>
    connectHttp(http, options, kind).pipe(
      Effect.mapError((error) => ({ error, message: describeConnectFailure(server, error) }))
    )
  const mapped = (eff: ReturnType<typeof attempt>) =>
    Effect.mapError(eff, (e) => new McpConnectError({ server: server.name, message: e.message }))
  if (t.protocol === "sse") return mapped(attempt("sse"))
  if (t.protocol === "streamable") return mapped(attempt("streamable-http"))
  return attempt("streamable-http").pipe(
    Effect.catch((first) =>
      wantsSseFallback(first.error)
        ? mapped(attempt("sse")).pipe(
          Effect.mapError((e) => new McpConnectError({ server: server.name, message: `${first.message} Falling back to SSE failed too: ${e.message}` }))
        )
        : Effect.fail(new McpConnectError({ server: server.name, message: first.message }))
    )
  )
}
