/**
 * `toolwright serve --http [HOST:]PORT --cluster --sql URL`: the HTTP door as a cluster front. The
 * door is the same (access checks, token, origins, idle expiry, session cap, message size cap:
 * `serveDoor` and the session table of `src/serve`), but an MCP session holds no toolwright session
 * of its own: its `tools/list` and `tools/call` go to the `ToolSession` entity of its id, on
 * whichever runner holds that id's shard.
 *
 * The entity id is the `X-Toolwright-Session` header of the `initialize` request when given (a
 * client that reconnects with the same name continues its session, wherever it now runs; `NAME@GROUP`
 * pins it to a workspace group), else the MCP session id.
 *
 * @since 0.3.0
 */
import { randomUUID } from "node:crypto"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
// floors: start-up — the HTTP door (and the SDK's HTTP transport) loads only with --http
import { type DoorOptions, say, serveDoor } from "../serve/http.js"
// floors: start-up — the HTTP door's session table loads only with --http
import { makeSessionTable, type SessionBackend, SessionRefused } from "../serve/httpSessions.js"
import { elicitingApprover, ERROR_TYPE_META, makeMcpServer } from "../serve/index.js"
import { toApprovalRequest } from "./approval.js"
import { CANNOT_ASK_REASON } from "./pending.js"
import { ClusterFront, layer as frontLayer } from "./front.js"
import type { SessionUnavailable, WireBatch, WireCall } from "./protocol.js"

/** The cluster's PostgreSQL could not be reached when the front started. @category errors */
export class ClusterUnreachable extends Schema.TaggedError<ClusterUnreachable>()("ClusterUnreachable", { message: Schema.String }) {}

/** Options of {@link serveClusterHttp}. @category models */
export interface ClusterHttpOptions extends DoorOptions {
  /** The PostgreSQL URL shared by the cluster's runners. */
  readonly sqlUrl: string
}

/** What the front announces when a runner does not say (runners older than the front). */
const FALLBACK_INSTRUCTIONS = "toolwright gives you tools over this workspace: read and edit files, run commands, search, and more. " +
  "Some tools are deferred: fetch them with tool_search before calling them."

/** What `initialize` announces: tools (re-listed after a reveal), saved outputs to read (not to list), logging; no prompts. */
const CAPABILITIES = { tools: { listChanged: true }, resources: {}, logging: {} }

/** A `session_unavailable` failure as an MCP tool result a model can act on. */
const unavailableResult = (error: SessionUnavailable) => ({
  isError: true,
  content: [{
    type: "text",
    text: `${error.message} This is a problem of the deployment, not of the call: tell the user; retrying the call will not help until it is fixed.`
  }],
  _meta: { [ERROR_TYPE_META]: error.code }
})

/**
 * The calls of one MCP session, sent as batches to its entity. The one place a front session
 * builds its `callBatch` call: an approval round trip (asking the client through elicitation) is
 * passed here.
 */
const batchesOf = (front: ClusterFront["Service"], entityId: string, mcp: Server) => {
  // Approvals (and ask_user_question) the runner asks for are put to this MCP session's client, as
  // the local door does: by elicitation, or cancelled as unasked when the client cannot elicit.
  const approver = elicitingApprover(() => mcp, { _tag: "cancel", reason: CANNOT_ASK_REASON, unasked: true })
  return (calls: ReadonlyArray<WireCall>): Effect.Effect<WireBatch, SessionUnavailable> =>
    front.callBatch(entityId, calls, { approve: (request) => approver.confirm(toApprovalRequest(request)) })
}

