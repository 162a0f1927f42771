/**
 * The read-only proof behind the shell tool's default `allow`: a command line is read-only when
 * it parses, substitutes no commands, opens no subshell, and every simple command in it (each
 * stage of every pipeline and list, wrappers peeled) is a known read-only program used in a
 * read-only way, with output redirected only to `/dev/null` or another descriptor. The walk over the line is
 * `access.ts`'s (one proof for the default `allow` and for `lineReadOnly`); this file
 * judges one program and its arguments.
 *
 * The list is deliberately short; see `docs/tools-shell.md`. Anything not proven is `ask`.
 *
 * @since 0.1.0
 */
import { type Invocation, programName } from "./wrappers.js"
import type { Word } from "./syntax.js"

type ArgsCheck = (args: ReadonlyArray<Word>) => boolean

const anyArg = (args: ReadonlyArray<Word>, test: (text: string) => boolean) => args.some((w) => test(w.text))
const always: ArgsCheck = () => true
const withoutOptions = (...banned: ReadonlyArray<string>): ArgsCheck => (args) =>
  !anyArg(args, (t) => banned.some((b) => t === b || (b.startsWith("--") && t.startsWith(`${b}=`)) || (!b.startsWith("--") && t.startsWith(b) && t.length > b.length && !t.startsWith("--"))))

/** The scripts of a `sed` command line: `-e`/`--expression` values, else its first operand. */
const sedScripts = (args: ReadonlyArray<Word>): Array<string> => {
  const scripts: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text
    if (t === "-e" || t === "--expression") scripts.push(args[++i]?.text ?? "")
    else if (t.startsWith("--expression=")) scripts.push(t.slice(13))
  }
  if (scripts.length === 0) {
    const first = args.find((w) => !w.text.startsWith("-"))
    if (first) scripts.push(first.text)
  }
  return scripts
}

/** `sed` scripts: no in-place flag, and no `w`/`W`/`e` commands or `w`/`e` substitution flags. */
const sedReadOnly: ArgsCheck = (args) => {
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text
    if (t === "-i" || t.startsWith("--in-place") || /^-[a-zA-Z]*i/.test(t) && !t.startsWith("--")) return false
    if (t.startsWith("--file") || (/^-[a-zA-Z]*f/.test(t) && !t.startsWith("--"))) return false // a script we cannot see
  }
  return sedScripts(args).every(sedScriptReadOnly)
}

/** What a sed script does beyond its input: writes or executes (`w`, `W`, `e`, `s///w`, `s///e`), reads other files (`r`, `R`). */
const scanSedScript = (script: string): { readonly writes: boolean; readonly reads: boolean } => {
  let reads = false
  let i = 0
  const s = script
  const skipAddress = () => {
    while (i < s.length && /[0-9,$~!+ \t]/.test(s[i]!)) i++
    if (s[i] === "/" || s[i] === "\\") {
      const delim = s[i] === "\\" ? s[++i] : "/"
      i++
      while (i < s.length && s[i] !== delim) i += s[i] === "\\" ? 2 : 1
      i++
      skipAddress()
    }
  }
  while (i < s.length) {
    skipAddress()
    const c = s[i]
    if (c === undefined) break
    if (c === "w" || c === "W" || c === "e") return { writes: true, reads }
    if (c === "s" || c === "y") {
      const delim = s[i + 1]
      if (delim === undefined) return { writes: true, reads }
      i += 2
      for (let part = 0; part < 2; part++) {
        while (i < s.length && s[i] !== delim) i += s[i] === "\\" ? 2 : 1
        i++
      }
      if (c === "s") {
        const flags = /^[^;\n}]*/.exec(s.slice(i))![0]
        if (/[we]/.test(flags)) return { writes: true, reads }
        i += flags.length
      }
    } else if ("aic".includes(c) || c === "r" || c === "R" || c === ":" || c === "b" || c === "t" || c === "T") {
      if (c === "r" || c === "R") reads = true
      // text / label / file-read commands run to the end of the line
      const nl = s.indexOf("\n", i)
      i = nl === -1 ? s.length : nl + 1
    } else i++
  }
  return { writes: false, reads }
}

/** True when a sed script neither writes files nor executes commands. @category predicates */
export const sedScriptReadOnly = (script: string): boolean => !scanSedScript(script).writes

const FIND_BANNED = ["-delete", "-exec", "-execdir", "-ok", "-okdir", "-fls", "-fprint", "-fprint0", "-fprintf"]

const GIT_BRANCH_LISTING = new Set(["-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--list", "-l", "--show-current", "--no-color", "--color", "--sort", "--format", "--column", "--no-column"])

/**
 * A table's own entry for a name the command line chose: a plain index would also find what every
 * object inherits (`constructor`, `toString`, `__proto__`), so a program named that would count as read-only.
 */
const ownEntry = <V>(table: Readonly<Record<string, V>>, key: string): V | undefined =>
  Object.hasOwn(table, key) ? table[key] : undefined

