/**
 * The launch gate with real processes: K at a time, first come first served, a launch cancelled
 * while it waits never spawns, a wait past the queue bound is `launch_queue_timeout`, and a
 * budget leaves the wait out. Ordering and counting assertions only (no speed).
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Deferred, Duration, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { runProcess } from "../../src/search/searchProcess.js"
import {
  gatedLaunch,
  LaunchGate,
  launchGateSettings,
  launchWaitSoFar,
  makeLaunchGate,
  makeProcessChecks,
  withLaunchBudget
} from "../../src/process/launchGate.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "tw-gate-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Holds one slot of `gate` until the returned deferred is completed. */
const holdSlot = (gate: LaunchGate.Service) =>
  Effect.gen(function*() {
    const release = yield* Deferred.make<void>()
    const admitted = yield* Deferred.make<void>()
    const holder = yield* Effect.forkChild(gate.launch("holder", () => Deferred.succeed(admitted, undefined).pipe(Effect.andThen(Deferred.await(release)))))
    yield* Deferred.await(admitted)
    return { release: Deferred.succeed(release, undefined), holder }
  })

/** Waits until `gate` has `n` launches queued. */
const queuedUntil = (gate: LaunchGate.Service, n: number) =>
  Effect.gen(function*() {
    while ((yield* gate.stats).queued < n) yield* Effect.sleep("5 millis")
  })

describe("launch gate", () => {
  it("reads its settings from options, then the environment, then the defaults", () => {
    assert.deepStrictEqual(launchGateSettings({ concurrency: 3, queueTimeoutMs: 10 }, {}), { concurrency: 3, queueTimeoutMs: 10 })
    assert.deepStrictEqual(
      launchGateSettings({}, { TOOLWRIGHT_LAUNCH_CONCURRENCY: "5", TOOLWRIGHT_LAUNCH_QUEUE_TIMEOUT_MS: "1234" }),
      { concurrency: 5, queueTimeoutMs: 1234 }
    )
    const defaults = launchGateSettings({}, { TOOLWRIGHT_LAUNCH_CONCURRENCY: "0", TOOLWRIGHT_LAUNCH_QUEUE_TIMEOUT_MS: "x" })
    assert.isAtLeast(defaults.concurrency, 2)
    assert.strictEqual(defaults.queueTimeoutMs, 300_000)
  })

  it.live("K=1: the second of two `sleep` launches is admitted only after the first has spawned", () =>
    Effect.gen(function*() {
      const gate = makeLaunchGate({ concurrency: 1 })
      const events: Array<string> = []
      const sleeper = (name: string) =>
        gate.launch(name, ({ spawned }) =>
          Effect.callback<number | null>((resume) => {
            events.push(`${name} admitted`)
            const child = spawn("sleep", ["0.2"], { stdio: "ignore" })
            events.push(`${name} spawned ${child.pid !== undefined}`)
            spawned()
            child.on("close", (code) => resume(Effect.succeed(code)))
          }))
      const [a, b] = yield* Effect.all([sleeper("a"), sleeper("b")], { concurrency: "unbounded" })
      assert.deepStrictEqual([a, b], [0, 0])
      assert.deepStrictEqual(events, ["a admitted", "a spawned true", "b admitted", "b spawned true"])
      const stats = yield* gate.stats
      assert.strictEqual(stats.admitted, 2)
      assert.strictEqual(stats.waited, 1)
      assert.strictEqual(stats.queued, 0)
    }))

  it.live("first come, first served: queued launches are admitted in the order they arrived", () =>
    Effect.gen(function*() {
      const gate = makeLaunchGate({ concurrency: 1 })
      const { release } = yield* holdSlot(gate)
      const order: Array<number> = []
      const fibers: Array<Fiber.Fiber<unknown, unknown>> = []
      for (const n of [1, 2, 3, 4]) {
        fibers.push(yield* Effect.forkChild(gate.launch(`echo ${n}`, () => runProcess("echo", [String(n)], { cwd: os.tmpdir(), onLine: () => order.push(n) }))))
        yield* queuedUntil(gate, n)
      }
      yield* release
      for (const f of fibers) yield* Fiber.join(f)
      assert.deepStrictEqual(order, [1, 2, 3, 4])
      assert.strictEqual((yield* gate.stats).waited, 4)
    }))

  it.live("a launch cancelled while it waits never spawns, and its place is not lost", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const marker = path.join(dir, "spawned")
      const gate = makeLaunchGate({ concurrency: 1 })
      const { release } = yield* holdSlot(gate)
      const queued = yield* Effect.forkChild(
        runProcess("touch", [marker], { cwd: dir }).pipe(Effect.provideService(LaunchGate, gate))
      )
      yield* queuedUntil(gate, 1)
      yield* Fiber.interrupt(queued)
      yield* release
      // the slot goes to the next launch: nothing leaked
      const after = yield* runProcess("true", [], { cwd: dir }).pipe(Effect.provideService(LaunchGate, gate))
      assert.strictEqual(after.exitCode, 0)
      assert.isFalse(fs.existsSync(marker))
      const stats = yield* gate.stats
      assert.strictEqual(stats.cancelled, 1)
      assert.strictEqual(stats.queued, 0)
    }))

  it.live("a launch that waits past the queue bound fails with launch_queue_timeout and runs nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const marker = path.join(dir, "spawned")
      const gate = makeLaunchGate({ concurrency: 1, queueTimeoutMs: 100 })
      const { release } = yield* holdSlot(gate)
      const exit = yield* Effect.exit(runProcess("touch", [marker], { cwd: dir }).pipe(Effect.provideService(LaunchGate, gate)))
      yield* release
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) ? Exit.findErrorOption(exit) : undefined
      assert.strictEqual(error?._tag === "Some" ? (error.value as { code?: string }).code : undefined, "launch_queue_timeout")
      assert.match(error?._tag === "Some" ? error.value.message : "", /^Starting touch waited 0 s for a free launch slot and was given up; nothing was run\./)
      assert.isFalse(fs.existsSync(marker))
      assert.strictEqual((yield* gate.stats).queueTimeouts, 1)
    }))

  it.live("without a gate in the context a launch starts at once", () =>
    Effect.gen(function*() {
      const exit = yield* gatedLaunch("echo", () => runProcess("echo", ["x"], { cwd: os.tmpdir() }))
      assert.strictEqual(exit.exitCode, 0)
    }))

  it.live("a budget leaves out the time the call's launches waited: queued past its budget, the call still gets all of it", () =>
    Effect.gen(function*() {
      const gate = makeLaunchGate({ concurrency: 1 })
      const { release } = yield* holdSlot(gate)
      const lines: Array<string> = []
      const call = runProcess("echo", ["done"], { cwd: os.tmpdir(), onLine: (l) => lines.push(l.toString()) }).pipe(
        Effect.andThen(launchWaitSoFar),
        (self) => withLaunchBudget(self, 300, () => "timed out" as const),
        Effect.provideService(LaunchGate, gate)
      )
      const fiber = yield* Effect.forkChild(Effect.result(call))
      yield* queuedUntil(gate, 1)
      // held three budgets long: a budget that counted the wait would have run out
      yield* Effect.sleep("900 millis")
      yield* release
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result._tag, "Success")
      assert.isAtLeast(result._tag === "Success" ? result.success : 0, 800)
      assert.deepStrictEqual(lines, ["done"])
      // and a call that overruns its own budget still fails
      const slow = yield* Effect.result(withLaunchBudget(Effect.sleep("2 seconds"), 100, () => "timed out" as const))
      assert.deepStrictEqual(slow._tag === "Failure" ? slow.failure : undefined, "timed out")
    }), 15_000)
})

