/**
 * The host's death, seen from a served process: a host killed with SIGKILL cannot close its end of
 * stdin when something else still holds it (a shell pipeline, a wrapper, a FIFO), and the serve
 * process would then live on as an orphan. The parent pid is polled; when it changes (the process
 * was re-parented to init or a subreaper), the parent is gone.
 *
 * @since 0.1.0
 */
import process from "node:process"
import * as Effect from "effect/Effect"

/** How often the parent pid is checked, in milliseconds. @category constants */
export const PARENT_POLL_MS = 500

/**
 * Runs `onGone` once the parent process is gone, polling every {@link PARENT_POLL_MS}. Never fires
 * for a process whose parent is already init (pid 1) when the watch starts. Forked in the scope.
 *
 * @category constructors
 */
export const watchParent = Effect.fnUntraced(function*(onGone: Effect.Effect<void>, pollMs: number = PARENT_POLL_MS) {
  const parent = process.ppid
  if (parent <= 1) return
  const poll: Effect.Effect<void> = Effect.suspend(() =>
    process.ppid === parent ? Effect.sleep(pollMs).pipe(Effect.andThen(poll)) : onGone
  )
  yield* Effect.forkScoped(Effect.sleep(pollMs).pipe(Effect.andThen(poll)))
})
