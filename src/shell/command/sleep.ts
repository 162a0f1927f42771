/**
 * The blocked-sleep rule: a foreground command that *starts* with `sleep N` (N ≥ 2 s) standing
 * alone or followed by `&&`, `||`, `;` or a newline wastes the model's turn. It is refused with
 * guidance, unless a standalone sleep of at most 10 minutes carries a trailing
 * `# intentional-sleep: <reason of 8+ chars>` comment.
 *
 * @since 0.1.0
 */
import { stripShellWrapper } from "./commands.js"
import { tryParseCommandLine } from "./commandLine.js"

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

/** The text of a command line without its comments, trimmed. */
const withoutComments = (text: string): string => {
  const line = tryParseCommandLine(text)
  if (!line) return text.trim()
  let out = text
  for (const c of [...line.comments].reverse()) {
    const nl = out.indexOf("\n", c.start)
    out = out.slice(0, c.start) + (nl === -1 ? "" : out.slice(nl))
  }
  return out.trim()
}

/**
 * Detects a blocked leading sleep (the wrapper-stripped command). Returns `undefined` when the
 * command may run.
 *
 * @category predicates
 */
export const detectBlockedSleep = (command: string): BlockedSleep | undefined => {
  const source = stripShellWrapper(command).replace(/^[ \t]+/, "")
  const m = LEADING_SLEEP.exec(source)
  if (!m) return undefined
  const duration = m[1]!
  const seconds = sleepSeconds(duration)!
  if (seconds < MIN_BLOCKED_SLEEP_SECONDS) return undefined
  let rest = source.slice(m[0].length).replace(/^[ \t]+/, "")
  let comment: string | undefined
  if (rest.startsWith("#")) {
    const nl = rest.indexOf("\n")
    comment = (nl === -1 ? rest : rest.slice(0, nl)).slice(1)
    rest = nl === -1 ? "" : rest.slice(nl)
  }
  let follow: string | undefined
  if (rest === "" || rest.trim() === "") follow = undefined
  else if (rest.startsWith("&&") || rest.startsWith("||")) follow = rest.slice(2)
  else if (rest.startsWith(";") || rest.startsWith("\n")) follow = rest.slice(1)
  else return undefined // a pipeline, `&`, or more arguments
  if (follow !== undefined) {
    const next = withoutComments(follow)
    if (next === "") follow = undefined
    else return { description: `sleep ${duration} followed by: ${next}`, guidance: CHAINED_SLEEP_GUIDANCE }
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

/** The reference's pure detector: the description, or `null` when the command may run. @category predicates */
export const detectBlockedSleepPattern = (command: string): string | null => detectBlockedSleep(command)?.description ?? null

/** The model-facing refusal for a blocked sleep. @category constructors */
export const blockedSleepMessage = (blocked: BlockedSleep): string =>
  `Blocked: ${blocked.description}. Run blocking commands in the background with is_background: true. ` +
  `For streaming events (watching logs, polling APIs), start the command with is_background: true and read its output file. ${blocked.guidance}`
