/**
 * Sessions as cluster entities: two runner processes of the built CLI on a private PostgreSQL, a
 * front in this process. 20 sessions spread over both runners; a runner stopped mid-run hands its
 * sessions to the other with the documented semantics (read evidence of unchanged files kept,
 * background shells reported ended); an edit re-sent after a crash is applied once.
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


/** A fresh world: PostgreSQL, a workspace with a file per session, a shared state dir, a front. */
const world = Effect.gen(function*() {
  const pg = yield* startPostgres()
  const root = yield* tempDir("tw-cluster-root-")
  const stateDir = yield* tempDir("tw-cluster-state-")
  const front = Context.get(yield* Layer.build(Front.layer({ sqlUrl: pg.url })), ClusterFront)
  const runner = () => startRunner({ sqlUrl: pg.url, root, stateDir })
  return { pg, root, stateDir, front, runner }
})

let callSeq = 0
const call = (front: ClusterFront["Service"], session: string, name: string, args: unknown) =>
  front.callBatch(session, [{ callId: `c${++callSeq}`, name, args }])

/** Waits until the front routes sessions to every one of `names` (new runners join within seconds). */
const awaitSpread = (front: ClusterFront["Service"], names: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (let round = 0; round < 60; round++) {
      const seen = new Set<string>()
      for (let i = 0; i < 8; i++) seen.add((yield* front.listTools(`probe-${round}-${i}`)).runner)
      if (names.every((n) => seen.has(n))) return
      yield* Effect.sleep("1 second")
    }
    assert.fail(`the front never routed to all of ${names.join(", ")}`)
  })

