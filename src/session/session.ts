/**
 * One conversation's identity and where its files live. Everything mutable of a session lives in
 * the services built with it (read cache, registry, output store, approvals), never at module level,
 * so two sessions in one process share nothing mutable.
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** A session's identity. @category services */
export class Session extends Context.Service<Session, {
  /** Random hex id, unique per session. */
  readonly id: string
  /** When the session started (ms since the epoch). */
  readonly startedAt: number
}>()("toolwright/session/Session") {
  /** A session with a fresh id. */
  static readonly layer: Layer.Layer<Session> = Layer.effect(
    Session,
    Effect.sync(() => Session.of({ id: newSessionId(), startedAt: Date.now() }))
  )
}

/** A fresh random session id (16 hex chars). @category constructors */
export const newSessionId = (): string => randomBytes(8).toString("hex")
