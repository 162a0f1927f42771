/**
 * The session-scoped shell services as one Layer, in a module of its own so that building a
 * session does not load the shell tools themselves (they load lazily from the catalog).
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type { OutputStore } from "../output/index.js"
import type { Session, SessionEvents } from "../session/index.js"
import { BackgroundShells } from "./background/background.js"
import { ProcessHost } from "./terminal/host.js"

/** The services a session's shell tools need. @category models */
export type ShellServices = ProcessHost | BackgroundShells

/**
 * The process host and the background-shell registry of one session. Closing the scope stops
 * every background shell and kills every process the session started.
 *
 * @category layers
 */
export const layer: Layer.Layer<ShellServices, never, Session | OutputStore | SessionEvents> = BackgroundShells.layer.pipe(
  Layer.provideMerge(ProcessHost.layer)
)
