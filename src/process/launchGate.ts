/**
 * The launch gate: at most K process launches at once in a process, first come first served.
 *
 * Starting a process blocks the JS thread: on Linux, libuv's `uv_spawn` (behind `child_process`)
 * and node-pty's `forkpty` both `fork()` the whole Node process on the loop thread and wait for
 * the child's `exec`, and a fork costs more the larger the parent is (its page tables are copied).
 * With a thousand calls launching at once the loop stalls for minutes, and every call's time
 * budget runs out while it waits. The gate lets K launches through, then gives the loop a turn
 * (a slot is freed on the next `setImmediate` after its spawn returned) before the next K: the
 * loop never stalls for more than K forks, and a call's budget starts once it is admitted
 * ({@link withLaunchBudget}).
 *
 * A waiting launch can be cancelled (interrupting the fiber takes it out of the queue; it never
 * spawns), and waits at most `queueTimeoutMs`: past that it fails with `launch_queue_timeout`.
 *
 * One gate serves a whole process: the HTTP door builds one for all its sessions, a backend
 * passes one to every `SessionLayer.layer` (`launchGate`), a lone session builds its own. Code
 * that starts processes finds it with `Effect.serviceOption(LaunchGate)`: without one, it
 * launches at once (ungated).
 *
 * Being the one thing every session of a process shares, the gate also keeps that process's
 * one-time checks ({@link ProcessChecks}): the sandbox's probe runs once per process instead of
 * once per session (a hundred sessions were a hundred extra launches).
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { LaunchQueueTimeout } from "../tool/index.js"

/** Default queue bound: a launch that waits longer than this for a slot fails (`launch_queue_timeout`). @category constants */
export const LAUNCH_QUEUE_TIMEOUT_MS = 300_000

/** Default number of launches admitted at once: one per core, at least 2. @category constants */
export const defaultLaunchConcurrency = (): number => Math.max(2, os.availableParallelism())

/** Options of {@link makeLaunchGate}. @category models */
export interface LaunchGateOptions {
  /** Launches admitted at once (default `TOOLWRIGHT_LAUNCH_CONCURRENCY`, else one per core, at least 2). */
  readonly concurrency?: number | undefined
  /** Longest wait for a slot, ms (default `TOOLWRIGHT_LAUNCH_QUEUE_TIMEOUT_MS`, else {@link LAUNCH_QUEUE_TIMEOUT_MS}). */
  readonly queueTimeoutMs?: number | undefined
}

/** What the gate has done so far (for benchmarks and status lines). @category models */
export interface LaunchGateStats {
  readonly concurrency: number
  /** Launches admitted. */
  readonly admitted: number
  /** Of those, how many had to wait for a slot. */
  readonly waited: number
  /** Time spent waiting, all launches together (ms). */
  readonly waitedMs: number
  /** The longest single wait (ms). */
  readonly maxWaitMs: number
  /** Launches waiting now. */
  readonly queued: number
  /** Launches given up after `queueTimeoutMs`. */
  readonly queueTimeouts: number
  /** Launches cancelled while they waited (they never started). */
  readonly cancelled: number
}

/** A launch let through: how long it waited, and how to free its slot as soon as it has spawned. @category models */
export interface Admitted {
  readonly waitedMs: number
  /** Frees the slot on the next loop turn; call it right after the synchronous spawn returned (idempotent). */
  readonly spawned: () => void
}

/**
 * Checks run once for a whole process (every session sharing the gate), by key: the first caller
 * runs the check, callers meanwhile wait for it, later ones get its outcome for as long as
 * `timeToLive` says (a failure is usually kept briefly or not at all, so that a fix is noticed).
 *
 * @category models
 */
export interface ProcessChecks {
  readonly once: <A, E>(
    key: string,
    check: Effect.Effect<A, E>,
    timeToLive: (exit: Exit.Exit<A, E>) => Duration.Duration
  ) => Effect.Effect<A, E>
}

/** A new, empty set of process-wide checks (their outcomes live in it: no state outside). @category constructors */
export const makeProcessChecks = (): ProcessChecks => {
  const cached = new Map<string, Effect.Effect<unknown, unknown>>()
  const once = <A, E>(key: string, check: Effect.Effect<A, E>, timeToLive: (exit: Exit.Exit<A, E>) => Duration.Duration) =>
    Effect.suspend(() => {
      const known = cached.get(key) as Effect.Effect<A, E> | undefined
      if (known !== undefined) return known
      return Effect.flatMap(Effect.cachedWithTTL(check, timeToLive), (fresh) => {
        // another fiber may have made one meanwhile: there is one per key
        const first = (cached.get(key) as Effect.Effect<A, E> | undefined) ?? fresh
        if (first === fresh) cached.set(key, fresh)
        return first
      })
    })
  return { once }
}

