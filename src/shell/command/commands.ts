/**
 * What a command line does, as far as permissions, validation and exit codes care: its simple
 * commands with prefixes and wrappers peeled off (`FOO=1`, `env`, `sudo`, `time`, `nohup`,
 * `timeout`, `xargs`, `bash -c '…'`, `cmd /c …`), their roots, and whether it substitutes commands.
 *
 * @since 0.1.0
 */
import { type CommandLine, type SimpleCommand, tryParseCommandLine } from "./commandLine.js"
import type { Word } from "./syntax.js"

/** A simple command with its prefixes and wrappers removed. @category models */
export interface Invocation {
  /** The root word first (e.g. `git`), then its arguments. */
  readonly argv: ReadonlyArray<Word>
  /** The wrappers peeled off, outermost first (`sudo`, `env`, `xargs`, …). */
  readonly wrappers: ReadonlyArray<string>
  /** The simple command it came from. */
  readonly command: SimpleCommand
}

/** A shell wrapper whose argument is another command line (`bash -c '…'`). @category models */
export interface Nested {
  readonly source: string
  readonly wrappers: ReadonlyArray<string>
}

const SHELLS = new Set(["bash", "sh", "zsh", "dash", "ksh"])
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(?:\[[^\]]*\])?\+?=/

/** The program name of a word: its basename (`/` or `\`), without `.exe`, `.cmd` or `.bat`. @category parsing */
export const programName = (word: string): string => {
  const base = word.split(/[\\/]/).pop() ?? word
  return base.replace(/\.(exe|cmd|bat)$/i, "")
}

const isAssignment = (w: Word): boolean => ASSIGNMENT.test(w.raw)

/** Skips options of a wrapper; `withValue` lists the options that take the next word as their value. */
const skipOptions = (argv: ReadonlyArray<Word>, from: number, withValue: ReadonlySet<string>): number => {
  let i = from
  while (i < argv.length) {
    const t = argv[i]!.text
    if (t === "--") return i + 1
    if (!t.startsWith("-") || t === "-") return i
    i += withValue.has(t) ? 2 : 1
  }
  return i
}

