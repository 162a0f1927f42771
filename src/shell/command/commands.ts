/**
 * What a parsed command line does, as far as validation and exit codes care: its roots, whether
 * it substitutes commands, a single `bash -c` wrapper stripped, a trailing `&`, and which exit
 * codes are failures. Each takes the line parsed once ({@link ParsedLine}).
 *
 * @since 0.1.0
 */
import { expandLine, type ParsedLine } from "./parsedLine.js"
import { programName, SHELLS } from "./wrappers.js"

/** What a substitution may look like in a line that cannot be scanned. @category constants */
export const RAW_SUBSTITUTION = /\$\(|`|<\(|>\(/

/**
 * The line without a single `bash -c` / `sh -c` / `zsh -c` wrapper: `bash -c 'sleep 5'` →
 * `sleep 5`. Anything else is the line itself.
 *
 * @category parsing
 */
export const withoutShellWrapper = (parsed: ParsedLine): ParsedLine => {
  if (parsed.commands.length !== 1) return parsed
  const only = parsed.commands[0]!
  if (only.kind !== "nested" || only.wrappers.some((w) => !SHELLS.has(w))) return parsed
  return only.nested
}

/**
 * True when the line substitutes commands anywhere: `$(…)`, backticks, `<(…)`, `>(…)` (and
 * `$((…))`), including inside `bash -c` wrappers and here-documents. Single-quoted text does not
 * count. A line that cannot be scanned counts when it contains any of those sequences.
 *
 * @category predicates
 */
export const substitutesCommands = (parsed: ParsedLine): boolean => {
  const expanded = expandLine(parsed)
  if (expanded.unparsable) return RAW_SUBSTITUTION.test(parsed.source)
  return expanded.lines.some((l) => l.line.substitutions.length > 0)
}

/**
 * The unique root program names of every simple command (wrappers peeled): `git status && npm
 * test` → `["git", "npm"]`.
 *
 * @category parsing
 */
export const commandRoots = (parsed: ParsedLine): Array<string> => {
  const roots = expandLine(parsed).invocations.map((inv) => programName(inv.argv[0]!.text)).filter((r) => r.length > 0)
  return Array.from(new Set(roots))
}

/**
 * True when the line ends with a top-level bare `&` (not `&&`, not `\&`, not quoted), after
 * stripping a `bash -c` wrapper.
 *
 * @category predicates
 */
export const endsWithBareAmpersandLine = (parsed: ParsedLine): boolean => {
  const line = withoutShellWrapper(parsed).line
  return line !== undefined && line.operators[line.operators.length - 1] === "&" && line.commands[line.commands.length - 1]?.next === "&"
}

/** The line without one trailing bare `&` (defensive; `&&` and `\&` are kept). @category parsing */
export const withoutTrailingAmpersand = (parsed: ParsedLine): string =>
  endsWithBareAmpersandLine(parsed) ? parsed.source.replace(/\s*&\s*$/, "") : parsed.source

/** Programs whose exit code 1 means "no match" or "false", not failure. @category constants */
export const EXIT_ONE_IS_NOT_ERROR: ReadonlySet<string> = new Set(["grep", "rg", "diff", "test", "[", "[["])

const PIPELINE_OPS = new Set(["|", "|&"])

/**
 * Whether an exit code is a failure: non-zero, except 1 from `grep`, `rg`, `diff`, `test`, `[`,
 * `[[` when that program decides the exit status (the only command, or the last stage of a plain
 * pipeline). Any other compound form makes exit 1 an error.
 *
 * @category predicates
 */
export const exitCodeIsError = (parsed: ParsedLine, exitCode: number | null | undefined): boolean => {
  if (exitCode === null || exitCode === undefined || exitCode === 0) return false
  if (exitCode !== 1) return true
  const { line } = parsed
  if (!line || line.commands.length === 0) return true
  if (!line.operators.every((op) => PIPELINE_OPS.has(op))) return true
  const last = parsed.commands[parsed.commands.length - 1]!
  if (last.kind !== "invocation") return true
  return !EXIT_ONE_IS_NOT_ERROR.has(programName(last.invocation.argv[0]!.text))
}

/** The part of an unparsable command line: no rule but `*` matches it. @category constants */
export const UNPARSABLE_SUBJECT = "\u0000unparsable command line"