/** Types of the {@link LaunchGate} service. @category models */
export declare namespace LaunchGate {
  /** The service shape. */
  export interface Service {
    readonly concurrency: number
    readonly queueTimeoutMs: number
    /**
     * Waits for a slot (FIFO), then runs `start`. The slot is freed on the loop turn after `start`
     * ends, or after `admitted.spawned()` when `start` goes on past its spawn (a whole process run).
     * `what` names the launch in the queue-timeout message ("the command", "rg").
     */
    readonly launch: <A, E, R>(
      what: string,
      start: (admitted: Admitted) => Effect.Effect<A, E, R>
    ) => Effect.Effect<A, E | LaunchQueueTimeout, R>
    readonly stats: Effect.Effect<LaunchGateStats>
    /** The process's one-time checks (see {@link ProcessChecks}). */
    readonly checks: ProcessChecks
  }
}

/**
 * Time one call spent waiting for launch slots, so that its budget can leave it out (see
 * {@link withLaunchBudget}). Provided per call; the gate reports to it.
 * @category models
 */
export interface LaunchWaitMeter {
  /** Launches of the call waiting now. */
  waiting: number
  /** When `waiting` last went from 0 to 1. */
  since: number
  /** Waiting time already over (ms), overlapping waits counted once. */
  waitedMs: number
}

/** The current call's {@link LaunchWaitMeter}, when its budget leaves queueing out. @category services */
export class CurrentLaunchWaitMeter extends Context.Service<CurrentLaunchWaitMeter, LaunchWaitMeter>()(
  "toolwright/process/CurrentLaunchWaitMeter"
) {}

/** The process's launch gate. @category services */
export class LaunchGate extends Context.Service<LaunchGate, LaunchGate.Service>()("toolwright/process/LaunchGate") {
  /** A gate of its own (options, else the environment, else the defaults). */
  static readonly layer = (options: LaunchGateOptions = {}): Layer.Layer<LaunchGate> =>
    Layer.effect(LaunchGate, Effect.sync(() => makeLaunchGate(options)))
}

const positiveInt = (text: string | undefined): number | undefined => {
  if (text === undefined || text.trim() === "") return undefined
  const n = Number(text)
  return Number.isInteger(n) && n > 0 ? n : undefined
}

/** The gate's settings: options, else `TOOLWRIGHT_LAUNCH_CONCURRENCY` / `TOOLWRIGHT_LAUNCH_QUEUE_TIMEOUT_MS`, else the defaults. @category constructors */
export const launchGateSettings = (
  options: LaunchGateOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env
): { readonly concurrency: number; readonly queueTimeoutMs: number } => ({
  concurrency: options.concurrency ?? positiveInt(env["TOOLWRIGHT_LAUNCH_CONCURRENCY"]) ?? defaultLaunchConcurrency(),
  queueTimeoutMs: options.queueTimeoutMs ?? positiveInt(env["TOOLWRIGHT_LAUNCH_QUEUE_TIMEOUT_MS"]) ?? LAUNCH_QUEUE_TIMEOUT_MS
})

interface Waiter {
  granted: boolean
  readonly grant: () => void
}

const meterEnter = (meter: Option.Option<LaunchWaitMeter>, now: number) => {
  if (Option.isNone(meter)) return
  if (meter.value.waiting++ === 0) meter.value.since = now
}

const meterLeave = (meter: Option.Option<LaunchWaitMeter>, now: number) => {
  if (Option.isNone(meter)) return
  if (--meter.value.waiting === 0) meter.value.waitedMs += now - meter.value.since
}

/**
 * A new gate. Its queue and counters live in the returned service (no state outside it).
 *
 * @category constructors
 */
