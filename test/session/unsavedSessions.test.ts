/**
 * `keepUnsaved` over a store that can be switched off (a stand-in for a database that is down, in
 * the process: the real outage runs in test/cli/sqlOutage.e2e.test.ts): a save the store refuses
 * is kept under `<state-dir>/unsaved-sessions/` and says where; the next load of the name hands it
 * to the store and removes the file; a kept file that does not decode is left as it is. And
 * `withDeadline` fails at its deadline without waiting for work that will not stop.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Option } from "effect"
import {
  keepUnsaved,
  makeMemorySessionStore,
  type SessionRecord,
  SessionStoreFailed,
  type SessionStoreService,
  UNSAVED_SESSIONS_DIR,
  withDeadline
} from "../../src/session/index.js"
import { makeTempDir } from "../support/session.js"

const record = (name: string, at: number): SessionRecord => ({
  version: 1,
  name,
  createdAt: at,
  lastUsedAt: at,
  roots: ["/w"],
  evidence: [{ root: 0, path: "a.txt", size: 1, mtimeMs: at, sha256: "00", full: true, cacheable: true, resident: false, at }]
})

/** The memory store, failing every call while `down.value` is true. */
const switchable = () => {
  const inner = makeMemorySessionStore()
  const down = { value: false }
  const refuse = Effect.fail(new SessionStoreFailed({ message: "Could not connect to the store (down)." }))
  const store: SessionStoreService = {
    load: (name) => Effect.suspend(() => down.value ? refuse : inner.load(name)),
    save: (r, dropped) => Effect.suspend(() => down.value ? refuse : inner.save(r, dropped))
  }
  return { store, inner, down }
}

describe("keepUnsaved", () => {
  it.effect("a refused save is kept on disk and said; the next load hands it over and removes the file", () =>
    Effect.gen(function*() {
      const stateDir = makeTempDir("tw-unsaved-")
      const dir = path.join(stateDir, UNSAVED_SESSIONS_DIR)
      const { store, inner, down } = switchable()
      const kept = keepUnsaved(store, stateDir)
      yield* kept.save(record("s", 1), new Set())
      assert.deepStrictEqual(fs.readdirSync(dir), [], "a save the store took leaves no file")

      down.value = true
      const failed = yield* kept.save(record("s", 2), new Set(["0:gone.txt"])).pipe(Effect.flip)
      assert.strictEqual(failed.code, "session_store_failed")
      assert.match(failed.message, /^Could not connect to the store \(down\)\. Its record is kept in \S+\/unsaved-sessions\/s@\d+-\d+-[0-9a-f]{8}\.json and goes to the store/)
      const files = fs.readdirSync(dir)
      assert.lengthOf(files, 1)
      assert.strictEqual(fs.statSync(path.join(dir, files[0]!)).mode & 0o777, 0o600)
      assert.isTrue((yield* kept.load("s").pipe(Effect.flip))._tag === "SessionStoreFailed", "still down: the load fails, the file stays")
      assert.lengthOf(fs.readdirSync(dir), 1)

      down.value = false
      const loaded = yield* kept.load("s")
      assert.isTrue(Option.isSome(loaded))
      assert.strictEqual(Option.getOrThrow(loaded).lastUsedAt, 2)
      assert.strictEqual(Option.getOrThrow(yield* inner.load("s")).lastUsedAt, 2)
      assert.deepStrictEqual(fs.readdirSync(dir), [])
    }))

  it.effect("kept files of another name are not touched; one that does not decode is left as it is", () =>
    Effect.gen(function*() {
      const stateDir = makeTempDir("tw-unsaved-")
      const dir = path.join(stateDir, UNSAVED_SESSIONS_DIR)
      const { store, down } = switchable()
      const kept = keepUnsaved(store, stateDir)
      down.value = true
      yield* kept.save(record("s.b", 5), new Set()).pipe(Effect.ignore)
      down.value = false
      fs.writeFileSync(path.join(dir, "s@1-1-deadbeef.json"), "{not json")
      assert.isTrue(Option.isNone(yield* kept.load("s")))
      assert.sameMembers(fs.readdirSync(dir).map((f) => f.split("@")[0]), ["s", "s.b"])
      assert.isTrue(Option.isSome(yield* kept.load("s.b")))
      assert.deepStrictEqual(fs.readdirSync(dir), ["s@1-1-deadbeef.json"])
    }))
})

describe("withDeadline", () => {
  it.live("fails at the deadline without waiting for work that cannot be interrupted", () =>
    Effect.gen(function*() {
      const done = { value: false }
      const stuck = Effect.uninterruptible(Effect.andThen(Effect.sleep("3 seconds"), Effect.sync(() => (done.value = true))))
      const error = yield* withDeadline(stuck, 50, () => "too slow" as const).pipe(Effect.flip)
      assert.strictEqual(error, "too slow")
      assert.isFalse(done.value, "it returned while the uninterruptible work was still running")
      assert.strictEqual(yield* withDeadline(Effect.succeed(1), 1_000, () => "never"), 1)
    }))
})
