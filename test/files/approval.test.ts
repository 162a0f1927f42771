/**
 * Edits through the real scheduler: confirmation, an approver that changes the file while it is
 * "asking", the approximate-match approval setting, and the catalog registration.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import { DEFAULT_FILE_TOOLS_SETTINGS, FileToolsConfig } from "../../src/write/config.js"
import { makeEdit } from "../../src/files/edit.js"
import { makeReadFile } from "../../src/files/readFile.js"
import { makeWriteFile } from "../../src/files/writeFile.js"
import { Approver, type ApprovalRequest } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import type { CallResult } from "../../src/tool/outcome.js"
import type { ConfirmationOutcome } from "../../src/tool/permission.js"
import { llmText } from "../../src/tool/result.js"
import { pinMtime, tempDir } from "./helpers.js"

const session = (root: string, state: string, confirm: (r: ApprovalRequest) => Effect.Effect<ConfirmationOutcome>, options: Partial<SessionLayer.SessionOptions> = {}) =>
  SessionLayer.layer({ roots: [root], stateDir: state, ...options }).pipe(Layer.provide(Approver.layerCallback(confirm)))

const run = (name: string, args: unknown) =>
  Scheduler.use((s) => s.runOne({ callId: name, name, args }))

const codeOf = (r: CallResult) => (r._tag === "Failure" ? r.code : r._tag)

describe("edit through the scheduler: confirmation and concurrent writers", () => {
  it.live("the built-in catalog serves the four file tools", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      fs.writeFileSync(path.join(root, "a.txt"), "hello\n")
      const result = yield* run("read_file", { file_path: "a.txt" }).pipe(
        Effect.provide(session(root, state, () => Effect.succeed({ _tag: "proceed_once" })))
      )
      assert.strictEqual(result._tag, "Success")
      if (result._tag === "Success") assert.strictEqual(llmText(result.llmContent), "hello")
    }))

  it.live("an approver that rewrites the file while asking (same size, same mtime) loses no bytes", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "race.txt")
      fs.writeFileSync(file, "alpha beta\n")
      pinMtime(file)
      const asked: Array<ApprovalRequest> = []
      const confirm = (request: ApprovalRequest) =>
        Effect.sync(() => {
          asked.push(request)
          fs.writeFileSync(file, "ALPHA beta\n") // another writer, equal size…
          pinMtime(file) // …within the same mtime: the fingerprint cannot see it
          return { _tag: "proceed_once" } as const
        })
      const layer = session(root, state, confirm)
      const outcome = yield* Effect.gen(function*() {
        yield* run("read_file", { file_path: file })
        return yield* run("edit", { file_path: file, old_string: "beta", new_string: "gamma" })
      }).pipe(Effect.provide(layer))
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0]!.details.type, "edit")
      assert.strictEqual(codeOf(outcome), "file_changed_since_read")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "ALPHA beta\n")
      assert.deepStrictEqual(fs.readdirSync(root), ["race.txt"], "no temp file left behind")
    }))

  it.live("an approver that appends to the file while asking: refused, the append kept", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "grow.txt")
      fs.writeFileSync(file, "one\n")
      const confirm = () =>
        Effect.sync(() => {
          fs.appendFileSync(file, "two\n")
          return { _tag: "proceed_once" } as const
        })
      const outcome = yield* Effect.gen(function*() {
        yield* run("read_file", { file_path: file })
        return yield* run("write_file", { file_path: file, content: "replaced\n" })
      }).pipe(Effect.provide(session(root, state, confirm)))
      assert.strictEqual(codeOf(outcome), "file_changed_since_read")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "one\ntwo\n")
    }))

  it.live("a declined edit changes nothing; an approved one writes", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "ok.txt")
      fs.writeFileSync(file, "x = 1\n")
      const answers: Array<ConfirmationOutcome> = [{ _tag: "cancel", reason: "not now" }, { _tag: "proceed_once" }]
      const outcomes = yield* Effect.gen(function*() {
        yield* run("read_file", { file_path: file })
        const first = yield* run("edit", { file_path: file, old_string: "x = 1", new_string: "x = 2" })
        const second = yield* run("edit", { file_path: file, old_string: "x = 1", new_string: "x = 2" })
        return [first, second]
      }).pipe(Effect.provide(session(root, state, () => Effect.succeed(answers.shift()!))))
      assert.strictEqual(outcomes[0]!._tag, "Cancelled")
      assert.strictEqual(outcomes[1]!._tag, "Success")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "x = 2\n")
    }))
})

describe("approximate matches can require approval (TOOLWRIGHT_FUZZY_EDIT_APPROVAL=ask)", () => {
  const strict = { ...DEFAULT_FILE_TOOLS_SETTINGS, fuzzyEditApproval: "ask" as const }
  const configured = <A, E, R>(make: Effect.Effect<A, E, R>) => Effect.provideService(make, FileToolsConfig, strict)
  const factories = [
    { name: "read_file", load: configured(makeReadFile) },
    { name: "edit", load: configured(makeEdit) },
    { name: "write_file", load: configured(makeWriteFile) }
  ]

  it.live("without a person (auto-edit mode) an approximate edit is refused with the real text; an exact one runs", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "f.ts")
      fs.writeFileSync(file, "const s = \u201cq\u201d;\nconst t = 1;\n")
      const layer = session(root, state, () => Effect.die("must not ask"), { builtins: false, tools: factories, mode: "auto-edit" })
      const [fuzzy, exact] = yield* Effect.gen(function*() {
        yield* run("read_file", { file_path: file })
        const fuzzy = yield* run("edit", { file_path: file, old_string: "const s = \"q\";", new_string: "const s = \"r\";" })
        const exact = yield* run("edit", { file_path: file, old_string: "const t = 1;", new_string: "const t = 2;" })
        return [fuzzy, exact] as const
      }).pipe(Effect.provide(layer))
      assert.strictEqual(codeOf(fuzzy), "execution_denied")
      if (fuzzy._tag === "Failure") assert.include(fuzzy.message, "const s = \u201cq\u201d;")
      assert.strictEqual(codeOf(exact), "Success")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "const s = \u201cq\u201d;\nconst t = 2;\n")
    }))

  it.live("with a person asked (default mode), the approximate edit is shown and then applied", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "g.ts")
      fs.writeFileSync(file, "const s = \u201cq\u201d;\n")
      const titles: Array<string> = []
      const confirm = (r: ApprovalRequest) =>
        Effect.sync(() => {
          titles.push(r.details.title)
          return { _tag: "proceed_once" } as const
        })
      const outcome = yield* Effect.gen(function*() {
        yield* run("read_file", { file_path: file })
        return yield* run("edit", { file_path: file, old_string: "const s = \"q\";", new_string: "const s = \"r\";" })
      }).pipe(Effect.provide(session(root, state, confirm, { builtins: false, tools: factories })))
      assert.strictEqual(codeOf(outcome), "Success")
      assert.deepStrictEqual(titles, ["Confirm Edit: g.ts (approximate match: unicode_normalized, lines 1-1)"])
      assert.strictEqual(fs.readFileSync(file, "utf8"), "const s = \"r\";\n")
    }))
})