export const makeLaunchGate = (options: LaunchGateOptions = {}): LaunchGate.Service => {
  const { concurrency, queueTimeoutMs } = launchGateSettings(options)
  let active = 0
  const queue: Array<Waiter> = []
  const counts = { admitted: 0, waited: 0, waitedMs: 0, maxWaitMs: 0, queueTimeouts: 0, cancelled: 0 }

  const pump = () => {
    while (active < concurrency && queue.length > 0) {
      const next = queue.shift()!
      active++
      next.granted = true
      next.grant()
    }
  }
  const release = () => {
    active--
    pump()
  }
  /** A slot freed on the next loop turn, once: the loop polls its I/O before the next launches. */
  const releaser = () => {
    let done = false
    return () => {
      if (done) return
      done = true
      setImmediate(release)
    }
  }

  const timedOut = (what: string, waitedMs: number) =>
    new LaunchQueueTimeout({
      message: `Starting ${what} waited ${Math.round(waitedMs / 1000)} s for a free launch slot and was given up; nothing was run. ` +
        `This process is starting too many programs at once (${queue.length} more waiting, ${concurrency} at a time). ` +
        `Retry in a moment, and run fewer commands or searches in parallel.`,
      display: `Gave up waiting ${Math.round(waitedMs / 1000)} s to start ${what} (too many launches at once).`
    })

  /** Waits for a slot; the result is the time waited. */
  const acquire = (what: string, meter: Option.Option<LaunchWaitMeter>) =>
    Effect.callback<number, LaunchQueueTimeout>((resume) => {
      if (active < concurrency && queue.length === 0) {
        active++
        counts.admitted++
        resume(Effect.succeed(0))
        return
      }
      const since = Date.now()
      meterEnter(meter, since)
      const waiter: Waiter = {
        granted: false,
        grant: () => {
          clearTimeout(timer)
          const now = Date.now()
          meterLeave(meter, now)
          const waited = now - since
          counts.admitted++
          counts.waited++
          counts.waitedMs += waited
          counts.maxWaitMs = Math.max(counts.maxWaitMs, waited)
          resume(Effect.succeed(waited))
        }
      }
      queue.push(waiter)
      const timer = setTimeout(() => {
        const at = queue.indexOf(waiter)
        if (at < 0) return
        queue.splice(at, 1)
        const now = Date.now()
        meterLeave(meter, now)
        counts.queueTimeouts++
        resume(Effect.fail(timedOut(what, now - since)))
      }, queueTimeoutMs)
      // Cancelled while waiting: out of the queue (or, granted in the same instant, the slot goes back).
      return Effect.sync(() => {
        clearTimeout(timer)
        if (waiter.granted) return release()
        const at = queue.indexOf(waiter)
        if (at < 0) return
        queue.splice(at, 1)
        meterLeave(meter, Date.now())
        counts.cancelled++
      })
    })

  const launch = <A, E, R>(what: string, start: (admitted: Admitted) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.serviceOption(CurrentLaunchWaitMeter), (meter) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(restore(acquire(what, meter)), (waitedMs) => {
          const spawned = releaser()
          return restore(start({ waitedMs, spawned })).pipe(Effect.ensuring(Effect.sync(spawned)))
        })
      ))

  return LaunchGate.of({
    concurrency,
    queueTimeoutMs,
    launch,
    stats: Effect.sync(() => ({ concurrency, ...counts, queued: queue.length })),
    checks: makeProcessChecks()
  })
}

/**
 * Runs `start` through the gate of the current context, or at once when there is none.
 *
 * @category combinators
 */
export const gatedLaunch = <A, E, R>(
  what: string,
  start: (admitted: Admitted) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | LaunchQueueTimeout, R> =>
  Effect.flatMap(Effect.serviceOption(LaunchGate), (gate) =>
    Option.isSome(gate) ? gate.value.launch(what, start) : start({ waitedMs: 0, spawned: () => undefined }))

/**
 * A wall-clock budget that leaves out the time the call's launches spent waiting for a slot:
 * past `budgetMs` of its own time `self` is interrupted and the call fails with `onTimeout()`.
 * (A call whose processes were queued behind a thousand others still gets its whole budget.)
 *
 * @category combinators
 */
export const withLaunchBudget = <A, E, R, E2>(
  self: Effect.Effect<A, E, R>,
  budgetMs: number,
  onTimeout: () => E2
): Effect.Effect<A, E | E2, R> =>
  Effect.suspend(() => {
    const meter: LaunchWaitMeter = { waiting: 0, since: 0, waitedMs: 0 }
    const started = Date.now()
    const excluded = (now: number) => meter.waitedMs + (meter.waiting > 0 ? now - meter.since : 0)
    const deadline: Effect.Effect<never, E2> = Effect.gen(function*() {
      while (true) {
        const now = Date.now()
        const remaining = budgetMs - (now - started - excluded(now))
        if (remaining <= 0) return yield* Effect.fail(onTimeout())
        yield* Effect.sleep(Duration.millis(remaining))
      }
    })
    return Effect.raceFirst(Effect.provideService(self, CurrentLaunchWaitMeter, meter), deadline)
  })

/** The launch-wait time recorded by the current call's budget so far (0 outside one). @category accessors */
export const launchWaitSoFar: Effect.Effect<number> = Effect.map(
  Effect.serviceOption(CurrentLaunchWaitMeter),
  (meter) => Option.match(meter, { onNone: () => 0, onSome: (m) => m.waitedMs + (m.waiting > 0 ? Date.now() - m.since : 0) })
)

/**
 * Runs `self` and returns, with its value, how long its launches waited for slots (ms; overlapping
 * waits counted once).
 *
 * @category combinators
 */
export const withLaunchWaits = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, number], E, R> =>
  Effect.suspend(() => {
    const meter: LaunchWaitMeter = { waiting: 0, since: 0, waitedMs: 0 }
    return Effect.map(Effect.provideService(self, CurrentLaunchWaitMeter, meter), (a) => [a, meter.waitedMs] as const)
  })