const ENV_VALUE = new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"])
const SUDO_VALUE = new Set(["-u", "--user", "-g", "--group", "-C", "-D", "--chdir", "-h", "--host", "-p", "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"])
const NICE_VALUE = new Set(["-n", "--adjustment"])
const TIMEOUT_VALUE = new Set(["-s", "--signal", "-k", "--kill-after"])
const STDBUF_VALUE = new Set(["-i", "-o", "-e"])
const XARGS_VALUE = new Set(["-I", "-d", "-n", "-P", "-L", "-s", "-a", "-E", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--max-chars", "--arg-file", "--eof"])

/**
 * Peels prefixes and wrappers off one simple command. A shell wrapper (`bash -c '…'`,
 * `cmd /c …`, `powershell -Command …`) yields the nested command line instead.
 *
 * @category parsing
 */
export const unwrap = (command: SimpleCommand): Invocation | Nested | undefined => {
  let argv = command.words.slice()
  const wrappers: Array<string> = []
  for (let guard = 0; guard < 16; guard++) {
    let i = 0
    while (i < argv.length && isAssignment(argv[i]!)) i++
    argv = argv.slice(i)
    const first = argv[0]
    if (!first) return undefined
    const name = programName(first.text)
    let rest: number | undefined
    switch (name) {
      case "env": {
        let j = skipOptions(argv, 1, ENV_VALUE)
        while (j < argv.length && isAssignment(argv[j]!)) j++
        rest = j
        break
      }
      case "sudo":
      case "doas":
        rest = skipOptions(argv, 1, SUDO_VALUE)
        break
      case "command":
      case "builtin":
      case "exec":
      case "nohup":
      case "time":
        rest = skipOptions(argv, 1, new Set())
        break
      case "nice":
        rest = skipOptions(argv, 1, NICE_VALUE)
        break
      case "stdbuf":
        rest = skipOptions(argv, 1, STDBUF_VALUE)
        break
      case "timeout": {
        const j = skipOptions(argv, 1, TIMEOUT_VALUE)
        rest = j + 1 // the duration
        break
      }
      case "xargs":
        rest = skipOptions(argv, 1, XARGS_VALUE)
        break
      case "cmd": {
        const c = argv.findIndex((w, k) => k > 0 && /^\/[ck]$/i.test(w.text))
        if (c > 0) return { source: argv.slice(c + 1).map((w) => w.text).join(" "), wrappers: [...wrappers, name] }
        break
      }
      case "powershell":
      case "pwsh": {
        const c = argv.findIndex((w, k) => k > 0 && /^-(c|command)$/i.test(w.text))
        if (c > 0) return { source: argv.slice(c + 1).map((w) => w.text).join(" "), wrappers: [...wrappers, name] }
        break
      }
      default:
        if (SHELLS.has(name)) {
          // bash [-flags] -c 'inner' [$0 args…]; combined flags like -lc count.
          for (let k = 1; k < argv.length; k++) {
            const t = argv[k]!.text
            if (!t.startsWith("-") || t === "-" || t === "--") break
            if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(t)) {
              const inner = argv[k + 1]
              return inner ? { source: inner.text, wrappers: [...wrappers, name] } : undefined
            }
            if (t === "-o" || t === "+o" || t === "-O" || t === "+O") k++
          }
        }
    }
    if (rest === undefined) return { argv, wrappers, command }
    wrappers.push(name)
    argv = argv.slice(rest)
    if (argv.length === 0) return { argv: [first], wrappers: wrappers.slice(0, -1), command }
  }
  return { argv, wrappers, command }
}

/** Every invocation of a command line, shell wrappers expanded recursively (depth-limited). @category parsing */
export interface Expanded {
  readonly invocations: ReadonlyArray<Invocation>
  /** Parsed lines, outermost first (the line itself, then nested `bash -c` lines). */
  readonly lines: ReadonlyArray<CommandLine>
  /** Some line (or nested line) could not be scanned. */
  readonly unparsable: boolean
}

/**
 * Parses a command line and every nested `bash -c` / `cmd /c` line in it.
 *
 * @category parsing
 */
export const expand = (source: string, depth = 0): Expanded => {
  const line = tryParseCommandLine(source)
  if (!line) return { invocations: [], lines: [], unparsable: true }
  const invocations: Array<Invocation> = []
  const lines: Array<CommandLine> = [line]
  let unparsable = false
  for (const command of line.commands) {
    const u = unwrap(command)
    if (!u) continue
    if ("source" in u) {
      if (depth >= 4) {
        unparsable = true
        continue
      }
      const inner = expand(u.source, depth + 1)
      invocations.push(...inner.invocations)
      lines.push(...inner.lines)
      unparsable ||= inner.unparsable
    } else invocations.push(u)
  }
  return { invocations, lines, unparsable }
}

/**
 * The whole line without a single `bash -c` / `sh -c` / `zsh -c` wrapper: `bash -c 'sleep 5'` →
 * `sleep 5`. Anything else is returned unchanged.
 *
 * @category parsing
 */
export const stripShellWrapper = (source: string): string => {
  const line = tryParseCommandLine(source)
  if (!line || line.commands.length !== 1) return source
  const u = unwrap(line.commands[0]!)
  if (!u || !("source" in u) || u.wrappers.some((w) => !SHELLS.has(w))) return source
  return u.source
}

const RAW_SUBSTITUTION = /\$\(|`|<\(|>\(/

/**
 * True when the command substitutes commands anywhere: `$(…)`, backticks, `<(…)`, `>(…)` (and
 * `$((…))`), including inside `bash -c` wrappers and here-documents. Single-quoted text does not
 * count. A line that cannot be scanned counts when it contains any of those sequences.
 *
 * @category predicates
 */
export const hasCommandSubstitution = (source: string): boolean => {
  const expanded = expand(source)
  if (expanded.unparsable) return RAW_SUBSTITUTION.test(source)
  return expanded.lines.some((line) => line.substitutions.length > 0)
}

/**
 * The unique root program names of every simple command (wrappers peeled): `git status && npm
 * test` → `["git", "npm"]`.
 *
 * @category parsing
 */
export const getCommandRoots = (source: string): Array<string> => {
  const expanded = expand(source)
  const roots = expanded.invocations.map((inv) => programName(inv.argv[0]!.text)).filter((r) => r.length > 0)
  return Array.from(new Set(roots))
}

/**
 * True when the command ends with a top-level bare `&` (not `&&`, not `\&`, not quoted), after
 * stripping a `bash -c` wrapper.
 *
 * @category predicates
 */
export const endsWithBareAmpersand = (source: string): boolean => {
  const line = tryParseCommandLine(stripShellWrapper(source))
  return line !== undefined && line.operators[line.operators.length - 1] === "&" && line.commands[line.commands.length - 1]?.next === "&"
}

/** Removes one trailing bare `&` (defensive; `&&` and `\&` are kept). @category parsing */
export const stripTrailingAmpersand = (source: string): string =>
  endsWithBareAmpersand(source) ? source.replace(/\s*&\s*$/, "") : source

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
export const isShellExitError = (source: string, exitCode: number | null | undefined): boolean => {
  if (exitCode === null || exitCode === undefined || exitCode === 0) return false
  if (exitCode !== 1) return true
  const line = tryParseCommandLine(source)
  if (!line || line.commands.length === 0) return true
  if (!line.operators.every((op) => PIPELINE_OPS.has(op))) return true
  const last = line.commands[line.commands.length - 1]!
  const inv = unwrap(last)
  if (!inv || "source" in inv) return true
  return !EXIT_ONE_IS_NOT_ERROR.has(programName(inv.argv[0]!.text))
}

/** The part of an unparsable command line: no rule but `*` matches it. @category constants */
export const UNPARSABLE_SUBJECT = "\u0000unparsable command line"
