/**
 * The MCP servers config: the `mcpServers` shape users already write for other hosts, plus the
 * per-server fields toolwright adds. Each server is decoded on its own, so a bad server yields a
 * problem that names it and the field, and never stops the others.
 *
 * ```json
 * { "mcpServers": {
 *     "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
 *                 "env": { "GITHUB_TOKEN": "${GITHUB_TOKEN}" }, "includeTools": ["create_issue"] },
 *     "docs":   { "url": "https://example.com/mcp", "headers": { "Authorization": "Bearer ${DOCS_TOKEN}" } } },
 *   "mcpBudget": { "maxServers": 8, "mode": "enforce" } }
 * ```
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import {
  DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS,
  DEFAULT_MCP_TOOL_TIMEOUT_MS,
  DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
  DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS,
  MAX_DISCOVERY_TIMEOUT_MS,
  MIN_DISCOVERY_TIMEOUT_MS
} from "./constants.js"
import { McpConfigError } from "./errors.js"

/** How a server is reached. @category models */
export type McpTransportConfig =
  | {
    readonly _tag: "stdio"
    readonly command: string
    readonly args: ReadonlyArray<string>
    readonly env: Readonly<Record<string, string>>
    /** Relative paths resolve against the workspace's primary root. */
    readonly cwd: string | undefined
    /** Run the server in the command sandbox (opt-in); network undefined: the session's setting. */
    readonly sandbox?: McpSandboxConfig | undefined
  }
  | {
    readonly _tag: "http"
    readonly url: string
    readonly headers: Readonly<Record<string, string>>
    /** `auto`: streamable HTTP, falling back to SSE for old servers. */
    readonly protocol: "auto" | "streamable" | "sse"
  }

/** The command sandbox of a local server that opted in. @category models */
export interface McpSandboxConfig {
  readonly mode: "read-only" | "workspace-write"
  readonly network?: boolean | undefined
}

/** One server, decoded and checked. @category models */
export interface McpServerConfig {
  readonly name: string
  readonly transport: McpTransportConfig
  /** Only these tools (`name` or `name(…)`); undefined: all. */
  readonly includeTools: ReadonlyArray<string> | undefined
  /** Never these tools (wins over include). */
  readonly excludeTools: ReadonlyArray<string>
  /** `true`: every tool of the server is declared up front; a list: those tools. Default: all deferred. */
  readonly alwaysLoadTools: boolean | ReadonlyArray<string>
  readonly timeoutMs: number
  /** 0 disables the idle timeout. */
  readonly idleTimeoutMs: number
  readonly discoveryTimeoutMs: number
  /** Calls run without asking (default permission `allow`). */
  readonly trust: boolean
  readonly description: string | undefined
  readonly disabled: boolean
}

/** Something wrong (error: the server is skipped) or odd (warning) in the config. @category models */
export interface McpConfigProblem {
  readonly severity: "error" | "warning"
  readonly server: string | undefined
  readonly field: string | undefined
  readonly message: string
}

/** The workspace budget on MCP servers (reference §13.5). @category models */
export interface McpBudgetConfig {
  readonly maxServers: number
  /** `warn`: measure and warn only; `enforce`: refuse servers beyond the cap. */
  readonly mode: "warn" | "enforce"
}

/** A decoded config: the usable servers in declaration order, and every problem found. @category models */
export interface McpConfig {
  readonly servers: ReadonlyArray<McpServerConfig>
  readonly problems: ReadonlyArray<McpConfigProblem>
  readonly budget: McpBudgetConfig | undefined
  /** How `toolwright serve` offers deferred tools (top-level `"deferred"`); unset: chosen per host. */
  readonly deferred?: DeferredMode | undefined
}

/** How the serve door offers deferred tools: see docs/hosts.md. @category models */
export type DeferredMode = "list-changed" | "proxy" | "off"

/** The deferred modes. @category constants */
export const DEFERRED_MODES: ReadonlyArray<DeferredMode> = ["list-changed", "proxy", "off"]

/** A config with no servers. @category constants */
export const emptyMcpConfig: McpConfig = { servers: [], problems: [], budget: undefined }

const StringMap = Schema.Record(Schema.String, Schema.String)
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0))