describe("sessions as cluster entities", () => {
  it.live("20 sessions spread over two runners; a stopped runner's sessions continue on the other", () =>
    Effect.gen(function*() {
      const { front, root, runner } = yield* world
      const a = yield* runner()
      const b = yield* runner()
      yield* awaitSpread(front, [a.name, b.name])

      const sessions = Array.from({ length: 20 }, (_, i) => `s${i}`)
      for (const s of sessions) fs.writeFileSync(path.join(root, `${s}.txt`), `hello from ${s}\n`)
      const placement = new Map<string, string>()
      for (const s of sessions) {
        const read = yield* call(front, s, "read_file", { file_path: `${s}.txt` })
        assert.include(textOf(resultOf(read)), `hello from ${s}`)
        placement.set(s, read.runner)
      }
      const onA = sessions.filter((s) => placement.get(s) === a.name)
      const onB = sessions.filter((s) => placement.get(s) === b.name)
      assert.strictEqual(onA.length + onB.length, 20)
      yield* Effect.log(`placement: ${onA.length} sessions on runner A, ${onB.length} on runner B`)
      assert.isAbove(onA.length, 0, "runner A hosts some sessions")
      assert.isAbove(onB.length, 0, "runner B hosts some sessions")

      // One session on A starts a background shell; one file read on A changes behind its back.
      const withShell = onA[0]!
      const shell = yield* call(front, withShell, "run_shell_command", { command: "sleep 300", is_background: true })
      assert.notStrictEqual(resultOf(shell).isError, true, textOf(resultOf(shell)))
      const changed = onA[onA.length - 1]!
      if (changed !== withShell) fs.writeFileSync(path.join(root, `${changed}.txt`), `changed behind ${changed}\n`)

      // Runner A stops (SIGTERM: its sessions close and save, its shards are released).
      yield* a.stop("SIGTERM")

      for (const s of onA) {
        const edit = yield* call(front, s, "edit", { file_path: `${s}.txt`, old_string: "hello", new_string: "bye" })
        assert.strictEqual(edit.runner, b.name, `${s} continues on runner B`)
        const r = resultOf(edit)
        if (s === changed && changed !== withShell) {
          // Evidence of a file changed since the read is not restored: read it again.
          assert.strictEqual(errorType(r), "edit_requires_prior_read", textOf(r))
        } else {
          assert.notStrictEqual(r.isError, true, `${s}: ${textOf(r)}`)
          assert.strictEqual(fs.readFileSync(path.join(root, `${s}.txt`), "utf8"), `bye from ${s}\n`)
        }
        if (s === withShell) {
          // The model is told once that the shell ended with the old runner.
          assert.include(textOf(r), "moved from runner")
          assert.include(textOf(r), "sleep 300")
        } else {
          assert.notInclude(textOf(r), "moved from runner")
        }
      }
      // A session that cannot start on its runner (here: not a valid session name) is session_unavailable.
      const refused = yield* Effect.flip(front.callBatch("no spaces allowed", [{ callId: "u1", name: "read_file", args: { file_path: "s0.txt" } }]))
      assert.strictEqual(refused.code, "session_unavailable")
      assert.include(refused.message, "is not a session name")

      // Sessions that were on B never moved and keep working there.
      for (const s of onB) {
        const edit = yield* call(front, s, "edit", { file_path: `${s}.txt`, old_string: "hello", new_string: "bye" })
        assert.strictEqual(edit.runner, b.name)
        assert.notStrictEqual(resultOf(edit).isError, true, textOf(resultOf(edit)))
      }
    }).pipe(Effect.scoped), 240_000)

  it.live("a runner killed mid-run: the running call is reported lost; an edit re-sent after the crash is applied once", () =>
    Effect.gen(function*() {
      const { front, root, runner } = yield* world
      const a = yield* runner()
      const b = yield* runner()
      yield* awaitSpread(front, [a.name, b.name])

      // Two sessions on one runner: one edits, the other runs a long command.
      const first = (yield* front.listTools("x0")).runner
      const victim = first === a.name ? a : b
      const survivor = victim === a ? b : a
      let y = ""
      for (let i = 1; y === ""; i++) if ((yield* front.listTools(`y${i}`)).runner === victim.name) y = `y${i}`

      fs.writeFileSync(path.join(root, "count.txt"), "n = 1\n")
      const read = yield* call(front, "x0", "read_file", { file_path: "count.txt" })
      assert.strictEqual(read.runner, victim.name)
      const edit = { callId: "edit-1", name: "edit", args: { file_path: "count.txt", old_string: "n = 1", new_string: "n = 1 + 1" } }
      const applied = yield* front.callBatch("x0", [edit])
      assert.notStrictEqual(resultOf(applied).isError, true, textOf(resultOf(applied)))
      assert.strictEqual(fs.readFileSync(path.join(root, "count.txt"), "utf8"), "n = 1 + 1\n")

      const running = yield* Effect.forkChild(call(front, y, "run_shell_command", { command: "for i in $(seq 60); do echo tick $i; sleep 1; done" }))
      yield* Effect.sleep("2 seconds")
      // The crash: no session closes, nothing is saved, the reply of the edit counts as lost.
      const killedAt = Date.now()
      yield* victim.stop("SIGKILL")

      const lostBatch = yield* Fiber.join(running)
      yield* Effect.log(`lost batch from runner "${lostBatch.runner}" (victim ${victim.name}) ${Date.now() - killedAt} ms after the kill`)
      // The cluster delivered the message again to the survivor, which refused to run it (or the front
      // could not reach any runner): either way it ran once.
      assert.include([survivor.name, ""], lostBatch.runner)
      const lost = resultOf(lostBatch)
      assert.strictEqual(errorType(lost), "session_runner_lost", textOf(lost))
      assert.include(textOf(lost), "Whether the call took effect is unknown")

      // The edit is sent again, as a front or model would after a lost reply: it reaches the other
      // runner, whose session has no evidence of the file's current bytes, and is refused.
      const again = yield* front.callBatch("x0", [edit])
      assert.strictEqual(again.runner, survivor.name)
      assert.strictEqual(errorType(resultOf(again)), "edit_requires_prior_read", textOf(resultOf(again)))
      assert.strictEqual(fs.readFileSync(path.join(root, "count.txt"), "utf8"), "n = 1 + 1\n", "applied exactly once")

      // Read again, the session goes on on the survivor.
      yield* call(front, "x0", "read_file", { file_path: "count.txt" })
      const next = resultOf(yield* call(front, "x0", "edit", { file_path: "count.txt", old_string: "n = 1 + 1", new_string: "n = 3" }))
      assert.notStrictEqual(next.isError, true, textOf(next))
      assert.strictEqual(fs.readFileSync(path.join(root, "count.txt"), "utf8"), "n = 3\n")
    }).pipe(Effect.scoped), 240_000)
})
