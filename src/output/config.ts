/**
 * Every threshold of the output room in one object, its defaults, and the environment variables
 * that override them. See `docs/output-budgets.md` for what happens at each edge.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  DEFAULT_BATCH_BUDGET,
  DEFAULT_MAX_OUTPUT_FILE_BYTES,
  DEFAULT_MAX_SESSION_OUTPUT_BYTES,
  DEFAULT_MAX_TOOL_CONCURRENCY,
  DEFAULT_PERSIST_HEADROOM,
  DEFAULT_PREVIEW_CHARS,
  DEFAULT_TRUNCATE_CHARS,
  DEFAULT_TRUNCATE_LINES,
  GATE_EXEMPT_TOOLS
} from "./constants.js"
import { InvalidOutputLimit } from "./errors.js"
import { isAlreadyTruncated } from "./truncate.js"

/** All output thresholds; `Infinity` means unlimited / disabled. @category models */
export interface OutputLimits {
  /** Per-call character threshold. */
  readonly truncateChars: number
  /** Per-call line limit. */
  readonly truncateLines: number
  /** Character budget for all text of one batch. */
  readonly batchBudget: number
  /** Extra chars above `truncateChars` before the persistence gate replaces a result by a stub. */
  readonly persistHeadroom: number
  /** Preview size of the persisted-output stub. */
  readonly previewChars: number
  /** Largest persisted file, in bytes. */
  readonly maxOutputFileBytes: number
  /** Largest total persisted per session, in bytes. */
  readonly maxSessionOutputBytes: number
  /** Most tool calls running at once in a parallel batch. */
  readonly maxToolConcurrency: number
}

/** The reference defaults of every threshold. @category constants */
export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  truncateChars: DEFAULT_TRUNCATE_CHARS,
  truncateLines: DEFAULT_TRUNCATE_LINES,
  batchBudget: DEFAULT_BATCH_BUDGET,
  persistHeadroom: DEFAULT_PERSIST_HEADROOM,
  previewChars: DEFAULT_PREVIEW_CHARS,
  maxOutputFileBytes: DEFAULT_MAX_OUTPUT_FILE_BYTES,
  maxSessionOutputBytes: DEFAULT_MAX_SESSION_OUTPUT_BYTES,
  maxToolConcurrency: DEFAULT_MAX_TOOL_CONCURRENCY
}

/** How a variable's integer is read: ≤0 unlimited, ≥0, or ≥1. */
type Kind = "limit" | "nonNegative" | "positive"

/** The environment variable of each overridable threshold (`previewChars` has none). @category constants */
export const OUTPUT_LIMIT_ENV_VARS = {
  truncateChars: "TOOLWRIGHT_TRUNCATE_CHARS",
  truncateLines: "TOOLWRIGHT_TRUNCATE_LINES",
  batchBudget: "TOOLWRIGHT_BATCH_BUDGET",
  persistHeadroom: "TOOLWRIGHT_PERSIST_HEADROOM",
  maxOutputFileBytes: "TOOLWRIGHT_MAX_OUTPUT_FILE_BYTES",
  maxSessionOutputBytes: "TOOLWRIGHT_MAX_SESSION_OUTPUT_BYTES",
  maxToolConcurrency: "TOOLWRIGHT_MAX_TOOL_CONCURRENCY"
} as const

const KINDS: Record<keyof typeof OUTPUT_LIMIT_ENV_VARS, Kind> = {
  truncateChars: "limit",
  truncateLines: "limit",
  batchBudget: "limit",
  persistHeadroom: "nonNegative",
  maxOutputFileBytes: "positive",
  maxSessionOutputBytes: "positive",
  maxToolConcurrency: "positive"
}

const EXPECTED: Record<Kind, string> = {
  limit: "an integer (0 or less means unlimited)",
  nonNegative: "an integer of 0 or more",
  positive: "an integer of 1 or more"
}

const parseOne = (variable: string, kind: Kind, raw: string): Result.Result<number, InvalidOutputLimit> => {
  const text = raw.trim()
  const n = /^[+-]?\d+$/.test(text) ? Number(text) : NaN
  const valid = Number.isSafeInteger(n) && (kind === "limit" || n >= (kind === "positive" ? 1 : 0))
  if (!valid) {
    return Result.fail(
      new InvalidOutputLimit({
        variable,
        value: raw,
        message: `${variable} must be ${EXPECTED[kind]}, got ${JSON.stringify(raw)}.`
      })
    )
  }
  return Result.succeed(kind === "limit" && n <= 0 ? Infinity : n)
}

/**
 * Reads the overrides from an environment record (unset or blank variables keep the default);
 * the first invalid variable fails with {@link InvalidOutputLimit} naming it.
 *
 * @category constructors
 */
export const parseOutputLimits = (
  env: Readonly<Record<string, string | undefined>>,
  defaults: OutputLimits = DEFAULT_OUTPUT_LIMITS
): Result.Result<OutputLimits, InvalidOutputLimit> => {
  const limits: { -readonly [K in keyof OutputLimits]: number } = { ...defaults }
  for (const key of Object.keys(OUTPUT_LIMIT_ENV_VARS) as Array<keyof typeof OUTPUT_LIMIT_ENV_VARS>) {
    const variable = OUTPUT_LIMIT_ENV_VARS[key]
    const raw = env[variable]
    if (raw === undefined || raw.trim() === "") continue
    const parsed = parseOne(variable, KINDS[key], raw)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    limits[key] = parsed.success
  }
  return Result.succeed(limits)
}

/** {@link parseOutputLimits} as an Effect, reading `process.env` unless given a record. @category constructors */
export const loadOutputLimits = (
  env?: Readonly<Record<string, string | undefined>>
): Effect.Effect<OutputLimits, InvalidOutputLimit> =>
  Effect.suspend(() => Effect.fromResult(parseOutputLimits(env ?? process.env)))

/** The limits in effect for the current fiber; defaults to {@link DEFAULT_OUTPUT_LIMITS}. @category references */
export const CurrentOutputLimits = Context.Reference<OutputLimits>("toolwright/output/CurrentOutputLimits", {
  defaultValue: () => DEFAULT_OUTPUT_LIMITS
})

/** Length above which the persistence gate fires: `truncateChars + persistHeadroom` (28 000). @category limits */
export const persistGateChars = (limits: OutputLimits): number => limits.truncateChars + limits.persistHeadroom

/**
 * True when the persistence gate (§10.4 step 2) must replace this result by a stub: the tool is
 * not exempt, the text is over {@link persistGateChars} and it is not already truncated.
 *
 * @category limits
 */
export const exceedsPersistGate = (toolName: string, text: string, limits: OutputLimits): boolean =>
  !GATE_EXEMPT_TOOLS.has(toolName) && text.length > persistGateChars(limits) && !isAlreadyTruncated(text)