const RawServer = Schema.Struct({
  command: Schema.optionalKey(Schema.NonEmptyString),
  args: Schema.optionalKey(Schema.Array(Schema.String)),
  env: Schema.optionalKey(StringMap),
  cwd: Schema.optionalKey(Schema.NonEmptyString),
  url: Schema.optionalKey(Schema.NonEmptyString),
  httpUrl: Schema.optionalKey(Schema.NonEmptyString),
  type: Schema.optionalKey(Schema.Literals(["stdio", "http", "streamable-http", "streamableHttp", "sse"])),
  headers: Schema.optionalKey(StringMap),
  includeTools: Schema.optionalKey(Schema.Array(Schema.String)),
  excludeTools: Schema.optionalKey(Schema.Array(Schema.String)),
  alwaysLoadTools: Schema.optionalKey(Schema.Union([Schema.Boolean, Schema.Array(Schema.String)])),
  timeout: Schema.optionalKey(PositiveInt),
  idleTimeout: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))),
  discoveryTimeout: Schema.optionalKey(PositiveInt),
  discoveryTimeoutMs: Schema.optionalKey(PositiveInt),
  trust: Schema.optionalKey(Schema.Boolean),
  description: Schema.optionalKey(Schema.String),
  disabled: Schema.optionalKey(Schema.Boolean),
  sandbox: Schema.optionalKey(
    Schema.Union([
      Schema.Boolean,
      Schema.Literals(["read-only", "workspace-write"]),
      Schema.Struct({
        mode: Schema.optionalKey(Schema.Literals(["read-only", "workspace-write"])),
        network: Schema.optionalKey(Schema.Boolean)
      })
    ])
  )
})
type RawServer = typeof RawServer.Type

const RawBudget = Schema.Struct({
  maxServers: PositiveInt,
  mode: Schema.optionalKey(Schema.Literals(["warn", "enforce"]))
})

/** Fields other hosts define that toolwright accepts and ignores (no warning beyond one line). */
const FOREIGN_FIELDS = new Set([
  "oauth",
  "authProviderType",
  "targetAudience",
  "targetServiceAccount",
  "extensionName",
  "scope",
  "autoApprove",
  "alwaysAllow",
  "envFile",
  "tcp"
])
const KNOWN_FIELDS = new Set(Object.keys(RawServer.fields))

/** The `sandbox` field: `true` / a mode / `{ mode, network }`; `false` or absent: none. */
const sandboxOf = (raw: RawServer["sandbox"]): McpSandboxConfig | undefined => {
  if (raw === undefined || raw === false) return undefined
  if (raw === true) return { mode: "workspace-write" }
  if (typeof raw === "string") return { mode: raw }
  return { mode: raw.mode ?? "workspace-write", ...(raw.network !== undefined ? { network: raw.network } : {}) }
}

const formatIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/** `args[1]`, `env.TOKEN`: a path as a person writes it. */
const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) =>
    typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`, "")

const valueAt = (value: unknown, path: ReadonlyArray<PropertyKey>): unknown =>
  path.reduce<unknown>((v, key) => (typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined), value)

const describeValue = (value: unknown): string => {
  const json = JSON.stringify(value)
  return json === undefined ? String(value) : json.length > 60 ? `${json.slice(0, 57)}...` : json
}

/** Env var references: `${VAR}` or `${VAR:-default}`. */
const ENV_REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/** Replaces `${VAR}` / `${VAR:-default}`; returns the names of unset variables without a default. @category config */
export const expandEnvReferences = (
  text: string,
  env: Readonly<Record<string, string | undefined>>
): { readonly value: string; readonly missing: ReadonlyArray<string> } => {
  const missing: Array<string> = []
  const value = text.replace(ENV_REFERENCE, (_, name: string, fallback: string | undefined) => {
    const found = env[name]
    if (found !== undefined && found !== "") return found
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ""
  })
  return { value, missing }
}

const clampDiscovery = (ms: number): number => Math.min(MAX_DISCOVERY_TIMEOUT_MS, Math.max(MIN_DISCOVERY_TIMEOUT_MS, ms))

interface ServerOutcome {
  readonly server: McpServerConfig | undefined
  readonly problems: ReadonlyArray<McpConfigProblem>
}

const decodeServer = (
  name: string,
  input: unknown,
  env: Readonly<Record<string, string | undefined>>
): ServerOutcome => {
  const problems: Array<McpConfigProblem> = []
  const error = (field: string | undefined, message: string): ServerOutcome => ({
    server: undefined,
    problems: [...problems, { severity: "error", server: name, field, message }]
  })
  if (name.trim() === "") return error(undefined, `An MCP server has an empty name; give it a name such as "github".`)
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return error(undefined, `MCP server "${name}" must be an object such as { "command": "…" } or { "url": "…" }, got ${describeValue(input)}.`)
  }
  const decoded = Schema.decodeUnknownResult(RawServer)(input, { errors: "all", onExcessProperty: "ignore" })
  if (Result.isFailure(decoded)) {
    const issues = formatIssues(decoded.failure.issue).issues
    const first = issues[0]
    const path = (first?.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p)) as Array<PropertyKey>
    const field = fieldPath(path)
    const all = issues.map((issue) => {
      const p = (issue.path ?? []).map((k) => (typeof k === "object" && k !== null && "key" in k ? k.key : k)) as Array<PropertyKey>
      return `field "${fieldPath(p)}": ${issue.message}, got ${describeValue(valueAt(input, p))}`
    })
    return error(field, `MCP server "${name}" is invalid and was skipped: ${all.join("; ")}.`)
  }
  const raw = decoded.success
  for (const key of Object.keys(input)) {
    if (KNOWN_FIELDS.has(key)) continue
    problems.push({
      severity: "warning",
      server: name,
      field: key,
      message: FOREIGN_FIELDS.has(key)
        ? `MCP server "${name}": field "${key}" is not supported by toolwright and is ignored.`
        : `MCP server "${name}": unknown field "${key}" is ignored (check its spelling).`
    })
  }
  const endpoints = [raw.command !== undefined ? "command" : undefined, raw.url !== undefined ? "url" : undefined, raw.httpUrl !== undefined ? "httpUrl" : undefined]
    .filter((x): x is string => x !== undefined)
  if (endpoints.length === 0) {
    return error(undefined, `MCP server "${name}" has neither "command" (a local server over stdio) nor "url" (a remote server over HTTP); add one.`)
  }
  if (endpoints.length > 1) {
    return error(endpoints[1], `MCP server "${name}" has both ${endpoints.map((e) => `"${e}"`).join(" and ")}; keep only one.`)
  }
  const missing: Array<{ field: string; variable: string }> = []
  const expand = (field: string, text: string): string => {
    const out = expandEnvReferences(text, env)
    for (const variable of out.missing) missing.push({ field, variable })
    return out.value
  }
  const expandMap = (field: string, map: Readonly<Record<string, string>> | undefined) =>
    Object.fromEntries(Object.entries(map ?? {}).map(([k, v]) => [k, expand(`${field}.${k}`, v)]))
  let transport: McpTransportConfig
  if (raw.command !== undefined) {
    if (raw.type !== undefined && raw.type !== "stdio") {
      return error("type", `MCP server "${name}" has "command" but "type" is "${raw.type}"; a command runs over stdio, so remove "type" or set it to "stdio".`)
    }
    if (raw.headers !== undefined) {
      problems.push({ severity: "warning", server: name, field: "headers", message: `MCP server "${name}": "headers" only applies to "url" servers and is ignored.` })
    }
    transport = {
      _tag: "stdio",
      command: expand("command", raw.command),
      args: (raw.args ?? []).map((arg, i) => expand(`args[${i}]`, arg)),
      env: expandMap("env", raw.env),
      cwd: raw.cwd === undefined ? undefined : expand("cwd", raw.cwd),
      ...(sandboxOf(raw.sandbox) !== undefined ? { sandbox: sandboxOf(raw.sandbox) } : {})
    }
  } else {
    const field = raw.url !== undefined ? "url" : "httpUrl"
    const url = expand(field, (raw.url ?? raw.httpUrl)!)
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      return error(field, `MCP server "${name}": field "${field}" must be an http:// or https:// URL, got ${describeValue(url)}.`)
    }
    for (const key of ["command", "args", "env", "cwd", "sandbox"] as const) {
      if (raw[key] !== undefined) {
        problems.push({ severity: "warning", server: name, field: key, message: `MCP server "${name}": "${key}" only applies to "command" servers and is ignored.` })
      }
    }
    if (raw.type === "stdio") {
      return error("type", `MCP server "${name}" has "${field}" but "type" is "stdio"; remove "type" or set it to "http" or "sse".`)
    }
    transport = {
      _tag: "http",
      url,
      headers: expandMap("headers", raw.headers),
      protocol: raw.type === "sse" ? "sse" : raw.httpUrl !== undefined || raw.type !== undefined ? "streamable" : "auto"
    }
  }
  if (missing.length > 0) {
    const first = missing[0]!
    return error(
      first.field,
      `MCP server "${name}" was skipped: ${missing.map((m) => `field "${m.field}" uses \${${m.variable}}`).join(", ")}, ` +
        `but ${missing.length === 1 ? "that variable is" : "those variables are"} not set. Set ${missing.length === 1 ? "it" : "them"} in the environment, or write \${NAME:-default}.`
    )
  }
  const discovery = raw.discoveryTimeout ?? raw.discoveryTimeoutMs
  return {
    problems,
    server: {
      name,
      transport,
      includeTools: raw.includeTools,
      excludeTools: raw.excludeTools ?? [],
      alwaysLoadTools: raw.alwaysLoadTools ?? false,
      timeoutMs: raw.timeout ?? DEFAULT_MCP_TOOL_TIMEOUT_MS,
      idleTimeoutMs: raw.idleTimeout ?? DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS,
      discoveryTimeoutMs: discovery !== undefined
        ? clampDiscovery(discovery)
        : transport._tag === "stdio"
        ? DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS
        : DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS,
      trust: raw.trust ?? false,
      description: raw.description,
      disabled: raw.disabled ?? false
    }
  }
}