/** `git` subcommands that only read, with the options that would make them write. */
const GIT_READ_ONLY: Record<string, ArgsCheck> = {
  status: always,
  diff: withoutOptions("--output", "--ext-diff"),
  log: withoutOptions("--output", "--ext-diff"),
  show: withoutOptions("--output", "--ext-diff"),
  blame: always,
  "cat-file": always,
  grep: withoutOptions("--open-files-in-pager", "-O"),
  "ls-files": always,
  "ls-tree": always,
  "rev-parse": always,
  describe: always,
  shortlog: always,
  "merge-base": always,
  "show-ref": always,
  // listing only: no names, no -d/-D/-m/-M/-c/-C/--set-upstream…
  branch: (args) => args.every((w) => GIT_BRANCH_LISTING.has(w.text.split("=")[0]!)),
  tag: (args) => args.length === 0 || args.every((w) => ["-l", "--list", "-n"].includes(w.text)),
  remote: (args) => args.length === 0 || (args.length === 1 && (args[0]!.text === "-v" || args[0]!.text === "--verbose")) || ["show", "get-url"].includes(args[0]?.text ?? ""),
  stash: (args) => args[0]?.text === "list" || args[0]?.text === "show",
  reflog: (args) => args.length === 0 || args[0]?.text === "show"
}
const GIT_GLOBAL_VALUE = new Set(["-C", "--git-dir", "--work-tree", "--namespace"])

const gitReadOnly: ArgsCheck = (args) => {
  let i = 0
  while (i < args.length) {
    const t = args[i]!.text
    if (t === "-c" || t.startsWith("--config-env") || t.startsWith("--exec-path")) return false // can run programs
    if (GIT_GLOBAL_VALUE.has(t)) i += 2
    else if (t.startsWith("-")) i++
    else break
  }
  const sub = args[i]?.text
  const check = sub === undefined ? undefined : ownEntry(GIT_READ_ONLY, sub)
  return check !== undefined && check(args.slice(i + 1))
}

/** `awk` programs without `system()`, output redirection or pipes. */
/** awk programs that choose their input files themselves (`ARGV`, `ARGC`) or load source files. */
const AWK_PICKS_FILES = /\bARG[VC]\b|@include|@load/

/** awk options that run a program or library we cannot see (`-f prog`, gawk's `-E`, `-i`, `-l`). */
const AWK_HIDDEN_PROGRAM = /^(?:-[fEil].*|--(?:file|exec|include|load)(?:=.*)?)$/

const awkReadOnly: ArgsCheck = (args) => !anyArg(args, (t) => /system\s*\(|[>|]|\bgetline\b/.test(t)) && !anyArg(args, (t) => AWK_HIDDEN_PROGRAM.test(t))

/**
 * Programs that only read, with a check on their arguments. Documented in `docs/tools-shell.md`.
 *
 * @category constants
 */
export const READ_ONLY_PROGRAMS: Readonly<Record<string, ArgsCheck>> = {
  awk: awkReadOnly,
  basename: always,
  cat: always,
  cd: always,
  cmp: always,
  column: always,
  cut: always,
  date: withoutOptions("-s", "--set"),
  df: always,
  diff: withoutOptions("--output"),
  dirname: always,
  du: always,
  echo: always,
  false: always,
  file: withoutOptions("-C", "--compile", "-f", "--files-from"),
  find: (args) => !anyArg(args, (t) => FIND_BANNED.includes(t)),
  git: gitReadOnly,
  grep: always,
  egrep: always,
  fgrep: always,
  head: always,
  id: always,
  less: always,
  ls: always,
  md5sum: always,
  more: always,
  nl: always,
  printenv: always,
  printf: always,
  ps: always,
  pwd: always,
  readlink: always,
  realpath: always,
  rg: withoutOptions("--pre"),
  ripgrep: withoutOptions("--pre"),
  sed: sedReadOnly,
  sha1sum: always,
  sha256sum: always,
  sort: withoutOptions("-o", "--output", "--compress-program"),
  stat: always,
  tac: always,
  tail: always,
  test: always,
  tree: withoutOptions("-o"),
  true: always,
  type: always,
  uname: always,
  uniq: (args) => args.filter((w) => !w.text.startsWith("-")).length <= 1,
  wc: always,
  where: always,
  which: always,
  whoami: always,
  "[": always,
  "[[": always
}

/** Wrappers that do not change what the wrapped program may do. */
const TRANSPARENT_WRAPPERS = new Set(["command", "builtin", "time", "nice", "nohup", "timeout", "stdbuf", "env", "xargs"])

/** True when the program and its arguments only read (where it reads is checked separately). @category predicates */
export const invocationReadOnly = (inv: Invocation): boolean => {
  if (!inv.wrappers.every((w) => TRANSPARENT_WRAPPERS.has(w))) return false
  const root = inv.argv[0]!
  if (root.expands || root.substitutions.length > 0) return false
  const check = ownEntry(READ_ONLY_PROGRAMS, programName(root.text))
  return check !== undefined && check(inv.argv.slice(1))
}

/** Programs whose operands are not file names (they read no files). */
const NO_FILE_OPERANDS: ReadonlySet<string> = new Set([
  "basename", "date", "dirname", "echo", "false", "id", "printenv", "printf", "ps", "pwd", "true", "type", "uname", "where", "which", "whoami"
])

/** Options naming a file of file names (or `-`, standard input): what they read is not on the line. */
const NAMES_FROM_FILE = /^--(?:files0-from|files-from)(?:=|$)|^-files0-from$/

/** Options that make a program follow symbolic links while it walks a tree (which may lead out of the roots). */
const shortFlag = (args: ReadonlyArray<Word>, letter: string, ...long: ReadonlyArray<string>) =>
  args.some((w) => long.includes(w.text.split("=")[0]!) || (/^-[a-zA-Z]+$/.test(w.text) && w.text.includes(letter)))
const FOLLOWS_LINKS: Readonly<Record<string, (args: ReadonlyArray<Word>) => boolean>> = {
  grep: (args) => shortFlag(args, "R", "--dereference-recursive"),
  rg: (args) => shortFlag(args, "L", "--follow"),
  find: (args) => args.some((w) => w.text === "-L" || w.text === "-follow"),
  tree: (args) => args.some((w) => w.text === "-l")
}

/** Options whose next word is a script or pattern, not a file, per program. */
const SCRIPT_OPTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  sed: new Set(["-e", "--expression", "-l", "--line-length"]),
  awk: new Set(["-v", "-F", "--assign", "--field-separator"]),
  grep: new Set(["-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--label"]),
  rg: new Set(["-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C", "-M", "--max-columns", "-r", "--replace"])
}
const SCRIPT_FIRST = new Set(["sed", "awk", "grep", "egrep", "fgrep", "rg", "ripgrep"])

