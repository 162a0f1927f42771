/**
 * The flags of `toolwright serve --http` and how they become the HTTP door's options. The door's
 * code (and the SDK's HTTP transport) loads only when `--http` is given.
 *
 * @since 0.1.0
 */
import { readFile } from "node:fs/promises"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Flag } from "effect/cli"
import { CliExit } from "./call.js"
import {
  configuredMaxMessageBytes,
  DEFAULT_IDLE_TIMEOUT_MS,
  DEFAULT_MAX_SESSIONS,
  parseListenAddress,
  type ServeOptions
} from "../serve/index.js"

/** The environment variable holding the bearer token (when no --token-file is given). @category constants */
export const TOKEN_ENV = "TOOLWRIGHT_TOKEN"

/** The token file cannot be read, or it or TOOLWRIGHT_TOKEN is empty. @category errors */
export class TokenUnavailable extends Schema.TaggedError<TokenUnavailable>()("TokenUnavailable", { message: Schema.String }) {}

/** The flags `serve` takes for its HTTP door. @category flags */
export const httpFlags = {
  http: Flag.String("http").pipe(
    Flag.withDescription(
      "Serve MCP over Streamable HTTP at [HOST:]PORT (endpoint /mcp) instead of stdio: many sessions in one process. HOST defaults to 127.0.0.1; any other address needs a token."
    ),
    Flag.optional
  ),
  "token-file": Flag.String("token-file").pipe(
    Flag.withDescription(`A file holding the bearer token HTTP clients must send (Authorization: Bearer <token>). Env ${TOKEN_ENV}.`),
    Flag.optional
  ),
  "allow-origin": Flag.String("allow-origin").pipe(
    Flag.withDescription("A browser Origin allowed to call the HTTP door, e.g. https://app.example.com (repeatable; default none)."),
    Flag.atLeast(0)
  ),
  "idle-timeout": Flag.Int("idle-timeout").pipe(
    Flag.withDescription(`Close an HTTP session after this many seconds without a request (default ${DEFAULT_IDLE_TIMEOUT_MS / 1000}).`),
    Flag.withDefault(DEFAULT_IDLE_TIMEOUT_MS / 1000)
  ),
  cluster: Flag.Boolean("cluster").pipe(
    Flag.withDescription(
      "With --http: be a front of the cluster whose PostgreSQL is --sql URL (or env TOOLWRIGHT_SQL_URL): each MCP session is routed to its session on a `toolwright runner`; this process hosts none."
    ),
    Flag.withDefault(false)
  ),
  "max-sessions": Flag.Int("max-sessions").pipe(
    Flag.withDescription(`The most HTTP sessions open at once (default ${DEFAULT_MAX_SESSIONS}); more are refused with 503.`),
    Flag.withDefault(DEFAULT_MAX_SESSIONS)
  )
}

/** The token: from --token-file, else TOOLWRIGHT_TOKEN, else none. */
const loadToken = Effect.fnUntraced(function*(file: string | undefined) {
  if (file !== undefined) {
    const text = yield* Effect.tryPromise({
      try: () => readFile(file, "utf8"),
      catch: (error) => new TokenUnavailable({ message: `Cannot read the token file ${file}: ${error instanceof Error ? error.message : String(error)}` })
    })
    const token = text.trim()
    if (token === "") return yield* new TokenUnavailable({ message: `The token file ${file} is empty; put the token in it.` })
    return token
  }
  const env = yield* Config.option(Config.String(TOKEN_ENV))
  if (env._tag === "None") return undefined
  if (env.value.trim() === "") return yield* new TokenUnavailable({ message: `${TOKEN_ENV} is set but empty; set it to the token or unset it.` })
  return env.value.trim()
})

/**
 * Serves `options` over HTTP as the flags say, until interrupted.
 *
 * @category commands
 */
export const serveOverHttp = (
  session: ServeOptions,
  flags: Parameters<typeof serveWith>[1],
  cluster?: { readonly sqlUrl: string }
) =>
  serveWith(session, flags, cluster).pipe(
    // said once on stderr, then exit 1 (a CliExit is not reported again by the runtime)
    Effect.catchTags({
      InvalidListenAddress: refuseToStart,
      TokenRequired: refuseToStart,
      TokenUnavailable: refuseToStart,
      ListenFailed: refuseToStart,
      ClusterUnreachable: refuseToStart
    })
  )

const refuseToStart = (error: { readonly message: string }) =>
  Effect.andThen(
    Effect.sync(() => process.stderr.write(`toolwright serve: ${error.message}\n`)),
    Effect.fail(new CliExit({ exitCode: 1 }))
  )

const serveWith = Effect.fnUntraced(function*(
  session: ServeOptions,
  flags: {
    readonly http: string
    readonly "token-file": Option.Option<string>
    readonly "allow-origin": ReadonlyArray<string>
    readonly "idle-timeout": number
    readonly "max-sessions": number
  },
  cluster: { readonly sqlUrl: string } | undefined
) {
  const address = parseListenAddress(flags.http)
  if ("_tag" in address) return yield* address
  const token = yield* loadToken(Option.getOrUndefined(flags["token-file"]))
  const maxMessageBytes = yield* configuredMaxMessageBytes
  const door = {
    address,
    token,
    allowedOrigins: flags["allow-origin"],
    idleTimeoutMs: Math.max(1, flags["idle-timeout"]) * 1000,
    maxSessions: Math.max(1, flags["max-sessions"]),
    maxMessageBytes
  }
  if (cluster !== undefined) {
    const { serveClusterHttp } = yield* Effect.promise(() => import("../cluster/httpFront.js"))
    return yield* Effect.scoped(serveClusterHttp({ ...door, sqlUrl: cluster.sqlUrl }))
  }
  // floors: start-up — the HTTP door (and the SDK's HTTP transport) loads only with --http
  const { serveHttp } = yield* Effect.promise(() => import("../serve/http.js"))
  yield* Effect.scoped(serveHttp({ ...door, session }))
})
