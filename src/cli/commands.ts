/**
 * The `toolwright` command line: `serve` (the MCP server), `tools` (print declarations), `call`
 * (one tool call) and `run` (a JSONL script of calls in one session).
 *
 * @since 0.1.0
 */
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { Command, Flag } from "effect/cli"
// floors: start-up — mcp/index.ts loads the MCP client (a chunk of its own in the bundle, loaded when servers are configured)
import { loadMcpConfigFile } from "../mcp/config.js"
import type { SandboxOptions } from "../process/index.js"
import {
  type ApprovalMode,
  Approver,
  type PermissionRule,
  SessionInitError,
  SessionLayer,
  validateRule
} from "../run/index.js"
import { ToolRegistry } from "../registry/index.js"
import { SQL_URL_ENV } from "../session/index.js"
import { serveStdio } from "../serve/index.js"
import { type DeclarationFormat, declarations } from "../tool/index.js"
// floors: start-up — web/index.ts loads web_fetch, which a session loads on its first call
import { splitAllowList } from "../web/config.js"
import { catchSessionProblems, makeCallCommand } from "./call.js"
import { makeRunCommand } from "./run.js"
import { httpFlags, serveOverHttp } from "./serveHttp.js"
import { loadToolModule } from "./toolModules.js"

const roots = Flag.String("root").pipe(
  Flag.withDescription("A workspace root (repeatable). Default: the current directory. Relative paths resolve against the first."),
  Flag.atLeast(0)
)
const stateDir = Flag.String("state-dir").pipe(
  Flag.withDescription("Where outputs, todos and backups are kept (default ~/.toolwright/projects/<hash>; env TOOLWRIGHT_STATE_DIR)."),
  Flag.optional
)
const toolModules = Flag.String("tools-module").pipe(
  Flag.withDescription("An ES module exporting `tools`, an array of tools made with defineTool (repeatable)."),
  Flag.atLeast(0)
)
const mcpConfig = Flag.String("config").pipe(
  Flag.withDescription(
    "An MCP config file: { \"mcpServers\": { NAME: { command, args, env, cwd } | { url, headers } } }, the shape other MCP hosts use, " +
      "plus per-server includeTools, excludeTools, alwaysLoadTools, timeout, trust. Their tools are offered behind tool_search."
  ),
  Flag.optional
)
const disabled = Flag.String("disable").pipe(Flag.withDescription("A tool name never to register (repeatable)."), Flag.atLeast(0))
const ruleFlag = (decision: "allow" | "ask" | "deny") =>
  Flag.String(decision).pipe(
    Flag.withDescription(
      `A permission rule: ${decision} calls matching TOOL or TOOL(SPECIFIER), e.g. "run_shell_command(git status*)", "edit(src/**)", "mcp__github__*" (repeatable; deny beats ask beats allow).`
    ),
    Flag.atLeast(0)
  )

const sandboxMode = Flag.Literals("sandbox", ["read-only", "workspace-write", "off"]).pipe(
  Flag.withDescription(
    "The command sandbox of run_shell_command: workspace-write (default: only the workspace roots, the state dir and a private TMPDIR are writable, credential paths are hidden), " +
      "read-only (only the private TMPDIR is writable), off (no confinement). Env TOOLWRIGHT_SANDBOX."
  ),
  Flag.optional
)
const sandboxNetwork = Flag.Literals("sandbox-network", ["on", "off"]).pipe(
  Flag.withDescription("Network access for sandboxed commands (default off). Env TOOLWRIGHT_SANDBOX_NETWORK."),
  Flag.optional
)
const sandboxWritable = Flag.String("sandbox-writable").pipe(
  Flag.withDescription("One more directory sandboxed commands may write (repeatable; workspace-write mode)."),
  Flag.atLeast(0)
)
const envAllow = Flag.String("env-allow").pipe(
  Flag.withDescription(
    "An environment variable commands may inherit besides the default allow-list (PATH, HOME, LANG, LC_*, TERM, …); NAME or PREFIX* (repeatable). Secret-looking names (*_TOKEN, *_KEY, *SECRET*, *PASSWORD*) pass only when named exactly."
  ),
  Flag.atLeast(0)
)