/** The front's backend: an MCP server whose tool handlers talk to the session's entity. */
const clusterBackend = (front: ClusterFront["Service"]): SessionBackend =>
  Effect.fnUntraced(function*(transport, opening) {
    const entityId = opening.named?.name ?? opening.id
    // The entity starts now (on the runner holding its shard): a session that cannot start refuses
    // the `initialize`, and the instructions are the session's own.
    const first = yield* front.listTools(entityId).pipe(Effect.mapError((e) => new SessionRefused({ message: `${e.code}: ${e.message}` })))
    const mcp = makeMcpServer({ instructions: first.instructions ?? FALLBACK_INSTRUCTIONS, capabilities: CAPABILITIES })
    const runPromise = Effect.runPromiseWith(yield* Effect.context<never>())
    mcp.onerror = (error) => say(`session ${opening.id}: ${error.message}`)

    mcp.setRequestHandler(ListToolsRequestSchema, () =>
      runPromise(Effect.result(front.listTools(entityId))).then((listed) => {
        if (listed._tag === "Failure") throw new McpError(ErrorCode.InternalError, `${listed.failure.code}: ${listed.failure.message}`)
        return { tools: listed.success.tools as Array<never> }
      }))

    // A cut result's `resource_link` (a saved output on the runner) is read through the entity.
    mcp.setRequestHandler(ReadResourceRequestSchema, (request) =>
      runPromise(Effect.result(front.readOutput(entityId, request.params.uri))).then((read) => {
        if (read._tag === "Success") return read.success as { contents: Array<never> }
        const error = read.failure
        throw error._tag === "OutputUnreadable"
          ? new McpError(error.errorCode, error.message, { uri: request.params.uri })
          : new McpError(ErrorCode.InternalError, `${error.code}: ${error.message}`)
      }))

    const callBatch = batchesOf(front, entityId, mcp)
    const prefix = randomUUID().slice(0, 8)
    let nextCallId = 0
    // A client's cancel aborts `extra.signal`: the front's wait is interrupted, and the cluster
    // interrupts the call on the runner. Progress notifications do not cross the cluster.
    mcp.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      runPromise(
        callBatch([{ callId: `mcp-${prefix}-${++nextCallId}`, name: request.params.name, args: request.params.arguments ?? {} }]).pipe(
          Effect.map((batch) => batch.results[0]?.result as { readonly isError?: boolean } | undefined),
          Effect.tap((result) =>
            // A reveal changes the session's list: the host re-lists (through the front).
            request.params.name === "tool_search" && result !== undefined && result.isError !== true
              ? Effect.ignore(Effect.tryPromise(() => mcp.sendToolListChanged()))
              : Effect.void
          ),
          Effect.catchTag("SessionUnavailable", (e) => Effect.succeed(unavailableResult(e)))
        ),
        { signal: extra.signal }
      ) as Promise<never>)

    yield* Effect.promise(() => mcp.connect(transport))
    yield* Scope.addFinalizer(opening.scope, Effect.promise(() => mcp.close().catch(() => undefined)))
    say(`session ${opening.id} → entity ${entityId} on runner ${first.runner}`)
    return mcp
  })

/**
 * Serves MCP over HTTP as a front of the cluster whose membership is in `sqlUrl`, until
 * interrupted (SIGTERM, SIGINT). Fails at start when the database cannot be reached.
 *
 * @category constructors
 */
export const serveClusterHttp = Effect.fnUntraced(function*(options: ClusterHttpOptions) {
  const context = yield* Layer.build(frontLayer({ sqlUrl: options.sqlUrl })).pipe(
    Effect.timeout("30 seconds"),
    // The cluster's storage layers die on a database they cannot reach: any failure but an interrupt
    // is this start error.
    Effect.catchCause((cause) =>
      Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause as Cause.Cause<never>) : Effect.fail(
        new ClusterUnreachable({
          message: `Cannot join the cluster: its PostgreSQL (--sql) did not answer (${errorText(Cause.squash(cause))}). ` +
            "Check the URL, that the database runs and that this machine can reach it."
        })
      )
    )
  )
  const front = Context.get(context, ClusterFront)
  const table = makeSessionTable({ backend: clusterBackend(front), maxMessageBytes: options.maxMessageBytes, log: say })
  say("routing sessions to the cluster's runners")
  return yield* serveDoor(options, table)
})

const errorText = (cause: unknown): string => {
  if (typeof cause === "object" && cause !== null && "message" in cause && typeof cause.message === "string" && cause.message !== "") {
    return cause.message
  }
  return typeof cause === "object" && cause !== null && "_tag" in cause ? String(cause._tag) : String(cause)
}
