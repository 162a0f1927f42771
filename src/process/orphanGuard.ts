/**
 * The orphan guard: a tiny `sh` process that outlives the server by design and kills what the
 * server started once the server is gone, even when it died by SIGKILL and ran no finalizer.
 *
 * Commands confined by bubblewrap need no guard (`--die-with-parent` and a pid namespace take the
 * whole sandbox down with the server). Unconfined commands (`--sandbox off`, or a run approved
 * without the sandbox) do: the server writes each command's process group to the guard's stdin;
 * when that pipe reaches its end without the word `exit` (the server died), the guard kills those
 * process groups and every process still carrying the session's environment tag (on Linux, from
 * `/proc`), so double-forked daemons die too as long as they kept the tag or the group. A daemon
 * that left both (`setsid` and a cleared environment) can only be caught by the sandbox.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { LaunchQueueTimeout } from "../tool/index.js"
import { gatedLaunch } from "./launchGate.js"
import { Launcher, type LauncherService } from "./launcher.js"
import { PROCESS_TAG_VARIABLE } from "./tree.js"

/** The guard's script: collect process groups until stdin ends; `exit` ends it quietly. @category constants */
export const ORPHAN_GUARD_SCRIPT = `trap '' HUP INT TERM PIPE
groups=""
while IFS= read -r line; do
  case "$line" in
    exit) exit 0 ;;
    *[!0-9]*|"") ;;
    *) groups="$groups $line" ;;
  esac
done
sweep() {
  for g in $groups; do kill -9 "-$g" 2>/dev/null; done
  if [ -d /proc/self ]; then
    for f in $(grep -lzs -- "^${PROCESS_TAG_VARIABLE}=$TW_GUARD_TAG" /proc/[0-9]*/environ 2>/dev/null); do
      p=\${f#/proc/}; kill -KILL "\${p%/environ}" 2>/dev/null
    done
  fi
}
sweep
sleep 0.2
sweep
`

/** A running guard. @category models */
export interface OrphanGuard {
  /** Adds a process group to kill should the server die. */
  readonly watch: (pgid: number | undefined) => void
}

/**
 * Starts a guard for the processes tagged `tagPrefix` (and the groups it is told about), through
 * the launch gate. Closing the scope tells it to exit without killing anything (the session's own
 * finalizers do that).
 *
 * @category constructors
 */
export const startOrphanGuard = (tagPrefix: string): Effect.Effect<OrphanGuard, LaunchQueueTimeout, Scope.Scope> =>
  gatedLaunch("the orphan guard", () => Effect.flatMap(Launcher, (launcher) => startGuard(launcher, tagPrefix)))

const startGuard = (launcher: LauncherService, tagPrefix: string): Effect.Effect<OrphanGuard, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = launcher.launch("sh", ["-c", ORPHAN_GUARD_SCRIPT], {
        // The tag is escaped for grep's basic regex: only its dots are special.
        env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin", TW_GUARD_TAG: tagPrefix.replace(/\./g, "\\.") },
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
        // Neither the guard nor its pipe may keep the server's event loop alive.
        unref: true
      })
      child.on("error", () => undefined)
      child.stdin?.on("error", () => undefined)
      ;(child.stdin as unknown as { unref?: () => void } | null)?.unref?.()
      return child
    }),
    (child) =>
      Effect.sync(() => {
        if (child.stdin && !child.stdin.destroyed) child.stdin.end("exit\n")
      })
  ).pipe(
    Effect.map((child): OrphanGuard => ({
      // Written at once, before the call goes on: a server killed in between must not leave the
      // group unlisted (deferring the write saved a little CPU per call, not worth that window).
      watch: (pgid) => {
        const stdin = child.stdin
        if (pgid === undefined || !stdin || stdin.destroyed || stdin.writableEnded) return
        stdin.write(`${pgid}\n`)
      }
    }))
  )