const sessionName = Flag.String("session").pipe(
  Flag.withDescription(
    "Continue the named session (created on first use): what it read in earlier runs still counts, so a file read by one " +
      "`toolwright call --session NAME` can be edited by the next. Kept under the state directory; expires after 7 days unused " +
      "(env TOOLWRIGHT_SESSION_TTL_HOURS)."
  ),
  Flag.optional
)
const resume = Flag.Boolean("resume").pipe(
  Flag.withDescription("With --session: only continue a saved session; an unknown name fails (session_not_found) instead of starting one."),
  Flag.withDefault(false)
)
const sessionStoreKind = Flag.Literals("session-store", ["file", "sql"]).pipe(
  Flag.withDescription(
    "Where --session keeps its record: file (default; under the state directory) or sql (PostgreSQL at --sql URL or env " +
      "TOOLWRIGHT_SQL_URL, shared by every process and machine using that database)."
  ),
  Flag.optional
)
const sqlUrl = Flag.String("sql").pipe(
  Flag.withDescription("The PostgreSQL URL of --session-store sql, e.g. postgres://user@db:5432/toolwright (default: env TOOLWRIGHT_SQL_URL)."),
  Flag.optional
)
const webFetchAllow = Flag.String("web-fetch-allow").pipe(
  Flag.withDescription(
    "Hosts or addresses web_fetch may reach although they are private, for local development: a host name, an IP or a CIDR range, comma-separated (repeatable), e.g. 127.0.0.1,localhost. Env TOOLWRIGHT_WEB_FETCH_ALLOW."
  ),
  Flag.atLeast(0)
)

/** The flags every command that builds a session takes. */
const sessionFlags = {
  session: sessionName,
  resume,
  "session-store": sessionStoreKind,
  sql: sqlUrl,
  root: roots,
  "state-dir": stateDir,
  "tools-module": toolModules,
  disable: disabled,
  allow: ruleFlag("allow"),
  ask: ruleFlag("ask"),
  deny: ruleFlag("deny"),
  config: mcpConfig,
  sandbox: sandboxMode,
  "sandbox-network": sandboxNetwork,
  "sandbox-writable": sandboxWritable,
  "env-allow": envAllow,
  "web-fetch-allow": webFetchAllow
}

const sessionOptions = Effect.fnUntraced(function*(flags: {
  readonly root: ReadonlyArray<string>
  readonly "state-dir": Option.Option<string>
  readonly "tools-module": ReadonlyArray<string>
  readonly disable: ReadonlyArray<string>
  readonly allow?: ReadonlyArray<string>
  readonly ask?: ReadonlyArray<string>
  readonly deny?: ReadonlyArray<string>
  readonly config?: Option.Option<string>
  readonly sandbox?: Option.Option<"read-only" | "workspace-write" | "off">
  readonly "sandbox-network"?: Option.Option<"on" | "off">
  readonly "sandbox-writable"?: ReadonlyArray<string>
  readonly "env-allow"?: ReadonlyArray<string>
  readonly session?: Option.Option<string>
  readonly resume?: boolean
  readonly "session-store"?: Option.Option<"file" | "sql">
  readonly sql?: Option.Option<string>
  readonly "web-fetch-allow"?: ReadonlyArray<string>
}, startupWaitMs?: number) {
  const extra = (yield* Effect.forEach(flags["tools-module"], loadToolModule)).flat()
  const rules: Array<PermissionRule> = []
  for (const decision of ["allow", "ask", "deny"] as const) {
    for (const pattern of flags[decision] ?? []) {
      const problem = validateRule(pattern)
      if (problem !== undefined) return yield* new SessionInitError({ message: problem })
      rules.push({ decision, pattern })
    }
  }
  const dir = Option.getOrUndefined(flags["state-dir"])
  const configFile = flags.config ? Option.getOrUndefined(flags.config) : undefined
  const mcp = configFile === undefined ? undefined : {
    config: yield* loadMcpConfigFile(configFile).pipe(Effect.mapError((e) => new SessionInitError({ message: e.message }))),
    ...(startupWaitMs !== undefined ? { startupWaitMs } : {})
  }
  const mode = flags.sandbox ? Option.getOrUndefined(flags.sandbox) : undefined
  const network = flags["sandbox-network"] ? Option.getOrUndefined(flags["sandbox-network"]) : undefined
  const writable = flags["sandbox-writable"] ?? []
  const allowNames = flags["env-allow"] ?? []
  const sandbox: SandboxOptions = {
    ...(mode !== undefined ? { mode } : {}),
    ...(network !== undefined ? { network: network === "on" } : {}),
    ...(writable.length > 0 ? { writable } : {}),
    ...(allowNames.length > 0 ? { envAllow: allowNames } : {})
  }
  const name = flags.session ? Option.getOrUndefined(flags.session) : undefined
  if (flags.resume === true && name === undefined) {
    return yield* new SessionInitError({ message: "--resume continues a named session: give its name with --session NAME." })
  }
  const storeKind = flags["session-store"] ? Option.getOrUndefined(flags["session-store"]) : undefined
  const sqlFlag = flags.sql ? Option.getOrUndefined(flags.sql) : undefined
  if (sqlFlag !== undefined && storeKind === "file") {
    return yield* new SessionInitError({ message: "--sql is the database of --session-store sql: drop one of them." })
  }
  const sql = storeKind === "sql" || sqlFlag !== undefined ? sqlFlag ?? process.env[SQL_URL_ENV] : undefined
  if ((storeKind === "sql" || sqlFlag !== undefined) && (sql === undefined || sql === "")) {
    return yield* new SessionInitError({
      message: `--session-store sql needs the database: give --sql postgres://user@host:5432/db or set ${SQL_URL_ENV}.`
    })
  }
  const webFetchHosts = (flags["web-fetch-allow"] ?? []).flatMap(splitAllowList)
  return {
    ...(mcp !== undefined ? { mcp } : {}),
    ...(name !== undefined ? { sessionId: name, resume: flags.resume === true } : {}),
    ...(sql !== undefined ? { sqlUrl: sql } : {}),
    ...(webFetchHosts.length > 0 ? { webFetch: { allow: webFetchHosts } } : {}),
    sandbox,
    roots: flags.root.length > 0 ? flags.root : [process.cwd()],
    ...(dir !== undefined ? { stateDir: dir } : {}),
    tools: extra,
    rules,
    disabledTools: flags.disable
  } satisfies SessionLayer.SessionOptions
})

