/**
 * What happens in a session that a door may want to tell its host about, on its own time: a
 * background shell finished, an MCP upstream connected or logged, upstream prompts changed. The
 * rooms that produce these (shell, mcp) publish here; a door (the MCP server) subscribes. Neither
 * knows the other, and the door imports no tool room's internals.
 *
 * Events published while nobody listens are dropped: a subscriber hears what happens after it
 * subscribed (the MCP door subscribes before it connects).
 *
 * Reminders are what the model itself must hear (a log message reaches no model): a finished
 * background shell, changed MCP tools, a budget warning. They wait in a per-session queue until the
 * scheduler attaches them to the next tool result, once each: a reminder with the key of one still
 * waiting replaces it, and a reminder source (e.g. the MCP gateway's "tools changed since you were
 * told") is asked for its text at each take.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as PubSub from "effect/PubSub"
import * as Ref from "effect/Ref"
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
  /** Queues a reminder for the model; one waiting under the same key is replaced. */
  readonly remind: (key: string, text: string) => Effect.Effect<void>
  /** Adds a source asked at every take; its text (when not null) is taken with the queue. */
  readonly addReminderSource: (source: Effect.Effect<string | null>) => Effect.Effect<void>
  /** The waiting reminders, in the order they came, then the sources' texts; the queue is emptied. */
  readonly takeReminders: Effect.Effect<ReadonlyArray<string>>
}>()("toolwright/session/SessionEvents") {
  /** A bus for one session; it shuts down (ending every subscription) when the session closes. */
  static readonly layer: Layer.Layer<SessionEvents> = Layer.effect(
    SessionEvents,
    Effect.gen(function*() {
      const pubsub = yield* Effect.acquireRelease(PubSub.unbounded<SessionEvent>(), PubSub.shutdown)
      // a Map keeps insertion order; re-setting a key keeps its place, so delete first
      const waiting = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
      const sources = yield* Ref.make<ReadonlyArray<Effect.Effect<string | null>>>([])
      const takeReminders = Effect.gen(function*() {
        const queued = yield* Ref.getAndSet(waiting, new Map())
        const polled: Array<string> = []
        for (const source of yield* Ref.get(sources)) {
          const text = yield* source
          if (text !== null && text.trim() !== "") polled.push(text)
        }
        return [...queued.values(), ...polled]
      })
      return SessionEvents.of({
        publish: (event) => Effect.asVoid(PubSub.publish(pubsub, event)),
        subscribe: Effect.map(PubSub.subscribe(pubsub), Stream.fromSubscription),
        remind: (key, text) =>
          Ref.update(waiting, (map) => {
            const next = new Map(map)
            next.delete(key)
            return next.set(key, text)
          }),
        addReminderSource: (source) => Ref.update(sources, (list) => [...list, source]),
        takeReminders
      })
    })
  )
}