describe("the process's one-time checks", () => {
  it.effect("a check runs once per key for concurrent and later callers; a failure is kept as long as its time to live says", () =>
    Effect.gen(function*() {
      const checks = makeProcessChecks()
      let runs = 0
      const ok = Effect.sync(() => ++runs).pipe(Effect.delay("10 millis"))
      const forever = () => Duration.infinity
      const fibers = yield* Effect.forEach([1, 2, 3], () => Effect.forkChild(checks.once("a", ok, forever)))
      yield* TestClock.adjust("10 millis")
      assert.deepStrictEqual(yield* Effect.forEach(fibers, Fiber.join), [1, 1, 1])
      assert.strictEqual(yield* checks.once("a", ok, forever), 1)
      // another key is another check
      yield* Effect.forkChild(checks.once("b", ok, forever)).pipe(Effect.andThen((f) => TestClock.adjust("10 millis").pipe(Effect.andThen(Fiber.join(f)))))
      assert.strictEqual(runs, 2)
      // a failure kept for a while, then tried again
      let failures = 0
      const failing = Effect.suspend(() => Effect.fail(`failed ${++failures}`))
      const briefly = (exit: Exit.Exit<unknown, unknown>) => (Exit.isFailure(exit) ? Duration.seconds(30) : Duration.infinity)
      assert.strictEqual(yield* Effect.flip(checks.once("c", failing, briefly)), "failed 1")
      assert.strictEqual(yield* Effect.flip(checks.once("c", failing, briefly)), "failed 1")
      yield* TestClock.adjust("31 seconds")
      assert.strictEqual(yield* Effect.flip(checks.once("c", failing, briefly)), "failed 2")
    }))
})
