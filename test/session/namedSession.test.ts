/**
 * Named sessions at the library door (`SessionLayer.layer({ sessionId })`) with the memory and file
 * stores: evidence carried across session lifetimes, merged when two sessions of one name overlap,
 * dropped when its file changed, and the typed errors of an unknown, expired or badly named session.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Exit, Layer, Option } from "effect"
import { Approver } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import * as Registry from "../../src/registry/registry.js"
import {
  makeFileSessionStore,
  makeMemorySessionStore,
  SessionEvents,
  type SessionRecord,
  type SessionStoreService
} from "../../src/session/index.js"
import { mergeRecords } from "../../src/session/sessionStore.js"
import type { CallResult } from "../../src/tool/outcome.js"
import { makeTempDir } from "../support/session.js"

const codeOf = (r: CallResult) => (r._tag === "Failure" ? r.code : r._tag)

const setup = () => {
  const root = makeTempDir("tw-named-root-")
  const stateDir = makeTempDir("tw-named-state-")
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\n")
  fs.writeFileSync(path.join(root, "b.txt"), "beta\n")
  const layer = (sessionId: string | undefined, store: SessionStoreService, extra: Partial<SessionLayer.SessionOptions> = {}) =>
    SessionLayer.layer({ roots: [root], stateDir, sessionStore: store, ...(sessionId ? { sessionId } : {}), ...extra }).pipe(
      Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
    )
  const call = (name: string, args: unknown) => Scheduler.use((s) => s.runOne({ callId: name, name, args }))
  return { root, stateDir, layer, call, read: (f: string) => fs.readFileSync(path.join(root, f), "utf8") }
}

const editOf = (file: string, from: string, to: string) => ({ file_path: file, old_string: from, new_string: to })

describe("named sessions (library door)", () => {
  it.live("memory store: read in one session lifetime, edit in the next; another name knows nothing", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeMemorySessionStore()
      const read = yield* s.call("read_file", { file_path: "a.txt" }).pipe(Effect.provide(s.layer("one", store)))
      assert.strictEqual(codeOf(read), "Success")
      const other = yield* s.call("edit", editOf("a.txt", "alpha", "x")).pipe(Effect.provide(s.layer("two", store)))
      assert.strictEqual(codeOf(other), "edit_requires_prior_read")
      const edit = yield* s.call("edit", editOf("a.txt", "alpha", "gamma")).pipe(Effect.provide(s.layer("one", store)))
      assert.strictEqual(codeOf(edit), "Success")
      assert.strictEqual(s.read("a.txt"), "gamma\n")
      const record = Option.getOrThrow(yield* store.load("one"))
      assert.deepStrictEqual(record.evidence.map((e) => e.path), ["a.txt"])
      assert.deepStrictEqual(record.roots, [s.root])
    }))

  it.live("two overlapping sessions of one name: both reads are kept (merged, not last writer wins)", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeFileSessionStore(s.stateDir)
      yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* Layer.build(s.layer("shared", store))
        const second = yield* Layer.build(s.layer("shared", store))
        yield* s.call("read_file", { file_path: "a.txt" }).pipe(Effect.provideContext(first))
        yield* s.call("read_file", { file_path: "b.txt" }).pipe(Effect.provideContext(second))
      }))
      const record = Option.getOrThrow(yield* store.load("shared"))
      assert.deepStrictEqual(record.evidence.map((e) => e.path).sort(), ["a.txt", "b.txt"])
      const edits = yield* Effect.all([
        s.call("edit", editOf("a.txt", "alpha", "A")),
        s.call("edit", editOf("b.txt", "beta", "B"))
      ]).pipe(Effect.provide(s.layer("shared", store)))
      assert.deepStrictEqual(edits.map(codeOf), ["Success", "Success"])
    }))

  it.live("evidence of a file changed while no session ran is dropped and stays dropped", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeMemorySessionStore()
      yield* s.call("read_file", { file_path: "a.txt" }).pipe(Effect.provide(s.layer("d", store)))
      fs.writeFileSync(path.join(s.root, "a.txt"), "changed elsewhere\n")
      const edit = yield* s.call("edit", editOf("a.txt", "changed", "x")).pipe(Effect.provide(s.layer("d", store)))
      assert.strictEqual(codeOf(edit), "edit_requires_prior_read")
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load("d")).evidence, [])
      assert.strictEqual(s.read("a.txt"), "changed elsewhere\n")
    }))

  it.live("resume restores revealed tools and reminders still waiting; another name has neither", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeMemorySessionStore()
      const hiddenIn = (id: string) =>
        Registry.ToolRegistry.use((r) => r.isDeferredAndHidden("web_fetch")).pipe(Effect.provide(s.layer(id, store)))
      assert.isTrue(yield* hiddenIn("fresh"))
      yield* Effect.gen(function*() {
        assert.strictEqual(codeOf(yield* s.call("tool_search", { query: "select:web_fetch" })), "Success")
        yield* SessionEvents.use((e) => e.remind("k", "shell 7 finished while you were away"))
      }).pipe(Effect.provide(s.layer("rev", store)))
      const record = Option.getOrThrow(yield* store.load("rev"))
      assert.include(record.revealed ?? [], "web_fetch")
      assert.deepStrictEqual(record.reminders, ["shell 7 finished while you were away"])
      const [hidden, reminders] = yield* Effect.all([
        Registry.ToolRegistry.use((r) => r.isDeferredAndHidden("web_fetch")),
        SessionEvents.use((e) => e.takeReminders)
      ]).pipe(Effect.provide(s.layer("rev", store, { resume: true })))
      assert.isFalse(hidden)
      assert.deepStrictEqual(reminders, ["shell 7 finished while you were away"])
      // handed over once: the next resume has no reminders waiting, the reveal stays
      assert.deepStrictEqual(Option.getOrThrow(yield* store.load("rev")).reminders, [])
      assert.isFalse(yield* hiddenIn("rev"))
      assert.isTrue(yield* hiddenIn("other"))
    }))

  it.live("typed errors: unknown with resume, expired, bad name; a new name with resume creates nothing", () =>
    Effect.gen(function*() {
      const s = setup()
      const store = makeMemorySessionStore()
      const tagOf = (exit: Exit.Exit<unknown, { readonly _tag: string }>) =>
        Exit.isFailure(exit) ? Option.getOrThrow(Exit.findErrorOption(exit))._tag : "Success"
      const build = (id: string, extra: Partial<SessionLayer.SessionOptions> = {}) =>
        Effect.exit(Effect.scoped(Layer.build(s.layer(id, store, extra))))
      assert.strictEqual(tagOf(yield* build("ghost", { resume: true })), "SessionNotFound")
      assert.isTrue(Option.isNone(yield* store.load("ghost")))
      assert.strictEqual(tagOf(yield* build("../up")), "SessionStoreFailed")
      assert.strictEqual(tagOf(yield* build("live")), "Success")
      assert.strictEqual(tagOf(yield* build("live", { resume: true })), "Success")
      yield* Effect.sleep("20 millis")
      assert.strictEqual(tagOf(yield* build("live", { sessionTtlMs: 5 })), "SessionExpired")
    }))
})

describe("mergeRecords", () => {
  const base = (roots: ReadonlyArray<string>, evidence: SessionRecord["evidence"], at = 1): SessionRecord => ({
    version: 1,
    name: "n",
    createdAt: at,
    lastUsedAt: at,
    roots,
    evidence
  })
  const ev = (root: number, p: string, at: number) => ({
    root,
    path: p,
    size: 1,
    mtimeMs: at,
    sha256: String(at),
    full: true,
    cacheable: true,
    resident: true,
    at
  })

  it("re-indexes the saved roots onto the incoming ones; per file the newer evidence wins; dropped keys go", () => {
    const saved = base(["/r2", "/r1"], [ev(0, "x", 5), ev(1, "y", 1), ev(1, "z", 9)], 1)
    const incoming = base(["/r1"], [ev(0, "y", 3), ev(0, "z", 2)], 7)
    const merged = mergeRecords(saved, incoming, new Set())
    assert.deepStrictEqual(merged.roots, ["/r1", "/r2"])
    const byPath = Object.fromEntries(merged.evidence.map((e) => [`${merged.roots[e.root]}/${e.path}`, e.at]))
    assert.deepStrictEqual(byPath, { "/r2/x": 5, "/r1/y": 3, "/r1/z": 9 })
    assert.deepStrictEqual([merged.createdAt, merged.lastUsedAt], [1, 7])
    // a key this process dropped (its file changed) is not revived from the saved record
    const dropped = mergeRecords(saved, base(["/r1"], [ev(0, "y", 3)], 7), new Set(["0:z"]))
    assert.deepStrictEqual(dropped.evidence.map((e) => e.path).sort(), ["x", "y"])
  })
})
