/**
 * A whole session as one Layer: workspace, read cache, output store, registry (with `tool_search`
 * and the built-in catalog), output pipeline, hooks and scheduler. Build one per conversation or
 * MCP connection; two sessions share nothing mutable.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { CurrentOutputLimits, loadOutputLimits, type OutputLimits, OutputPipeline, OutputStore } from "../output/index.js"
import { makeToolSearch, Registry } from "../registry/index.js"
import {
  ensureStateSubdir,
  FileReadCache,
  keepUnsaved,
  makeFileSessionStore,
  makeWorkspace,
  type NamedSessionError,
  namedSessionLayer,
  newSessionId,
  openNamedSession,
  type ReadEvidence,
  Session,
  SessionEvents,
  type SessionStoreService,
  Workspace
} from "../session/index.js"
import { LaunchGate, makeLaunchGate, resolveSandboxSettings, SandboxConfig, type SandboxOptions, writableProblem } from "../process/index.js"
// floors: start-up — shell/index.ts loads the shell tools, which a session loads on their first call
import * as ShellLayer from "../shell/layer.js"
// floors: start-up — mcp/index.ts loads the MCP client, which a session loads only when servers are configured
import { McpGateway, type McpSessionOptions } from "../mcp/service.js"
// floors: start-up — web/index.ts loads web_fetch, which a session loads on its first call
import { resolveWebFetchSettings, WebFetchConfig, type WebFetchOptions } from "../web/config.js"
// floors: start-up — the converter alone (its workers start on the first conversion)
import { HtmlConverter, type HtmlConverterService } from "../web/converter.js"
import type { Approver } from "./approver.js"
import { BuiltinTools } from "./builtinTools.js"
import { builtinFactory, readMcpResourceFactory, type SessionServices } from "./catalog.js"
import { ToolHooks } from "./hooks.js"
import type { ApprovalMode, PermissionRule } from "./policy.js"
import * as SchedulerModule from "./scheduler.js"
import type { SqlState } from "./sqlState.js"
import { sessionExtras } from "./sessionExtras.js"

/** Everything a session is configured with. @category models */
export interface SessionOptions {
  /** Workspace roots; relative paths resolve against the first. */
  readonly roots: ReadonlyArray<string>
  /** Where outputs, todos, tasks and backups go (default under the home directory). */
  readonly stateDir?: string | undefined
  readonly mode?: ApprovalMode | undefined
  readonly rules?: ReadonlyArray<PermissionRule> | undefined
  readonly maxConcurrency?: number | undefined
  readonly readEvidence?: ReadEvidence | undefined
  readonly outputLimits?: OutputLimits | undefined
  /** Include the built-in tools (default true). */
  readonly builtins?: boolean | undefined
  /** More tools, loaded lazily like the built-ins. */
  readonly tools?: ReadonlyArray<Registry.ToolFactory<SessionServices>> | undefined
  readonly disabledTools?: Iterable<string> | undefined
  readonly visibleTools?: Iterable<string> | undefined
  /** Pre/post call hooks (default: none). */
  readonly hooks?: Layer.Layer<ToolHooks> | undefined
  /**
   * The command sandbox and environment policy of shell commands (and of MCP servers that opt in):
   * mode (default `workspace-write`), network (default off), extra writable dirs, the credential
   * deny list, extra environment names. Unset fields come from the `TOOLWRIGHT_SANDBOX*`,
   * `TOOLWRIGHT_BWRAP` and `TOOLWRIGHT_ENV_ALLOW` variables, else the defaults.
   */
  readonly sandbox?: SandboxOptions | undefined
  /** MCP servers whose tools this session offers (behind `tool_search`), and the workspace pool to share. */
  readonly mcp?: McpSessionOptions | undefined
  /**
   * A named session: the id is this name, what the store holds under it (read evidence, revealed
   * tools, waiting reminders, the saved outputs' index) is restored at start and saved when the
   * session closes, so a later session (another process) with the same id can edit what this one
   * read; its todo list and edit history are keyed by the name too (see `docs/sessions.md`).
   * Unset: a fresh random id, nothing kept.
   */
  readonly sessionId?: string | undefined
  /** With `sessionId`: only continue a saved session; an unknown id fails with `SessionNotFound`. */
  readonly resume?: boolean | undefined
  /** With `sessionId`: where sessions are kept (default: files under the state directory). */
  readonly sessionStore?: SessionStoreService | undefined
  /**
   * A PostgreSQL URL (`postgres://user@host:5432/db`): with `sessionId` and no `sessionStore`, the
   * session is kept in that database (see `docs/sessions.md`). The session holds a small pool for
   * its life. Unset: files under the state directory.
   */
  readonly sqlUrl?: string | undefined
  /**
   * What sessions keep in SQL, built once (`sqlState(url)`, `src/run/sqlState.ts`) and
   * shared by many sessions instead of a pool each; wins over `sqlUrl`. `serve --http` builds one per door.
   */
  readonly sqlState?: SqlState | undefined
  /** With `sessionId`: unused longer than this (ms), it is expired (default `TOOLWRIGHT_SESSION_TTL_HOURS`, else 7 days). */
  readonly sessionTtlMs?: number | undefined
  /**
   * `web_fetch`: hosts and addresses allowed although private (`allow`, e.g. `["127.0.0.1",
   * "localhost"]` for local development), and the caps (redirects, bytes, time). Unset fields come
   * from the `TOOLWRIGHT_WEB_FETCH_*` variables, else the defaults (nothing private, 5 redirects,
   * 10 MiB, 30 s).
   */
  readonly webFetch?: WebFetchOptions | undefined
  /**
   * `web_fetch`'s HTML → Markdown converter (worker threads). Unset: the session starts its own on
   * its first conversion and stops it when it closes. A process serving many sessions (`serve
   * --http`) passes one it shares among them.
   */
  readonly htmlConverter?: HtmlConverterService | undefined
  /**
   * The process's launch gate (at most K process launches at once, FIFO; see
   * `process/launchGate.ts`). Pass one gate to every session of a process (the HTTP door does);
   * without it the session makes its own.
   */
  readonly launchGate?: LaunchGate.Service | undefined
}

