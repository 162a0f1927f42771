/**
 * The launch gate as the tools see it, through a real session whose gate the test holds: a grep
 * or shell call queued longer than its budget still gets all of it once admitted (and says how
 * long it waited), and a launch queued past the gate's bound fails as `launch_queue_timeout`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { type LaunchGate, makeLaunchGate } from "../../src/process/launchGate.js"
import { Approver } from "../../src/run/approver.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { makeGrepSearchTool } from "../../src/search/index.js"
import { makeRunShellCommand } from "../../src/shell/command/runShellCommand.js"
import type { CallResult } from "../../src/tool/outcome.js"

const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  )

const session = (root: string, stateDir: string, gate: LaunchGate.Service, grepTimeoutMs: number) =>
  SessionLayer.layer({
    roots: [root],
    stateDir,
    mode: "yolo",
    builtins: false,
    launchGate: gate,
    tools: [
      { name: "grep_search", load: makeGrepSearchTool({ backend: "ripgrep", timeoutMs: grepTimeoutMs }) },
      { name: "run_shell_command", load: makeRunShellCommand }
    ]
  }).pipe(Layer.provide(Approver.layerFixed({ _tag: "proceed_once" })))

let counter = 0
const call = (name: string, args: unknown) => Scheduler.use((s) => s.runOne({ callId: `g${++counter}`, name, args }))

/** Holds one slot of `gate` until the returned effect is run. */
const holdSlot = (gate: LaunchGate.Service) =>
  Effect.gen(function*() {
    const release = yield* Deferred.make<void>()
    const admitted = yield* Deferred.make<void>()
    yield* Effect.forkChild(gate.launch("holder", () => Deferred.succeed(admitted, undefined).pipe(Effect.andThen(Deferred.await(release)))))
    yield* Deferred.await(admitted)
    return Deferred.succeed(release, undefined)
  })

const queuedUntil = (gate: LaunchGate.Service, n: number) =>
  Effect.gen(function*() {
    while ((yield* gate.stats).queued < n) yield* Effect.sleep("5 millis")
  })

const dataOf = (result: CallResult): Record<string, unknown> => {
  if (result._tag !== "Success") throw new Error(`expected success, got ${JSON.stringify(result)}`)
  return result.data as Record<string, unknown>
}

describe("the launch gate through the tools", () => {
  it.live("grep_search and run_shell_command queued longer than their budgets still get all of it once admitted", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-gate-ws-")
      const state = yield* tempDir("tw-gate-state-")
      fs.writeFileSync(path.join(root, "a.txt"), "needle\n")
      const gate = makeLaunchGate({ concurrency: 1 })
      yield* Effect.gen(function*() {
        const release = yield* holdSlot(gate)
        const grep = yield* Effect.forkChild(call("grep_search", { pattern: "needle" }))
        const shell = yield* Effect.forkChild(call("run_shell_command", { command: "echo hi", timeout: 1500 }))
        // rg (grep) and the sandbox check or the command (shell) wait behind the held slot
        yield* queuedUntil(gate, 2)
        yield* Effect.sleep("2500 millis")
        yield* release
        const grepData = dataOf(yield* Fiber.join(grep))
        const shellData = dataOf(yield* Fiber.join(shell))
        assert.strictEqual(grepData["totalMatches"], 1)
        assert.isAtLeast(grepData["launchWaitMs"] as number, 2000)
        assert.strictEqual(shellData["exitCode"], 0)
        assert.isAbove(shellData["launchWaitMs"] as number, 0)
        const stats = yield* gate.stats
        assert.strictEqual(stats.queueTimeouts, 0)
        assert.isAtLeast(stats.waited, 2)
      }).pipe(Effect.provide(session(root, state, gate, 1000)))
    }), 30_000)

  it.live("a call whose process waits past the gate's bound fails with launch_queue_timeout; nothing ran", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-gate-ws-")
      const state = yield* tempDir("tw-gate-state-")
      fs.writeFileSync(path.join(root, "a.txt"), "needle\n")
      const gate = makeLaunchGate({ concurrency: 1, queueTimeoutMs: 150 })
      yield* Effect.gen(function*() {
        const release = yield* holdSlot(gate)
        const grep = yield* call("grep_search", { pattern: "needle" })
        const shell = yield* call("run_shell_command", { command: `touch ${path.join(root, "ran")}` })
        yield* release
        for (const result of [grep, shell]) {
          assert.strictEqual(result._tag, "Failure")
          if (result._tag !== "Failure") continue
          assert.strictEqual(result.code, "launch_queue_timeout")
          assert.match(result.message, /waited 0 s for a free launch slot and was given up; nothing was run\. .*Retry in a moment/)
        }
        assert.isFalse(fs.existsSync(path.join(root, "ran")))
        // the slot is free again: the next call runs
        assert.strictEqual(dataOf(yield* call("grep_search", { pattern: "needle" }))["totalMatches"], 1)
      }).pipe(Effect.provide(session(root, state, gate, 60_000)))
    }), 30_000)
})
