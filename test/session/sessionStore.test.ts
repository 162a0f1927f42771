/**
 * What the session store keeps besides read evidence (issue 17): records written before a key
 * existed still decode; the output index and the todo list come back when a named session is
 * resumed through the library door (memory and file stores), and an output whose file is gone is
 * dropped.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, Option } from "effect"
import { OutputStore } from "../../src/output/index.js"
import { Approver } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import {
  makeFileSessionStore,
  makeMemorySessionStore,
  SessionEvents,
  type SessionRecord,
  type SessionStoreService,
  type StoredOutput
} from "../../src/session/index.js"
import { decodeStoredRecord, MAX_CARRIED_OUTPUTS, mergeOutputs, mergeRecords, outputKey } from "../../src/session/sessionStore.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { makeTempDir } from "../support/session.js"

const setup = () => {
  const root = makeTempDir("tw-store-root-")
  const stateDir = makeTempDir("tw-store-state-")
  const layer = (sessionId: string, store: SessionStoreService, extra: Partial<SessionLayer.SessionOptions> = {}) =>
    SessionLayer.layer({ roots: [root], stateDir, sessionStore: store, sessionId, ...extra }).pipe(
      Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
    )
  const call = (name: string, args: unknown) => Scheduler.use((s) => s.runOne({ callId: name, name, args }))
  return { root, stateDir, layer, call }
}

const dataOf = (r: CallResult) => (r._tag === "Success" ? r.data : undefined) as { created: ReadonlyArray<string> } | undefined
const textOf = (r: CallResult) => (r._tag === "Success" ? r.llmContent.map((p) => (p.type === "text" ? p.text : "")).join("\n") : "")

const todos = [
  { content: "Fix the login form", status: "completed", id: "1" },
  { content: "Run the test suite", status: "in_progress", id: "2" }
]

describe("session record: backward compatible", () => {
  const v1 = {
    version: 1,
    name: "old",
    createdAt: 1,
    lastUsedAt: 2,
    roots: ["/w"],
    evidence: [{ root: 0, path: "a.txt", size: 1, mtimeMs: 1, sha256: "00", full: true, cacheable: true, resident: true, at: 1 }]
  }

  it.effect("a record from before revealed/reminders/outputs decodes, and one with outputs keeps them", () =>
    Effect.gen(function*() {
      const old = Option.getOrThrow(yield* decodeStoredRecord("old", JSON.stringify(v1), "damaged"))
      assert.deepStrictEqual(old, v1 as unknown as SessionRecord)
      assert.isUndefined(old.outputs)
      const output: StoredOutput = { id: "grep_search_0011223344556677", tool: "grep_search", bytes: 5, sha256: "ab", lines: 1, path: "outputs/old/grep_search_0011223344556677.output", createdAt: 3 }
      const withOutputs = Option.getOrThrow(yield* decodeStoredRecord("old", JSON.stringify({ ...v1, outputs: [output] }), "damaged"))
      assert.deepStrictEqual(withOutputs.outputs, [output])
      // an output entry missing a field is a damaged record, not silently half-read
      const bad = yield* Effect.flip(decodeStoredRecord("old", JSON.stringify({ ...v1, outputs: [{ id: "x" }] }), "damaged"))
      assert.strictEqual(bad._tag, "SessionStoreFailed")
    }))

  it.effect("the file store loads an old record file as it was written", () =>
    Effect.gen(function*() {
      const stateDir = makeTempDir("tw-store-old-")
      fs.mkdirSync(path.join(stateDir, "sessions"))
      fs.writeFileSync(path.join(stateDir, "sessions", "old.json"), JSON.stringify(v1))
      const loaded = Option.getOrThrow(yield* makeFileSessionStore(stateDir).load("old"))
      assert.deepStrictEqual(loaded.evidence.map((e) => e.path), ["a.txt"])
    }))

  it("mergeOutputs: union by id, oldest first, the most recent MAX_CARRIED_OUTPUTS", () => {
    const o = (id: string, createdAt: number): StoredOutput => ({ id, tool: "t", bytes: 1, sha256: "", lines: 1, path: `outputs/n/${id}.output`, createdAt })
    assert.deepStrictEqual(mergeOutputs([o("a", 1), o("b", 3)], [o("c", 2), o("a", 1)]).map((x) => x.id), ["a", "c", "b"])
    const many = Array.from({ length: MAX_CARRIED_OUTPUTS + 5 }, (_, i) => o(`x${i}`, i))
    const kept = mergeOutputs(many.slice(0, 10), many.slice(10))
    assert.strictEqual(kept.length, MAX_CARRIED_OUTPUTS)
    assert.strictEqual(kept[0]!.id, "x5")
    const base: SessionRecord = { version: 1, name: "n", createdAt: 1, lastUsedAt: 1, roots: [], evidence: [] }
    assert.deepStrictEqual(mergeRecords({ ...base, outputs: [o("a", 1)] }, { ...base, outputs: [o("b", 2)] }, new Set()).outputs?.map((x) => x.id), ["a", "b"])
    assert.isUndefined(mergeRecords(base, base, new Set()).outputs)
    // an output this process found gone is not revived from the saved record
    assert.isUndefined(mergeRecords({ ...base, outputs: [o("a", 1)] }, base, new Set([outputKey("a")])).outputs)
  })
})

describe("named session resumed (library door)", () => {
  for (const kind of ["memory", "file"] as const) {
    it.live(`${kind} store: saved outputs stay readable, a gone file is dropped; the todo list comes back`, () =>
      Effect.gen(function*() {
        const s = setup()
        const store = kind === "memory" ? makeMemorySessionStore() : makeFileSessionStore(s.stateDir)
        const content = Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join("")
        const [kept, gone] = yield* Effect.gen(function*() {
          const outputs = yield* OutputStore
          const kept = yield* outputs.persist("grep_search", content)
          const gone = yield* outputs.persist("glob", "x\ny\n")
          const written = yield* s.call("todo_write", { todos })
          assert.deepStrictEqual(dataOf(written)?.created, ["1", "2"])
          return [kept, gone] as const
        }).pipe(Effect.provide(s.layer("work", store)))
        const record = Option.getOrThrow(yield* store.load("work"))
        assert.deepStrictEqual(record.outputs?.map((o) => [o.id, o.tool, o.bytes, o.sha256, o.path]), [
          [kept.id, "grep_search", kept.bytes, kept.sha256, `outputs/work/${kept.id}.output`],
          [gone.id, "glob", gone.bytes, gone.sha256, `outputs/work/${gone.id}.output`]
        ])
        fs.rmSync(gone.path)

        yield* Effect.gen(function*() {
          const outputs = yield* OutputStore
          assert.deepStrictEqual((yield* outputs.list).map((o) => o.id), [kept.id])
          const page = yield* outputs.read(kept.id, { offsetLine: 2999, limitLines: 5 })
          assert.strictEqual(page.content, "line 2999\n")
          assert.strictEqual(page.totalLines, 3000)
          assert.strictEqual((yield* Effect.flip(outputs.get(gone.id)))._tag, "OutputNotFound")
          assert.strictEqual((yield* outputs.usage).usedBytes, kept.bytes)
          // the model is told its unfinished list once, and todo_write compares against it
          const reminders = yield* SessionEvents.use((e) => e.takeReminders)
          assert.strictEqual(reminders.length, 1)
          assert.include(reminders[0]!, JSON.stringify(todos))
          const again = yield* s.call("todo_write", { todos: [...todos, { content: "Ship it", status: "pending", id: "3" }] })
          assert.deepStrictEqual(dataOf(again)?.created, ["3"])
        }).pipe(Effect.provide(s.layer("work", store, { resume: true })))

        // the output the second lifetime adopted is still on disk and listed (not removed as scratch)
        assert.isTrue(fs.existsSync(kept.path))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.load("work")).outputs?.map((o) => o.id), [kept.id])
        // another name sees neither
        const other = yield* Effect.gen(function*() {
          const written = yield* s.call("todo_write", { todos })
          return [yield* (yield* OutputStore).list, dataOf(written)?.created] as const
        }).pipe(Effect.provide(s.layer("other", store)))
        assert.deepStrictEqual(other, [[], ["1", "2"]])
      }))
  }

  it.live("a finished list is not announced again; an output file outside the session's directory is never adopted", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeMemorySessionStore()
      yield* s.call("todo_write", { todos: todos.map((t) => ({ ...t, status: "completed" })) }).pipe(Effect.provide(s.layer("done", store)))
      const secret = path.join(s.root, "secret.output")
      fs.writeFileSync(secret, "secret\n")
      const record = Option.getOrThrow(yield* store.load("done"))
      const forged: StoredOutput = { id: "secret", tool: "t", bytes: 7, sha256: "", lines: 1, path: path.relative(s.stateDir, secret), createdAt: 1 }
      yield* store.save({ ...record, outputs: [forged] }, new Set())
      const [reminders, listed, text] = yield* Effect.gen(function*() {
        const reminders = yield* SessionEvents.use((e) => e.takeReminders)
        const listed = yield* (yield* OutputStore).list
        return [reminders, listed, textOf(yield* s.call("todo_write", { todos: [] }))] as const
      }).pipe(Effect.provide(s.layer("done", store, { resume: true })))
      assert.deepStrictEqual(reminders, [])
      assert.deepStrictEqual(listed, [])
      assert.include(text, "Todo list has been cleared")
    }))
})
