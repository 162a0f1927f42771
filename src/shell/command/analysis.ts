/**
 * `CommandAnalysis`: everything `run_shell_command` needs to know about a command line, built
 * once per call from one parse ({@link parseLine}) — its roots, substitutions, read-only proof,
 * self-kill, blocked sleep, the simulated `sed -i`, the trailing `&`, and the exit-code rule.
 * The permission view (subjects, paths it reads and writes) needs the command's directory, so it
 * is taken from the same parse once that is known ({@link accessOf}).
 *
 * The string-taking functions at the end are the room's public (and tests') entry points: each
 * parses and reads one field.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import { lineAccess, lineReadOnly, lineRootsNeedingApproval, type ShellAnalysis, type ShellContext } from "./access.js"
import { commandRoots, endsWithBareAmpersandLine, exitCodeIsError, substitutesCommands, withoutShellWrapper, withoutTrailingAmpersand } from "./commands.js"
import { type ParsedLine, parseLine, type ScanProbe } from "./parsedLine.js"
import { recogniseSedEdit, type SedEditInfo } from "./sed.js"
import { lineKillsSelf } from "./selfKill.js"
import { type BlockedSleep, lineBlockedSleep } from "./sleep.js"

/** What one parse of a command line tells the shell tool. @category models */
export interface CommandAnalysis {
  /** The parsed line (and its nested lines). */
  readonly parsed: ParsedLine
  /** Root program names, wrappers peeled (`git status && npm test` → `git`, `npm`). */
  readonly roots: ReadonlyArray<string>
  /** It substitutes commands somewhere (`$(…)`, backticks, `<(…)`, `>(…)`). */
  readonly substitution: boolean
  /** The parser proves every program read-only (paths not considered). */
  readonly readOnly: boolean
  /** It would terminate every node/toolwright process. */
  readonly killsSelf: boolean
  /** A leading `sleep` that is refused in the foreground. */
  readonly blockedSleep: BlockedSleep | undefined
  /** It ends with a bare `&`. */
  readonly endsWithBareAmpersand: boolean
  /** The command a background shell runs: the line without a trailing bare `&`. */
  readonly backgroundCommand: string
  /** A `sed -i` that can be simulated as an edit, or null. */
  readonly sedEdit: SedEditInfo | null
}

/**
 * Who hears of the scans of a call's command line (nobody by default). Tests provide a counter to
 * prove one call scans its line once.
 *
 * @category services
 */
export const CommandScanProbe = Context.Reference<ScanProbe | undefined>("toolwright/shell/CommandScanProbe", {
  defaultValue: () => undefined
})

/**
 * Parses a command line once and analyses it. `probe` hears of every scan (tests count them).
 *
 * @category constructors
 */
export const analyzeCommand = (source: string, probe?: ScanProbe): CommandAnalysis => {
  const parsed = parseLine(source, probe)
  return {
    parsed,
    roots: commandRoots(parsed),
    substitution: substitutesCommands(parsed),
    readOnly: lineReadOnly(parsed),
    killsSelf: lineKillsSelf(parsed),
    blockedSleep: lineBlockedSleep(parsed),
    endsWithBareAmpersand: endsWithBareAmpersandLine(parsed),
    backgroundCommand: withoutTrailingAmpersand(parsed),
    sedEdit: recogniseSedEdit(parsed)
  }
}

/**
 * The permission view of an analysed line run in `context`: rule subjects, the read-only proof
 * with redirections, the paths read and written.
 *
 * @category constructors
 */
export const accessOf = (analysis: CommandAnalysis, context: ShellContext): ShellAnalysis => lineAccess(analysis.parsed, context)

/** Whether an exit code of the analysed line is a failure (exit 1 of `grep`, `diff`, `test`… is not). @category predicates */
export const isExitError = (analysis: CommandAnalysis, exitCode: number | null | undefined): boolean => exitCodeIsError(analysis.parsed, exitCode)

// Entry points taking a string: each parses once and reads one answer.

/** The unique root program names of a command line. @category parsing */
export const getCommandRoots = (source: string): Array<string> => commandRoots(parseLine(source))
/** True when a command line substitutes commands. @category predicates */
export const hasCommandSubstitution = (source: string): boolean => substitutesCommands(parseLine(source))
/** True when the parser proves a command line read-only. @category predicates */
export const isReadOnlyCommand = (source: string): boolean => lineReadOnly(parseLine(source))
/** The roots of a command line's sub-commands not proven read-only. @category parsing */
export const rootsNeedingApproval = (source: string): Array<string> => [...lineRootsNeedingApproval(parseLine(source))]
/** True when a command line would terminate all node/toolwright processes. @category predicates */
export const detectSelfKillCommand = (source: string): boolean => lineKillsSelf(parseLine(source))
/** A blocked leading sleep, or `undefined` when the command may run. @category predicates */
export const detectBlockedSleep = (source: string): BlockedSleep | undefined => lineBlockedSleep(parseLine(source))
/** The reference's pure detector: the description, or `null` when the command may run. @category predicates */
export const detectBlockedSleepPattern = (source: string): string | null => detectBlockedSleep(source)?.description ?? null
/** True when a command line ends with a top-level bare `&`. @category predicates */
export const endsWithBareAmpersand = (source: string): boolean => endsWithBareAmpersandLine(parseLine(source))
/** A command line without one trailing bare `&`. @category parsing */
export const stripTrailingAmpersand = (source: string): string => withoutTrailingAmpersand(parseLine(source))
/** A command line without a single `bash -c` wrapper. @category parsing */
export const stripShellWrapper = (source: string): string => withoutShellWrapper(parseLine(source)).source
/** Whether an exit code of a command line is a failure. @category predicates */
export const isShellExitError = (source: string, exitCode: number | null | undefined): boolean => exitCodeIsError(parseLine(source), exitCode)
/** A simulatable in-place sed substitution, or null. @category parsing */
export const parseSedEditCommand = (source: string): SedEditInfo | null => recogniseSedEdit(parseLine(source))
/** The permission view of a command line run in `context`. @category parsing */
export const analyzeShellCommand = (source: string, context: ShellContext): ShellAnalysis => lineAccess(parseLine(source), context)