/** Options of {@link parseMcpConfig}. @category models */
export interface ParseOptions {
  /** Where `${VAR}` references are looked up (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** Named in messages (the config file). */
  readonly source?: string | undefined
}

/**
 * Decodes a config value. Fails only when the whole value is unusable; a bad server becomes a
 * problem and is left out.
 *
 * @category constructors
 */
export const parseMcpConfig = (input: unknown, options: ParseOptions = {}): Effect.Effect<McpConfig, McpConfigError> =>
  Effect.gen(function*() {
    const where = options.source ?? "the MCP config"
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      return yield* new McpConfigError({ message: `${where} must be a JSON object with an "mcpServers" object, got ${describeValue(input)}.` })
    }
    const top = input as Record<string, unknown>
    const servers = top["mcpServers"] ?? top["servers"]
    if (servers === undefined) {
      return yield* new McpConfigError({ message: `${where} has no "mcpServers" object; write { "mcpServers": { "name": { "command": "…" } } }.` })
    }
    if (typeof servers !== "object" || servers === null || Array.isArray(servers)) {
      return yield* new McpConfigError({ message: `${where}: "mcpServers" must be an object keyed by server name, got ${describeValue(servers)}.` })
    }
    const env = options.env ?? process.env
    const problems: Array<McpConfigProblem> = []
    const decoded: Array<McpServerConfig> = []
    for (const [name, value] of Object.entries(servers)) {
      const outcome = decodeServer(name, value, env)
      problems.push(...outcome.problems)
      if (outcome.server) decoded.push(outcome.server)
    }
    let budget: McpBudgetConfig | undefined
    if (top["mcpBudget"] !== undefined) {
      const raw = Schema.decodeUnknownResult(RawBudget)(top["mcpBudget"], { errors: "all" })
      if (Result.isFailure(raw)) {
        problems.push({
          severity: "warning",
          server: undefined,
          field: "mcpBudget",
          message: `${where}: "mcpBudget" is invalid and ignored (no budget applies): ${raw.failure.message.replace(/\n\s*/g, " ")}. ` +
            `Write { "maxServers": 8, "mode": "enforce" }.`
        })
      } else {
        budget = { maxServers: raw.success.maxServers, mode: raw.success.mode ?? "enforce" }
      }
    }
    let deferred: DeferredMode | undefined
    const rawDeferred = top["deferred"]
    if (rawDeferred !== undefined) {
      if (typeof rawDeferred === "string" && (DEFERRED_MODES as ReadonlyArray<string>).includes(rawDeferred)) {
        deferred = rawDeferred as DeferredMode
      } else {
        problems.push({
          severity: "warning",
          server: undefined,
          field: "deferred",
          message: `${where}: "deferred" must be one of ${DEFERRED_MODES.map((m) => `"${m}"`).join(", ")}, got ${describeValue(rawDeferred)}; it is ignored (the mode is chosen per host).`
        })
      }
    }
    return { servers: decoded, problems, budget, ...(deferred !== undefined ? { deferred } : {}) }
  })

/**
 * Reads and decodes a config file (JSON).
 *
 * @category constructors
 */
export const loadMcpConfigFile = (file: string, options: Omit<ParseOptions, "source"> = {}): Effect.Effect<McpConfig, McpConfigError> =>
  Effect.gen(function*() {
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(file, "utf8"),
      catch: (e) => {
        const code = (e as NodeJS.ErrnoException).code
        return new McpConfigError({
          message: code === "ENOENT"
            ? `MCP config file ${file} does not exist; check the --config path.`
            : `MCP config file ${file} cannot be read (${code ?? String(e)}).`
        })
      }
    })
    const json = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: (e) => new McpConfigError({ message: `MCP config file ${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}.` })
    })
    return yield* parseMcpConfig(json, { ...options, source: `MCP config file ${file}` })
  })

/** True when a tool of the server is always declared (not deferred). @category config */
export const isAlwaysLoaded = (server: McpServerConfig, toolName: string): boolean =>
  server.alwaysLoadTools === true || (Array.isArray(server.alwaysLoadTools) && server.alwaysLoadTools.includes(toolName))
