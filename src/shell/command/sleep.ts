/**
 * The blocked-sleep rule: a foreground command that *starts* with `sleep N` (N ≥ 2 s) standing
 * alone or followed by `&&`, `||`, `;` or a newline wastes the model's turn. It is refused with
 * guidance, unless a standalone sleep of at most 10 minutes carries a trailing
 * `# intentional-sleep: <reason of 8+ chars>` comment.
 *
 * @since 0.1.0
 */
import { withoutShellWrapper } from "./commands.js"
import type { ParsedLine } from "./parsedLine.js"

/** Shortest sleep that is blocked, in seconds. @category constants */
export const MIN_BLOCKED_SLEEP_SECONDS = 2

/** Longest standalone sleep an intentional-sleep comment may exempt, in seconds. @category constants */
export const MAX_INTENTIONAL_SLEEP_SECONDS = 600

/** Shortest accepted intentional-sleep reason. @category constants */
export const MIN_INTENTIONAL_SLEEP_REASON = 8

/** A blocked sleep: the description and the guidance that goes with it. @category models */
export interface BlockedSleep {
  /** `standalone sleep 5` or `sleep 5 followed by: curl …`. */
  readonly description: string
  readonly guidance: string
}

/** Guidance for a standalone sleep. @category constants */
export const STANDALONE_SLEEP_GUIDANCE =
  "If you genuinely need a standalone delay (rate limiting, deliberate pacing), add a trailing comment like `# intentional-sleep: wait for MCP rate limit reset` (up to 10 minutes)."

/** Guidance for a sleep followed by another command. @category constants */
export const CHAINED_SLEEP_GUIDANCE =
  "Split into two calls: first `sleep N # intentional-sleep: <reason>` (standalone), then the follow-up command."

/** Guidance when the intentional-sleep reason is too short. @category constants */
export const SHORT_REASON_GUIDANCE =
  "The intentional-sleep comment was recognized, but the reason is too short; explain why the delay is needed after `intentional-sleep:`."

/** Guidance when an intentional sleep is over 10 minutes. @category constants */
export const TOO_LONG_GUIDANCE =
  "The intentional-sleep comment was recognized, but foreground sleeps over 10 minutes are not allowed; use is_background: true or read the output of a background command for longer waits."

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400 }
const LEADING_SLEEP = /^sleep[ \t]+((?:\d+(?:\.\d*)?|\.\d+)(ms|s|m|h|d)?)(?=$|[ \t\n;&|#])/

/** Seconds of a `sleep` duration like `5`, `2.5`, `2000ms`, `3m`. @category parsing */
export const sleepSeconds = (value: string): number | undefined => {
  const m = /^(\d+(?:\.\d*)?|\.\d+)(ms|s|m|h|d)?$/.exec(value)
  return m ? Number(m[1]) * UNIT_SECONDS[m[2] ?? "s"]! : undefined
}

/** The text of `parsed` from `from` on, without the comments the parse found there, trimmed. */
const restWithoutComments = (parsed: ParsedLine, from: number): string => {
  let out = parsed.source.slice(from)
  if (parsed.line === undefined) return out.trim()
  const comments = parsed.line.comments.filter((c) => c.start >= from)
  for (const c of [...comments].reverse()) {
    const start = c.start - from
    const nl = out.indexOf("\n", start)
    out = out.slice(0, start) + (nl === -1 ? "" : out.slice(nl))
  }
  return out.trim()
}

/**
 * Detects a blocked leading sleep (the wrapper-stripped line). Returns `undefined` when the
 * command may run.
 *
 * @category predicates
 */
export const lineBlockedSleep = (parsed: ParsedLine): BlockedSleep | undefined => {
  const target = withoutShellWrapper(parsed)
  const indent = /^[ \t]*/.exec(target.source)![0].length
  const source = target.source.slice(indent)
  const m = LEADING_SLEEP.exec(source)
  if (!m) return undefined
  const duration = m[1]!
  const seconds = sleepSeconds(duration)!
  if (seconds < MIN_BLOCKED_SLEEP_SECONDS) return undefined
  let restAt = m[0].length
  restAt += /^[ \t]*/.exec(source.slice(restAt))![0].length
  let comment: string | undefined
  if (source.startsWith("#", restAt)) {
    const nl = source.indexOf("\n", restAt)
    comment = source.slice(restAt + 1, nl === -1 ? source.length : nl)
    restAt = nl === -1 ? source.length : nl
  }
  const rest = source.slice(restAt)
  let followAt: number | undefined
  if (rest.trim() === "") followAt = undefined
  else if (rest.startsWith("&&") || rest.startsWith("||")) followAt = restAt + 2
  else if (rest.startsWith(";") || rest.startsWith("\n")) followAt = restAt + 1
  else return undefined // a pipeline, `&`, or more arguments
  if (followAt !== undefined) {
    const next = restWithoutComments(target, indent + followAt)
    if (next !== "") return { description: `sleep ${duration} followed by: ${next}`, guidance: CHAINED_SLEEP_GUIDANCE }
  }
  const description = `standalone sleep ${duration}`
  const intentional = comment === undefined ? undefined : /^\s*intentional-sleep:(.*)$/.exec(comment)
  if (intentional) {
    const reason = intentional[1]!.trim()
    if (reason.length < MIN_INTENTIONAL_SLEEP_REASON) return { description, guidance: SHORT_REASON_GUIDANCE }
    if (seconds > MAX_INTENTIONAL_SLEEP_SECONDS) return { description, guidance: TOO_LONG_GUIDANCE }
    return undefined
  }
  return { description, guidance: STANDALONE_SLEEP_GUIDANCE }
}

/** The model-facing refusal for a blocked sleep. @category constructors */
export const blockedSleepMessage = (blocked: BlockedSleep): string =>
  `Blocked: ${blocked.description}. Run blocking commands in the background with is_background: true. ` +
  `For streaming events (watching logs, polling APIs), start the command with is_background: true and read its output file. ${blocked.guidance}`