/** What a read-only command reads: words naming files, or `unknown` when they cannot be seen. @category models */
export type ReadOperand = Word | "unknown"

/**
 * The words of a read-only invocation that may name files it reads: its operands and the values
 * of `--option=value`, `-X/abs/path` forms, minus the script or pattern operand of `sed`, `awk`,
 * `grep`, `rg` and `find`'s expression. `unknown` stands for reads the line does not show:
 * names taken from standard input (`xargs`, `--files0-from`, `sha256sum -c`). Programs that read
 * no files (`echo`, `pwd`, …) have none.
 *
 * @category parsing
 */
export const readOperands = (inv: Invocation): ReadonlyArray<ReadOperand> => {
  const name = programName(inv.argv[0]!.text)
  const out: Array<ReadOperand> = inv.wrappers.includes("xargs") ? ["unknown"] : []
  if (NO_FILE_OPERANDS.has(name)) return out
  const program = name === "egrep" || name === "fgrep" ? "grep" : name === "ripgrep" ? "rg" : name
  const scriptOptions = ownEntry(SCRIPT_OPTIONS, program) ?? new Set<string>()
  const args = inv.argv.slice(1)
  let scriptGiven = args.some((w) => scriptOptions.has(w.text) && ["-e", "--expression", "--regexp"].includes(w.text))
    || args.some((w) => /^--(?:expression|regexp|file)=/.test(w.text) || w.text === "-f" || w.text === "--file")
  if (args.some((w) => NAMES_FROM_FILE.test(w.text))) out.push("unknown")
  if (name === "sed" && sedScripts(args).some((script) => scanSedScript(script).reads)) out.push("unknown")
  if (name === "awk" && args.some((w) => AWK_PICKS_FILES.test(w.text))) out.push("unknown")
  if (ownEntry(FOLLOWS_LINKS, program)?.(args) === true) out.push("unknown")
  if (/^(?:md5sum|sha1sum|sha256sum)$/.test(name) && args.some((w) => w.text === "-c" || w.text === "--check" || /^-[a-z]*c/.test(w.text))) out.push("unknown")
  let operandsOnly = false
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!
    const t = word.text
    if (!operandsOnly && t === "--") {
      operandsOnly = true
      continue
    }
    if (!operandsOnly && t.startsWith("-") && t !== "-") {
      if (program === "find") {
        // Options come before the start points; the expression (tests, actions) after them.
        if (t === "-H" || t === "-L" || t === "-P" || /^-O[0-9]$/.test(t)) continue
        if (t === "-D") {
          i++
          continue
        }
        break
      }
      if (scriptOptions.has(t)) {
        i++
        continue
      }
      const eq = t.indexOf("=")
      // bash expands `~` after the `=` of `--file=~/x` too.
      if (eq > 0) out.push({ ...word, text: t.slice(eq + 1), raw: word.raw.slice(word.raw.indexOf("=") + 1) })
      else if (!t.startsWith("--") && t.length > 3 && /^[/~]|\.\./.test(t.slice(2))) out.push({ ...word, text: t.slice(2) })
      continue
    }
    if (program === "find" && (t === "(" || t === "!")) break
    if (!scriptGiven && SCRIPT_FIRST.has(name)) {
      scriptGiven = true // the script or pattern
      continue
    }
    out.push(word)
  }
  return out
}