const serve = Command.make("serve", {
  ...sessionFlags,
  approval: Flag.Literals("approval", ["plan", "default", "auto-edit", "yolo"]).pipe(
    Flag.withDescription(
      "Approval mode. yolo (default): the host already asks its user, so calls inside the workspace run; default/auto-edit: " +
        "calls that need approval are confirmed through MCP elicitation when the host supports it, else refused; plan: nothing that changes files or runs commands."
    ),
    Flag.withDefault("yolo")
  ),
  deferred: Flag.Literals("deferred", ["list-changed", "proxy", "off"]).pipe(
    Flag.withDescription(
      "How deferred tools reach the host: list-changed (tool_search reveals, the host re-lists), proxy (also a call_tool " +
        "tool for hosts that never re-list), off (every tool listed up front). Default: env TOOLWRIGHT_DEFERRED, the config's " +
        "\"deferred\", else by host (Qwen Code, Gemini CLI, Codex: proxy; others: list-changed)."
    ),
    Flag.optional
  ),
  ...httpFlags
}, Effect.fn("cli.serve")(function*(flags) {
  const deferred = Option.getOrUndefined(flags.deferred)
  const options = { ...(yield* sessionOptions(flags)), mode: flags.approval as ApprovalMode, ...(deferred !== undefined ? { deferred } : {}) }
  if (flags.cluster) {
    // The front hosts no session: the runners take the session flags; the front needs the door and the database.
    const sqlUrl = Option.getOrUndefined(flags.sql) ?? process.env[SQL_URL_ENV]
    if (Option.isNone(flags.http) || sqlUrl === undefined || sqlUrl === "") {
      return yield* new SessionInitError({
        message: `--cluster serves MCP over HTTP as a front of a cluster: give --http [HOST:]PORT and the cluster's PostgreSQL (--sql postgres://user@host:5432/db or ${SQL_URL_ENV}).`
      })
    }
    return yield* serveOverHttp(options, { ...flags, http: flags.http.value }, { sqlUrl })
  }
  if (Option.isSome(flags.http)) {
    if (options.sessionId !== undefined) {
      return yield* new SessionInitError({
        message: "--session names one session, and --http serves one session per MCP client: drop --session (an HTTP client names its session with the X-Toolwright-Session header)."
      })
    }
    return yield* serveOverHttp(options, { ...flags, http: flags.http.value })
  }
  yield* serveStdio(options)
}, catchSessionProblems, Effect.provideService(Logger.LogToStderr, true))).pipe(
  Command.withDescription(
    "Serve the tools over MCP on stdin/stdout, for an MCP host (Claude Code, Qwen Code, Gemini CLI, Cursor); with --http, over Streamable HTTP for many sessions."
  ),
  Command.withExamples([
    { command: "toolwright serve", description: "Serve the current directory" },
    { command: "toolwright serve --root ~/src/app --root ~/src/lib", description: "Two roots; relative paths resolve against the first" },
    { command: "toolwright serve --approval default", description: "Ask the host's user (elicitation) before edits and commands" },
    { command: "toolwright serve --deferred proxy", description: "Offer call_tool for revealed tools (a host that never re-lists its tools)" },
    { command: "toolwright serve --config ~/.toolwright/mcp.json", description: "Also offer the tools of the MCP servers listed there (a gateway)" },
    { command: "toolwright serve --http 8931", description: "Streamable HTTP on http://127.0.0.1:8931/mcp, one session per MCP client" },
    {
      command: "toolwright serve --http 0.0.0.0:8931 --token-file tok --cluster --sql postgres://db/toolwright",
      description: "A cluster front: each MCP session runs on a `toolwright runner` of that database"
    }
  ])
)

