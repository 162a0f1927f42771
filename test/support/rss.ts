import { Effect } from "effect"

const MIB = 1024 * 1024

/**
 * Runs `body` while sampling this process's RSS every `everyMs`; returns its value and the peak
 * growth over the RSS at the start (after a GC, when the test runs with --expose-gc).
 */
export const withRssPeak = <A, E, R>(body: Effect.Effect<A, E, R>, everyMs = 50) =>
  Effect.gen(function*() {
    globalThis.gc?.()
    const baseline = process.memoryUsage().rss
    let peak = baseline
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss)
    }, everyMs)
    const value = yield* body.pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
    peak = Math.max(peak, process.memoryUsage().rss)
    return { value, growthMiB: (peak - baseline) / MIB, baselineMiB: baseline / MIB, peakMiB: peak / MIB }
  })
