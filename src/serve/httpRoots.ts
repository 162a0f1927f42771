/**
 * The roots of one HTTP session: the server's `--root` list, narrowed by the client's MCP `roots`
 * when it offers them, never widened. A client root inside a server root is kept; a client root
 * that contains server roots keeps those server roots; a client root outside every server root is
 * ignored.
 *
 * @since 0.1.0
 */
import { realpath } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { RequestId } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isPathInside } from "../session/index.js"

/** How long a client has to answer `roots/list`. @category constants */
export const ROOTS_TIMEOUT_MS = 10_000

/** None of the client's roots lies inside the server's roots. @category errors */
export class NoRootsInWorkspace extends Schema.TaggedError<NoRootsInWorkspace>()("NoRootsInWorkspace", {
  message: Schema.String
}) {}

/**
 * The roots a session gets, from real paths: in the client's order, duplicates removed; empty
 * when nothing of the client's roots lies in the server's.
 *
 * @category constructors
 */
export const narrowRoots = (serverRoots: ReadonlyArray<string>, clientRoots: ReadonlyArray<string>): ReadonlyArray<string> => {
  const kept: Array<string> = []
  for (const client of clientRoots) {
    if (serverRoots.some((server) => isPathInside(client, server))) kept.push(client)
    else kept.push(...serverRoots.filter((server) => isPathInside(server, client)))
  }
  return [...new Set(kept)]
}

/** The real path of a `file://` root; undefined for other schemes and paths that do not exist. */
const realRoot = (uri: string): Effect.Effect<string | undefined> =>
  uri.startsWith("file://")
    ? Effect.promise(() => realpath(fileURLToPath(uri)).catch(() => undefined))
    : Effect.succeed(undefined)

/**
 * Asks an initialized client for its roots (when it declared the capability; once it has sent a
 * request, on whose response stream the question goes) and narrows the
 * server's roots by them. A client without roots (or with an empty list), or one that does not
 * answer, gets the server's.
 *
 * @category constructors
 */
export const sessionRoots = Effect.fnUntraced(function*(
  server: Server,
  serverRoots: ReadonlyArray<string>,
  /** The client request whose response stream carries `roots/list` (HTTP: a stream the client reads). */
  relatedRequest: Effect.Effect<RequestId>
) {
  const real = (yield* Effect.forEach(serverRoots, (root) => Effect.promise(() => realpath(root).catch(() => root))))
  if (server.getClientCapabilities()?.roots === undefined) return real
  const relatedRequestId = yield* relatedRequest
  const listed = yield* Effect.tryPromise(() => server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS, relatedRequestId })).pipe(
    Effect.tapError((error) => Effect.logWarning(`toolwright serve: the client's roots/list failed (${String(error)}); using the server's roots`)),
    Effect.option
  )
  if (listed._tag === "None" || listed.value.roots.length === 0) return real
  const clientRoots = (yield* Effect.forEach(listed.value.roots, (root) => realRoot(root.uri)))
    .filter((root): root is string => root !== undefined)
  const narrowed = narrowRoots(real, clientRoots)
  if (narrowed.length > 0) return narrowed
  return yield* new NoRootsInWorkspace({
    message: `None of the client's roots (${listed.value.roots.map((r) => r.uri).join(", ") || "none"}) lies inside this server's ` +
      `roots (${real.join(", ")}). Offer a root inside one of them, or offer no roots to get them all.`
  })
})