const tools = Command.make("tools", {
  ...sessionFlags,
  format: Flag.Literals("format", ["mcp", "openai", "anthropic", "gemini"]).pipe(
    Flag.withDescription("Declaration format."),
    Flag.withDefault("mcp")
  ),
  all: Flag.Boolean("all").pipe(Flag.withDescription("Include deferred tools that are not revealed yet."), Flag.withDefault(false))
}, Effect.fn("cli.tools")(function*(flags) {
  // Listing waits for every MCP server's first connection attempt.
  const options = yield* sessionOptions(flags, Infinity)
  const list = yield* Effect.gen(function*() {
    const registry = yield* ToolRegistry
    if (!flags.all) return yield* registry.declarations
    yield* registry.warmAll
    return yield* registry.tools
  }).pipe(
    Effect.provide(SessionLayer.layer(options).pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel" }))))
  )
  yield* Console.log(JSON.stringify(declarations(list, flags.format as DeclarationFormat), null, 2))
}, catchSessionProblems)).pipe(
  Command.withDescription("Print the tool declarations as JSON, sorted by name (stable for prompt caching)."),
  Command.withExamples([
    { command: "toolwright tools", description: "MCP tools/list entries" },
    { command: "toolwright tools --format anthropic --all", description: "Anthropic tool definitions, deferred tools included" }
  ])
)

// `call` and `run` take the session flags of `serve` (not its approval default) and wait for MCP servers like `tools`.
const personSession = {
  flags: sessionFlags,
  toOptions: (flags: Parameters<typeof sessionOptions>[0]) => sessionOptions(flags, Infinity)
}

const runner = Command.make("runner", {
  ...sessionFlags,
  host: Flag.String("host").pipe(Flag.withDescription("The host other runners and fronts reach this runner at."), Flag.withDefault("localhost")),
  port: Flag.Int("port").pipe(Flag.withDescription("The port this runner listens on."), Flag.withDefault(34431)),
  "listen-host": Flag.String("listen-host").pipe(Flag.withDescription("Listen on this host instead of --host (e.g. 0.0.0.0)."), Flag.optional),
  group: Flag.String("group").pipe(
    Flag.withDescription("A workspace group this runner mounts (repeatable; default: default). Session NAME@GROUP runs only on runners of GROUP."),
    Flag.atLeast(0)
  ),
  approval: Flag.Literals("approval", ["plan", "default", "auto-edit", "yolo"]).pipe(
    Flag.withDescription("Approval mode of the sessions (default yolo, like serve). A call that needs approval is asked through the front that sent it; a front that cannot ask gets it cancelled."),
    Flag.withDefault("yolo")
  ),
  "approval-wait-seconds": Flag.Int("approval-wait-seconds").pipe(
    Flag.withDescription("Seconds a call waits for the front's answer to its approval before it is cancelled (default 300)."),
    Flag.withDefault(300)
  ),
  "idle-minutes": Flag.Finite("idle-minutes").pipe(
    Flag.withDescription("Minutes a session without messages and without running background shells stays resident (default 10; fractions allowed, e.g. 0.5)."),
    Flag.withDefault(10)
  )
}, Effect.fn("cli.runner")(function*(flags) {
  // --sql (or its environment variable) is the cluster's database; the sessions keep their store there too.
  const sqlUrl = Option.getOrUndefined(flags.sql) ?? process.env[SQL_URL_ENV]
  if (sqlUrl === undefined || sqlUrl === "") {
    return yield* new SessionInitError({ message: `toolwright runner needs the cluster's PostgreSQL: give --sql postgres://user@host:5432/db or set ${SQL_URL_ENV}.` })
  }
  const options = { ...(yield* sessionOptions({ ...flags, sql: Option.some(sqlUrl) }, Infinity)), mode: flags.approval as ApprovalMode }
  const { runRunner } = yield* Effect.promise(() => import("../cluster/cli.js"))
  yield* runRunner({
    ...options,
    sqlUrl,
    host: flags.host,
    port: flags.port,
    listenHost: Option.getOrUndefined(flags["listen-host"]),
    groups: flags.group,
    maxIdleTime: `${flags["idle-minutes"]} minutes`,
    approvalWait: `${flags["approval-wait-seconds"]} seconds`
  })
}, catchSessionProblems, Effect.provideService(Logger.LogToStderr, true))).pipe(
  Command.withDescription("Run a cluster runner: it hosts sessions (ToolSession entities) for the fronts of a cluster sharing one PostgreSQL.")
)

/** The root command. @category commands */
export const cli = Command.make("toolwright").pipe(
  Command.withDescription("The tool layer of a coding agent: validated, previewable, approvable, bounded tool calls."),
  Command.withSubcommands([serve, tools, makeCallCommand(personSession), makeRunCommand(personSession), runner])
)

/** The package version. @category constants */
export const VERSION = "0.1.0"
