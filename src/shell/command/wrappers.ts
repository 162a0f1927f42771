/**
 * Prefixes and wrappers peeled off a simple command (`FOO=1`, `env`, `sudo`, `time`, `nohup`,
 * `timeout`, `xargs`, `bash -c '…'`, `cmd /c …`): what runs, or the nested command line a shell
 * wrapper runs.
 *
 * @since 0.1.0
 */
import type { SimpleCommand } from "./commandLine.js"
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

/** Shells whose `-c` argument is a command line. @category constants */
export const SHELLS: ReadonlySet<string> = new Set(["bash", "sh", "zsh", "dash", "ksh"])
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
