/**
 * Resolve once: the policy, the approval prompt, the hooks and the touched paths all see the
 * locations a tool resolved itself, so no spelling of a path gets another decision than the file
 * it names, and a tool that reports no locations has its path params resolved once, fail closed.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Layer, Ref } from "effect"
import { Approver, makeRecordingApprover } from "../../src/run/approver.js"
import { ToolHooks } from "../../src/run/hooks.js"
import type { PermissionRule } from "../../src/run/policy.js"
import { Scheduler } from "../../src/run/scheduler.js"
import type { Invocation } from "../../src/tool/tool.js"
import { testSession } from "../support/session.js"
import { touchTool } from "../support/tools.js"

const call = (name: string, args: unknown, callId = name) => ({ callId, name, args })

const SECRET = "secret file.txt"

/** A session with the built-in tools, a root holding the secret file and a link to it. */
const world = (options: { readonly rules: ReadonlyArray<PermissionRule>; readonly mode?: "default" | "auto-edit" }) =>
  Effect.gen(function*() {
    const recording = yield* makeRecordingApprover([], { _tag: "cancel", reason: "test declines" })
    const seen = yield* Ref.make<ReadonlyArray<ReadonlyArray<string>>>([])
    const hooks = ToolHooks.layer({
      beforeCall: (invocation: Invocation) => Effect.as(Ref.update(seen, (all) => [...all, invocation.locations]), { _tag: "Continue" as const })
    })
    const s = testSession([touchTool], {
      builtins: true,
      mode: options.mode ?? "default",
      rules: options.rules,
      hooks,
      approver: Layer.succeed(Approver, recording.approver)
    })
    fs.writeFileSync(path.join(s.root, SECRET), "top secret\n")
    fs.symlinkSync(SECRET, path.join(s.root, "alias.txt"))
    return { ...s, requests: recording.requests, hookLocations: Ref.get(seen) }
  })

const codeOf = (result: { readonly _tag: string; readonly code?: string }) => (result._tag === "Failure" ? result.code : result._tag)

describe("resolve once: the policy decides on what will be touched", () => {
  it.effect("deny edit(secret file.txt) holds for the escaped spelling, ./, a..b and a symlink (auto-edit)", () =>
    Effect.gen(function*() {
      const w = yield* world({ rules: [{ decision: "deny", pattern: `edit(${SECRET})` }], mode: "auto-edit" })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        for (const spelling of [SECRET, "secret\\ file.txt", `./${SECRET}`, `sub/../${SECRET}`, path.join(w.root, SECRET), "alias.txt"]) {
          const result = yield* scheduler.runOne(call("edit", { file_path: spelling, old_string: "top", new_string: "no" }))
          assert.strictEqual(codeOf(result), "execution_denied", `spelling ${JSON.stringify(spelling)}`)
        }
        assert.strictEqual(fs.readFileSync(path.join(w.root, SECRET), "utf8"), "top secret\n")
      }).pipe(Effect.provide(w.layer))
    }))

  it.effect("ask read_file(secret file.txt) asks for the escaped spelling and the symlink too", () =>
    Effect.gen(function*() {
      const w = yield* world({ rules: [{ decision: "ask", pattern: `read_file(${SECRET})` }] })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        for (const spelling of [SECRET, "secret\\ file.txt", "alias.txt"]) {
          const result = yield* scheduler.runOne(call("read_file", { file_path: spelling }))
          assert.strictEqual(result._tag, "Cancelled", `spelling ${JSON.stringify(spelling)} was not put to the approver`)
        }
        const requests = yield* w.requests
        assert.strictEqual(requests.length, 3)
        // the prompt names the file that will be read, whatever the spelling
        for (const request of requests) assert.deepStrictEqual(request.locations, [path.join(w.root, SECRET)])
      }).pipe(Effect.provide(w.layer))
    }))

  it.effect("hooks and touched paths see the real locations, not the raw params", () =>
    Effect.gen(function*() {
      const w = yield* world({ rules: [] })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        const batch = yield* scheduler.runBatch([call("read_file", { file_path: "alias.txt" }, "1"), call("read_file", { file_path: "./secret\\ file.txt" }, "2")])
        assert.deepStrictEqual(batch.results.map((r) => r._tag), ["Success", "Success"])
        assert.deepStrictEqual(batch.touchedPaths, [path.join(w.root, SECRET)])
        assert.deepStrictEqual(yield* w.hookLocations, [[path.join(w.root, SECRET)], [path.join(w.root, SECRET)]])
      }).pipe(Effect.provide(w.layer))
    }))

  it.effect("a directory rule covers list_directory, glob and grep_search through a symlinked directory", () =>
    Effect.gen(function*() {
      const w = yield* world({
        rules: [
          { decision: "deny", pattern: "list_directory(vault)" },
          { decision: "deny", pattern: "glob(vault)" },
          { decision: "deny", pattern: "grep_search(vault)" }
        ]
      })
      fs.mkdirSync(path.join(w.root, "vault"))
      fs.writeFileSync(path.join(w.root, "vault", "key.txt"), "k\n")
      fs.symlinkSync("vault", path.join(w.root, "vlink"))
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        for (const spelling of ["vault", "vault/", "vlink", "vlink/", "./vlink"]) {
          assert.strictEqual(codeOf(yield* scheduler.runOne(call("list_directory", { path: spelling }))), "execution_denied", spelling)
          assert.strictEqual(codeOf(yield* scheduler.runOne(call("glob", { pattern: "*", path: spelling }))), "execution_denied", spelling)
          assert.strictEqual(codeOf(yield* scheduler.runOne(call("grep_search", { pattern: "k", path: spelling }))), "execution_denied", spelling)
        }
      }).pipe(Effect.provide(w.layer))
    }))
})

describe("tools that report no locations (fail closed)", () => {
  it.effect("their path params are resolved once in build: the escaped spelling is covered, an outside path fails typed", () =>
    Effect.gen(function*() {
      const w = yield* world({ rules: [{ decision: "deny", pattern: `touch_path(${SECRET})` }], mode: "auto-edit" })
      yield* Effect.gen(function*() {
        const scheduler = yield* Scheduler
        for (const spelling of [SECRET, "secret\\ file.txt", "alias.txt"]) {
          assert.strictEqual(codeOf(yield* scheduler.runOne(call("touch_path", { file_path: spelling }))), "execution_denied", spelling)
        }
        const outside = yield* scheduler.runOne(call("touch_path", { file_path: "../elsewhere.txt" }))
        assert.strictEqual(codeOf(outside), "path_not_in_workspace")
        const fine = yield* scheduler.runOne(call("touch_path", { file_path: "other.txt" }))
        assert.strictEqual(fine._tag, "Success")
      }).pipe(Effect.provide(w.layer))
    }))
})
