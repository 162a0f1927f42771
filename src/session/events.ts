/**
 * What happens in a session that a door may want to tell its host about, on its own time: a
 * background shell finished, an MCP upstream connected or logged, upstream prompts changed. The
 * rooms that produce these (shell, mcp) publish here; a door (the MCP server) subscribes. Neither
 * knows the other, and the door imports no tool room's internals.
 *
 * Events published while nobody listens are dropped: a subscriber hears what happens after it
 * subscribed (the MCP door subscribes before it connects).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** Log levels a host understands (MCP logging levels). @category models */
export type SessionLogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency"

/** Something a door may forward to its host. @category models */
export type SessionEvent =
  /** A background shell ended; `text` is the model-facing `<task-notification>`. */
  | {
    readonly _tag: "ShellFinished"
    readonly shellId: string
    readonly status: "completed" | "failed" | "cancelled"
    readonly text: string
    /** One line for people. */
    readonly display: string
  }
  /** A line for the host's log (an MCP upstream's status, a notice, an upstream's own log message). */
  | { readonly _tag: "Log"; readonly level: SessionLogLevel; readonly logger: string; readonly data: unknown }
  /** The prompts offered through the session changed (an MCP upstream's list). */
  | { readonly _tag: "PromptsChanged" }

/**
 * A session's event bus: producers publish, doors subscribe.
 *
 * @category services
 */
export class SessionEvents extends Context.Service<SessionEvents, {
  readonly publish: (event: SessionEvent) => Effect.Effect<void>
  /** Events from now on; the subscription ends with the scope. */
  readonly subscribe: Effect.Effect<Stream.Stream<SessionEvent>, never, Scope.Scope>
}>()("toolwright/session/SessionEvents") {
  /** A bus for one session; it shuts down (ending every subscription) when the session closes. */
  static readonly layer: Layer.Layer<SessionEvents> = Layer.effect(
    SessionEvents,
    Effect.gen(function*() {
      const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<SessionEvent>(), PubSub.shutdown)
      return SessionEvents.of({
        publish: (event) => Effect.asVoid(PubSub.publish(pubsub, event)),
        subscribe: Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription)
      })
    })
  )
}
