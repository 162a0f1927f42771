/**
 * Effect logs in tests: recorded, not printed. A suite that drives a path which logs a warning on
 * purpose (a server that cannot start, a budget in warn mode) provides `recordLogs().layer` and
 * asserts on the lines, so a passing run prints nothing and the warning is still checked. Failures
 * are not hidden: vitest reports a failing test's error, and its assertion shows the lines.
 */
import { Cause, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as Logger from "effect/Logger"

export interface RecordedLogs {
  /** `LEVEL message` per log call, in order. */
  readonly lines: ReadonlyArray<string>
  /** Replaces the loggers of everything it is provided to (fibers forked from there inherit it). */
  readonly layer: Layer.Layer<never>
}

const render = (message: unknown): string =>
  (Array.isArray(message) ? message : [message]).map((part) => (typeof part === "string" ? part : String(part))).join(" ")

export const recordLogs = (): RecordedLogs => {
  const lines: Array<string> = []
  const recorder = Logger.make((options) => {
    const cause = options.cause.reasons.length > 0 ? ` ${Cause.pretty(options.cause)}` : ""
    lines.push(`${options.logLevel.toUpperCase()} ${render(options.message)}${cause}`)
  })
  return { lines, layer: Logger.layer([recorder]) }
}

/**
 * A test clock for `it.effect` tests that wait on real work (processes, big files): the code under
 * test arms timeouts on the test clock, which never fire there, and the clock's "not advancing" hint
 * would print after 1 s of real work. With this clock the hint comes only when the test hangs past
 * the suite's 30 s timeout, where it helps.
 */
export const realWorkTestClock = TestClock.layer({ warningDelay: "30 seconds" })