/** A session could not start: a bad root, state dir or threshold; the message says which. @category errors */
export class SessionInitError extends Schema.TaggedError<SessionInitError>()("SessionInitError", { message: Schema.String }) {}

/** The services a session provides. @category models */
export type SessionContext =
  | SessionServices
  | Registry.ToolRegistry
  | OutputPipeline
  | ToolHooks
  | SchedulerModule.Scheduler
  | McpGateway
  | SessionEvents
  | LaunchGate

/**
 * The session layer. The {@link Approver} is the door's: elicitation for `serve`, a prompt for the
 * CLI, a double in tests. A provided {@link BuiltinTools} (e.g. `BuiltinTools.override(...)`)
 * replaces built-in implementations; without one, the catalog as shipped.
 *
 * @category layers
 */
export const layer = (
  options: SessionOptions
): Layer.Layer<SessionContext, SessionInitError | NamedSessionError, Approver> =>
  Layer.unwrap(Effect.gen(function*() {
    // Thresholds: explicit options win; otherwise the TOOLWRIGHT_* environment variables, else defaults.
    const outputLimits = options.outputLimits ?? (yield* loadOutputLimits().pipe(
      Effect.mapError((e) => new SessionInitError({ message: e.message }))
    ))
    const sandbox = resolveSandboxSettings(options.sandbox ?? {})
    if ("problem" in sandbox) return yield* new SessionInitError({ message: sandbox.problem })
    const unusable = writableProblem(sandbox)
    if (unusable !== undefined) return yield* new SessionInitError({ message: unusable })
    const webFetch = resolveWebFetchSettings(options.webFetch ?? {}, process.env)
    if ("problem" in webFetch) return yield* new SessionInitError({ message: webFetch.problem })
    const session = Session.of({ id: options.sessionId ?? (yield* Effect.sync(newSessionId)), startedAt: Date.now() })
    // The output dir lives in the state dir, which the workspace computes; it must exist before the
    // workspace admits it as a readable directory.
    const probe = yield* makeWorkspace({ roots: options.roots, ...(options.stateDir ? { stateDir: options.stateDir } : {}) }).pipe(
      Effect.mapError((e) => new SessionInitError({ message: e.message }))
    )
    // A named session is looked up before anything is built: unknown (with resume) or expired fails here.
    const sqlUrl = options.sqlUrl
    const sql = options.sqlState ?? (sqlUrl === undefined ? undefined : yield* Effect.flatMap(
      // floors: start-up — the PostgreSQL driver loads only for a session kept in SQL
      Effect.promise(() => import("./sqlState.js")),
      (m) => m.sqlState(sqlUrl)
    ))
    // a save the SQL store cannot take is kept under the state dir and handed over when the name starts again
    const store = options.sessionStore ??
      (sql === undefined ? makeFileSessionStore(probe.stateDir) : keepUnsaved(sql.sessionStore, probe.stateDir))
    const named = options.sessionId === undefined ? undefined : namedSessionLayer(
      options.sessionId,
      yield* openNamedSession({ name: options.sessionId, resume: options.resume, ttlMs: options.sessionTtlMs }, store),
      store,
      sessionExtras
    )
    const outputsRoot = yield* ensureStateSubdir(probe.stateDir, "outputs").pipe(
      Effect.mapError((e) => new SessionInitError({ message: `Cannot create the output directory: ${e.message}` }))
    )
    const outputDir = nodePath.join(outputsRoot, session.id)
    // Only the file system and paths: the rest of the Node platform (child processes, terminal,
    // stdio) is not a session service and would only slow start-up.
    const platform = Layer.mergeAll(NodeFileSystem.layer, NodePath.layer)
    const base = Layer.mergeAll(
      Layer.succeed(Session, session),
      // the thresholds tools read while they format (read_file, grep_search, glob, list_directory)
      Layer.succeed(CurrentOutputLimits, outputLimits),
      // what shells and MCP upstreams tell the door (serve forwards it to the host)
      SessionEvents.layer,
      Layer.effect(
        Workspace,
        makeWorkspace({
          roots: options.roots,
          ...(options.stateDir ? { stateDir: options.stateDir } : {}),
          extraReadableDirs: [outputsRoot]
        }).pipe(Effect.mapError((e) => new SessionInitError({ message: e.message })))
      ),
      FileReadCache.layer(options.readEvidence ? { readEvidence: options.readEvidence } : {}),
      sql?.taskBoard ?? Layer.empty,
      // a named session's todo list follows it in SQL; an unnamed one's stays in its file (nobody resumes it)
      (options.sessionId !== undefined ? sql?.todos : undefined) ?? Layer.empty,
      OutputStore.layer({
        dir: outputDir,
        maxFileBytes: outputLimits.maxOutputFileBytes,
        maxSessionBytes: outputLimits.maxSessionOutputBytes
      }).pipe(Layer.provide(platform)),
      platform,
      // read where processes start (shell, grep), at run time
      Layer.succeed(LaunchGate, options.launchGate ?? makeLaunchGate())
    )
    // The built-ins: the catalog, or what a provided `BuiltinTools` layer replaced in it.
    const builtins = options.builtins === false ? [] : (yield* BuiltinTools.current).tools.map(builtinFactory)
    const factories = [...builtins, ...(options.tools ?? [])]
    const registry = Layer.effect(
      Registry.ToolRegistry,
      Effect.gen(function*() {
        const registry = yield* Registry.make(factories, {
          disabled: options.disabledTools,
          visible: options.visibleTools
        })
        yield* registry.register(makeToolSearch(registry))
        return registry
      })
    )
    const middle = Layer.mergeAll(
      registry,
      OutputPipeline.layer(outputLimits),
      options.hooks ?? ToolHooks.layerNoop
    )
    const scheduler = SchedulerModule.layer({
      mode: options.mode,
      rules: options.rules,
      maxConcurrency: options.maxConcurrency ?? outputLimits.maxToolConcurrency
    })
    // MCP upstreams: the client code loads only when servers are configured; a bad server never stops the others.
    const mcpOptions = options.mcp
    const gateway = mcpOptions && (mcpOptions.config.servers.length > 0 || mcpOptions.config.problems.length > 0)
      ? Layer.unwrap(Effect.map(Effect.promise(() => import("../mcp/gateway.js")), (m) => m.layerForSession(mcpOptions)))
      : McpGateway.layerEmpty
    const mcpTools = Layer.effectDiscard(Effect.gen(function*() {
      const mcp = yield* McpGateway
      if (mcp.hasServers) yield* (yield* Registry.ToolRegistry).registerFactory(readMcpResourceFactory(mcp.resolveServer))
    }))
    return Layer.mergeAll(scheduler, mcpTools.pipe(Layer.provideMerge(gateway)), named ?? Layer.empty).pipe(
      Layer.provideMerge(middle),
      // shell services (process host, background shells) need the session and its output store
      Layer.provideMerge(ShellLayer.layer.pipe(Layer.provideMerge(base))),
      Layer.provideMerge(options.htmlConverter !== undefined ? Layer.succeed(HtmlConverter, options.htmlConverter) : HtmlConverter.layer()),
      Layer.provide(Layer.mergeAll(Layer.succeed(SandboxConfig, sandbox), Layer.succeed(WebFetchConfig, webFetch)))
    )
  }))
