import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import {
  CurrentOutputLimits,
  DEFAULT_OUTPUT_LIMITS,
  exceedsPersistGate,
  loadOutputLimits,
  OUTPUT_LIMIT_ENV_VARS,
  parseOutputLimits,
  persistGateChars
} from "../../src/output/index.js"

const failureOf = (env: Record<string, string>) => {
  const result = parseOutputLimits(env)
  assert.isTrue(Result.isFailure(result))
  if (!Result.isFailure(result)) throw new Error("expected a failure")
  return result.failure
}

describe("output limits", () => {
  it("defaults match the reference (§10.1)", () => {
    assert.deepStrictEqual(DEFAULT_OUTPUT_LIMITS, {
      truncateChars: 25_000,
      truncateLines: 1_000,
      batchBudget: 200_000,
      persistHeadroom: 3_000,
      previewChars: 2_000,
      maxOutputFileBytes: 50 * 1024 * 1024,
      maxSessionOutputBytes: 500 * 1024 * 1024,
      maxToolConcurrency: 10
    })
    assert.deepStrictEqual(parseOutputLimits({}), Result.succeed(DEFAULT_OUTPUT_LIMITS))
  })

  it("reads every override from its variable", () => {
    const result = parseOutputLimits({
      TOOLWRIGHT_TRUNCATE_CHARS: "30000",
      TOOLWRIGHT_TRUNCATE_LINES: " 500 ",
      TOOLWRIGHT_BATCH_BUDGET: "+100000",
      TOOLWRIGHT_PERSIST_HEADROOM: "0",
      TOOLWRIGHT_MAX_OUTPUT_FILE_BYTES: "1048576",
      TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES: "10485760",
      TOOLWRIGHT_MAX_TOOL_CONCURRENCY: "4",
      UNRELATED: "x"
    })
    assert.deepStrictEqual(
      result,
      Result.succeed({
        truncateChars: 30_000,
        truncateLines: 500,
        batchBudget: 100_000,
        persistHeadroom: 0,
        previewChars: 2_000,
        maxOutputFileBytes: 1_048_576,
        maxSessionOutputBytes: 10_485_760,
        maxToolConcurrency: 4
      })
    )
  })

  it("≤0 means unlimited for chars and lines and disables the batch budget", () => {
    const result = parseOutputLimits({
      TOOLWRIGHT_TRUNCATE_CHARS: "0",
      TOOLWRIGHT_TRUNCATE_LINES: "-1",
      TOOLWRIGHT_BATCH_BUDGET: "0"
    })
    assert.isTrue(Result.isSuccess(result))
    if (Result.isSuccess(result)) {
      assert.strictEqual(result.success.truncateChars, Infinity)
      assert.strictEqual(result.success.truncateLines, Infinity)
      assert.strictEqual(result.success.batchBudget, Infinity)
      assert.strictEqual(persistGateChars(result.success), Infinity)
    }
  })

  it("unset or blank variables keep the default", () => {
    assert.deepStrictEqual(parseOutputLimits({ TOOLWRIGHT_TRUNCATE_CHARS: "   " }), Result.succeed(DEFAULT_OUTPUT_LIMITS))
  })

  it("an invalid value fails with an error naming the variable", () => {
    const notNumber = failureOf({ TOOLWRIGHT_TRUNCATE_CHARS: "lots" })
    assert.strictEqual(notNumber._tag, "InvalidOutputLimit")
    assert.strictEqual(notNumber.variable, "TOOLWRIGHT_TRUNCATE_CHARS")
    assert.strictEqual(
      notNumber.message,
      'TOOLWRIGHT_TRUNCATE_CHARS must be an integer (0 or less means unlimited), got "lots".'
    )
    assert.strictEqual(
      failureOf({ TOOLWRIGHT_MAX_TOOL_CONCURRENCY: "0" }).message,
      'TOOLWRIGHT_MAX_TOOL_CONCURRENCY must be an integer of 1 or more, got "0".'
    )
    assert.strictEqual(
      failureOf({ TOOLWRIGHT_PERSIST_HEADROOM: "-5" }).message,
      'TOOLWRIGHT_PERSIST_HEADROOM must be an integer of 0 or more, got "-5".'
    )
    for (const bad of ["1.5", "1e6", "0x10", "50MiB", "99999999999999999999"]) {
      assert.strictEqual(failureOf({ TOOLWRIGHT_MAX_OUTPUT_FILE_BYTES: bad }).variable, "TOOLWRIGHT_MAX_OUTPUT_FILE_BYTES")
    }
    assert.strictEqual(failureOf({ TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES: "-1" }).variable, "TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES")
    assert.strictEqual(Object.keys(OUTPUT_LIMIT_ENV_VARS).length, 7)
  })

  it.effect("loadOutputLimits fails in the error channel; CurrentOutputLimits defaults", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(loadOutputLimits({ TOOLWRIGHT_BATCH_BUDGET: "big" }))
      assert.strictEqual(error.variable, "TOOLWRIGHT_BATCH_BUDGET")
      const limits = yield* loadOutputLimits({ TOOLWRIGHT_TRUNCATE_LINES: "7" })
      assert.strictEqual(limits.truncateLines, 7)
      assert.deepStrictEqual(yield* CurrentOutputLimits, DEFAULT_OUTPUT_LIMITS)
    }))

  it("the persistence gate fires above threshold + headroom (28 000), except for exempt tools", () => {
    assert.strictEqual(persistGateChars(DEFAULT_OUTPUT_LIMITS), 28_000)
    const atGate = "x".repeat(28_000)
    const overGate = "x".repeat(28_001)
    assert.isFalse(exceedsPersistGate("run_shell_command", atGate, DEFAULT_OUTPUT_LIMITS))
    assert.isTrue(exceedsPersistGate("run_shell_command", overGate, DEFAULT_OUTPUT_LIMITS))
    for (const exempt of ["read_file", "read_mcp_resource", "enter_plan_mode"]) {
      assert.isFalse(exceedsPersistGate(exempt, overGate, DEFAULT_OUTPUT_LIMITS))
    }
    assert.isFalse(exceedsPersistGate("grep_search", "<persisted-output>" + overGate, DEFAULT_OUTPUT_LIMITS))
  })
})
