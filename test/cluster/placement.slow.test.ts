/**
 * Where a session lives and for how long (issue 17): a session that owns a running background shell
 * stays resident on its runner past the idle time (the shell keeps running and the session keeps
 * its state), one without is passivated; a session `NAME@GROUP` runs only on a runner that mounts
 * `GROUP`, and one of a group no runner mounts is refused in bounded time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Effect, Fiber, Layer } from "effect"
import { ClusterFront, Front, type WireBatch } from "../../src/cluster/index.js"
import { errorType, type McpResult, resultOf, startRunner, textOf } from "../support/cluster.js"
import { startPostgres } from "../support/postgres.js"
import { tempDir } from "../support/serve.js"


const world = (frontOptions: Omit<Front.FrontOptions, "sqlUrl"> = {}) =>
  Effect.gen(function*() {
    const pg = yield* startPostgres()
    const root = yield* tempDir("tw-place-root-")
    const stateDir = yield* tempDir("tw-place-state-")
    const front = Context.get(yield* Layer.build(Front.layer({ sqlUrl: pg.url, ...frontOptions })), ClusterFront)
    return { pg, root, stateDir, front }
  })

let callSeq = 0
const call = (front: ClusterFront["Service"], session: string, name: string, args: unknown) =>
  front.callBatch(session, [{ callId: `p${++callSeq}`, name, args }])

const ok = (batch: WireBatch) => {
  const r = resultOf(batch)
  assert.notStrictEqual(r.isError, true, textOf(r))
  return textOf(r)
}

const lines = (file: string) => fs.existsSync(file) ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").length : 0

describe("session residency and placement", () => {
  it.live("a session with a running background shell outlives the idle time; one without is passivated", () =>
    Effect.gen(function*() {
      const { front, pg, root, stateDir } = yield* world()
      // Idle time 3 s (the cluster checks idleness every 5 s at the finest).
      yield* startRunner({ sqlUrl: pg.url, root, stateDir, extraArgs: ["--idle-minutes", "0.05"] })
      fs.writeFileSync(path.join(root, "keep.txt"), "keep me\n")
      fs.writeFileSync(path.join(root, "idle.txt"), "idle me\n")

      ok(yield* call(front, "keeper", "read_file", { file_path: "keep.txt" }))
      const started = ok(yield* call(front, "keeper", "run_shell_command", {
        command: "i=0; while true; do i=$((i+1)); echo $i >> ticks.txt; sleep 0.2; done",
        is_background: true
      }))
      const shellId = /bg_[0-9a-z]+/.exec(started)?.[0]
      assert.isDefined(shellId, started)
      ok(yield* call(front, "idler", "read_file", { file_path: "idle.txt" }))

      // Several idle periods (3 s each) and reaper rounds (5 s) without a message to either session.
      yield* Effect.sleep("16 seconds")
      const ticks = path.join(root, "ticks.txt")
      const before = lines(ticks)
      yield* Effect.sleep("2 seconds")
      assert.isAbove(lines(ticks), before, "the background shell still runs after the idle time")

      // Both files change behind the sessions' backs. A resident session still holds its read of
      // the file and sees the change (file_changed_since_read); a passivated one was rebuilt from
      // the store, which drops evidence of changed files (edit_requires_prior_read).
      fs.appendFileSync(path.join(root, "keep.txt"), "more\n")
      fs.appendFileSync(path.join(root, "idle.txt"), "more\n")
      const kept = resultOf(yield* call(front, "keeper", "edit", { file_path: "keep.txt", old_string: "keep me", new_string: "kept" }))
      assert.strictEqual(errorType(kept), "file_changed_since_read", textOf(kept))
      const rebuilt = resultOf(yield* call(front, "idler", "edit", { file_path: "idle.txt", old_string: "idle me", new_string: "idled" }))
      assert.strictEqual(errorType(rebuilt), "edit_requires_prior_read", textOf(rebuilt))

      // The session still knows its shell: it stops it by id, and the file stops growing.
      ok(yield* call(front, "keeper", "tool_search", { query: "select:task_stop" }))
      ok(yield* call(front, "keeper", "task_stop", { task_id: shellId }))
      yield* Effect.sleep("1 second")
      const stopped = lines(ticks)
      yield* Effect.sleep("1 second")
      assert.strictEqual(lines(ticks), stopped, "the shell stopped")
    }).pipe(Effect.scoped), 180_000)

  it.live("sessions NAME@GROUP run only on runners of GROUP; a group no runner mounts is refused in bounded time", () =>
    Effect.gen(function*() {
      const { front, pg, root, stateDir } = yield* world({ unmountedGroupWait: "3 seconds" })
      const alpha = yield* startRunner({ sqlUrl: pg.url, root, stateDir, groups: ["alpha"] })
      const beta = yield* startRunner({ sqlUrl: pg.url, root, stateDir, groups: ["beta"] })
      fs.writeFileSync(path.join(root, "f.txt"), "shared\n")

      for (let i = 0; i < 6; i++) {
        const onAlpha = yield* call(front, `s${i}@alpha`, "read_file", { file_path: "f.txt" })
        ok(onAlpha)
        assert.strictEqual(onAlpha.runner, alpha.name, `s${i}@alpha runs on the alpha runner`)
        const onBeta = yield* call(front, `s${i}@beta`, "read_file", { file_path: "f.txt" })
        ok(onBeta)
        assert.strictEqual(onBeta.runner, beta.name, `s${i}@beta runs on the beta runner`)
      }
      // A plain id belongs to the default group, which neither runner mounts either.
      for (const id of ["s0@gamma", "plain"]) {
        // Without the bounded wait the cluster would retry the message forever (the test would time out).
        const refused = yield* Effect.flip(call(front, id, "read_file", { file_path: "f.txt" }))
        assert.strictEqual(refused.code, "session_unavailable")
        assert.include(refused.message, `no runner mounts workspace group "${id === "plain" ? "default" : "gamma"}"`)
      }
      const listing = yield* Effect.flip(front.listTools("s1@gamma"))
      assert.strictEqual(listing.code, "session_unavailable")
    }).pipe(Effect.scoped), 180_000)

  it.live("a call whose group's only runner stops while it runs comes back session_runner_lost, not a hang", () =>
    Effect.gen(function*() {
      const { front, pg, root, stateDir } = yield* world({ unmountedGroupWait: "3 seconds" })
      const alpha = yield* startRunner({ sqlUrl: pg.url, root, stateDir, groups: ["alpha"] })
      fs.writeFileSync(path.join(root, "f.txt"), "shared\n")
      ok(yield* call(front, "long@alpha", "read_file", { file_path: "f.txt" }))
      const running = yield* Effect.forkChild(call(front, "long@alpha", "run_shell_command", {
        command: "for i in $(seq 120); do echo tick $i; sleep 1; done"
      }))
      yield* Effect.sleep("2 seconds")
      yield* alpha.stop("SIGTERM")
      const lost = resultOf(yield* Fiber.join(running))
      assert.strictEqual(errorType(lost), "session_runner_lost", textOf(lost))
      // The front's watch answered: the cluster alone would retry the message until an alpha runner returns.
      assert.include(textOf(lost), 'no runner mounts workspace group "alpha" now')
      assert.include(textOf(lost), "Whether the call took effect is unknown")
    }).pipe(Effect.scoped), 180_000)
})
