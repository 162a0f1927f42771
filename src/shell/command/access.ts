/**
 * The permission view of a command line, from one parse: what the permission rules are matched
 * against (its subjects, redirections included), whether the programs are provably read-only,
 * and every path it reads or writes that the line shows — redirection targets and the file
 * operands of read-only programs — resolved against the command's directory (`cd` followed),
 * `~` from HOME. A path that cannot be known before the command runs (a variable, a glob that
 * may leave its directory, brace expansion, `~user`, a `cd` to an unknown place) is `undefined`:
 * the caller treats it as outside the workspace.
 *
 * @since 0.1.0
 */
import * as nodePath from "node:path"
import type { SimpleCommand } from "./commandLine.js"
import { RAW_SUBSTITUTION, UNPARSABLE_SUBJECT } from "./commands.js"
import type { ParsedCommand, ParsedLine } from "./parsedLine.js"
import { invocationReadOnly, readOperands } from "./readOnly.js"
import { redirectEffect } from "./redirects.js"
import type { Redirect, Word } from "./syntax.js"
import { type Invocation, programName } from "./wrappers.js"

/** Where a command line runs. @category models */
export interface ShellContext {
  /** The command's directory (absolute). */
  readonly cwd: string
  /** The primary workspace root: subjects name paths inside it relative to it. */
  readonly root: string
  /** The home directory `~` expands to. */
  readonly home: string
  /** The `CDPATH` the command inherits: with one, where `cd name` lands is not knowable. */
  readonly cdPath?: string | undefined
}

/** One path a command line touches. @category models */
export interface PathAccess {
  readonly mode: "read" | "write"
  /** Absolute and normalized (not following links); `undefined` when not knowable before running. */
  readonly path: string | undefined
  /** The target or operand as written (`(standard input)` for names read from input). */
  readonly written: string
  /** The program that reads, or undefined for a redirection. */
  readonly program: string | undefined
  /** For a glob: how many levels below `path` its pattern reaches (links there may lead out). */
  readonly globDepth?: number | undefined
}

/** The permission view of a command line. @category models */
export interface ShellAnalysis {
  /** It parsed (nested lines included). */
  readonly parsed: boolean
  /** It substitutes commands somewhere. */
  readonly substitution: boolean
  /** Every program is read-only and no redirection writes (paths not yet considered). */
  readonly readOnly: boolean
  /** Reads and writes the line shows: every non-harmless redirection, and read-only programs' file operands. */
  readonly accesses: ReadonlyArray<PathAccess>
  /** What permission rules are matched against (see `docs/configuration.md`). */
  readonly subjects: ReadonlyArray<string>
  /** Root programs that are not proven read-only. */
  readonly rootsNeedingApproval: ReadonlyArray<string>
}

const MAX_DEPTH = 4

/**
 * Resolves a word naming a path: `~` and `~/…` from HOME, relative against `cwd`. A glob
 * resolves to the directory its matches lie under when no glob part can climb out (`..`, or a
 * dot-led pattern that may match `..`). `undefined` when it cannot be known.
 *
 * @category resolution
 */
export const resolvePathWord = (word: Word, cwd: string | undefined, home: string): string | undefined => {
  if (word.expands || word.brace || word.substitutions.length > 0) return undefined
  let text = word.text
  if (word.raw.startsWith("~")) {
    if (text === "~" || text.startsWith("~/")) text = home + text.slice(1)
    else return undefined // ~user, ~+, ~-
  }
  if (word.glob) {
    const segments = text.split("/")
    const first = segments.findIndex((s) => /[*?[]/.test(s))
    if (first >= 0) {
      const rest = segments.slice(first)
      if (rest.some((s) => s === ".." || (s.startsWith(".") && /[*?[]/.test(s)))) return undefined
      text = segments.slice(0, first).join("/") || (text.startsWith("/") ? "/" : ".")
    }
  }
  if (nodePath.isAbsolute(text)) return nodePath.resolve(text)
  return cwd === undefined ? undefined : nodePath.resolve(cwd, text)
}

/** How many path levels a glob word reaches below the directory it resolves to (0: not a glob). @category resolution */
export const globDepth = (word: Word): number => {
  if (!word.glob) return 0
  const segments = word.text.split("/").filter((s, i, all) => s !== "" || i === all.length - 1)
  const first = segments.findIndex((s) => /[*?[]/.test(s))
  return first < 0 ? 0 : segments.length - first
}

/** How a path appears in a subject: relative to the root inside it, absolute outside it. */
const displayPath = (abs: string, root: string): string => {
  const rel = nodePath.relative(root, abs)
  if (rel === "") return "."
  return rel.startsWith("..") || nodePath.isAbsolute(rel) ? abs : rel
}

/** Wrapper options that move the wrapped command to another directory (`env -C`, `sudo -D`). */
const CHANGES_DIRECTORY = /^(?:-C|-D|--chdir(?:=.*)?|-C.+)$/

const COMPOUND_WORDS: ReadonlySet<string> = new Set(["{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "select", "case", "esac", "function"])

const STAYS = new Set<string | undefined>([undefined, "&&", ";", "\n"])

interface Walk {
  readonly context: ShellContext
  readonly accesses: Array<PathAccess>
  readonly subjects: Array<string>
  readonly needingApproval: Set<string>
  parsed: boolean
  substitution: boolean
  readOnly: boolean
}

const redirectText = (r: Redirect, path: string | undefined, root: string): string =>
  `${r.fd ?? ""}${r.op} ${path !== undefined ? displayPath(path, root) : r.target?.raw ?? ""}`

/** Walks one parsed line in order, following `cd`; returns the directory after it. */
const walkLine = (walk: Walk, parsed: ParsedLine, startCwd: string | undefined, depth: number): string | undefined => {
  const { line } = parsed
  if (line === undefined) {
    walk.parsed = false
    walk.readOnly = false
    if (RAW_SUBSTITUTION.test(parsed.source)) walk.substitution = true
    return startCwd
  }
  let cwd = startCwd
  if (line.hasSubshell) walk.readOnly = false
  if (line.substitutions.length > 0) {
    walk.substitution = true
    walk.readOnly = false
  }
  for (const command of parsed.commands) cwd = walkCommand(walk, command, cwd, depth)
  for (const substitution of parsed.substitutions) walkLine(walk, substitution, startCwd, depth + 1)
  return cwd
}

const walkCommand = (walk: Walk, parsedCommand: ParsedCommand, cwd: string | undefined, depth: number): string | undefined => {
  const { context } = walk
  const { command } = parsedCommand
  const redirectParts: Array<string> = []
  const standalone: Array<string> = []
  for (const r of command.redirects) {
    const effect = redirectEffect(r)
    if (effect === "harmless") continue
    const path = r.target ? resolvePathWord(r.target, cwd, context.home) : undefined
    walk.accesses.push({ mode: effect, path, written: r.target?.raw ?? "", program: undefined })
    const text = redirectText(r, path, context.root)
    redirectParts.push(text)
    if (effect === "write") {
      walk.readOnly = false
      standalone.push(text)
    }
  }
  if (parsedCommand.kind === "none") {
    // Assignments or redirections alone: each redirection is its own part.
    walk.readOnly = false
    walk.subjects.push(...redirectParts)
    return cwd
  }
  if (parsedCommand.kind === "nested") {
    walk.subjects.push(...redirectParts)
    if (depth >= MAX_DEPTH) {
      walk.parsed = false
      return cwd
    }
    walkLine(walk, parsedCommand.nested, cwd, depth + 1)
    return cwd
  }
  const unwrapped = parsedCommand.invocation
  walk.subjects.push([...unwrapped.argv.map((w) => w.text), ...redirectParts].join(" "), ...standalone)
  const program = programName(unwrapped.argv[0]!.text)
  const wrapperWords = command.words.slice(0, command.words.length - unwrapped.argv.length)
  const here = wrapperWords.some((w) => CHANGES_DIRECTORY.test(w.text)) ? undefined : cwd
  if (invocationReadOnly(unwrapped)) {
    // A program without operands reads its directory (`cd && ls`, `env -C /etc ls`).
    if (here !== context.cwd) walk.accesses.push({ mode: "read", path: here, written: here ?? "(unknown directory)", program })
    for (const operand of readOperands(unwrapped)) {
      walk.accesses.push(
        operand === "unknown"
          ? { mode: "read", path: undefined, written: "(standard input)", program }
          : { mode: "read", path: resolvePathWord(operand, here, context.home), written: operand.raw, program, globDepth: globDepth(operand) }
      )
    }
  } else {
    walk.readOnly = false
    walk.needingApproval.add(program)
  }
  if (standalone.length > 0) walk.needingApproval.add(program)
  return nextDirectory(unwrapped, command, here, context)
}

/** The directory after a command: `cd DIR` (or `pushd`) moves it when it surely runs in this shell. */
const nextDirectory = (inv: Invocation, command: SimpleCommand, cwd: string | undefined, context: ShellContext): string | undefined => {
  const program = programName(inv.argv[0]!.text)
  // A compound command (`{ cd x; }`, `if cd x; then …`) or a subshell's end leaves the directory open.
  if (command.next === ")" || COMPOUND_WORDS.has(inv.argv[0]!.text)) return undefined
  if (program !== "cd" && program !== "pushd" && program !== "popd") return cwd
  // Prefix assignments (`CDPATH=/ cd etc`, `HOME=/ cd`) and wrappers change where it lands.
  if (program === "popd" || !STAYS.has(command.next) || command.words.length !== inv.argv.length) return undefined
  const args = inv.argv.slice(1).filter((w) => !/^-[LPe@]+$/.test(w.text))
  if (args.length === 0) return program === "cd" ? context.home : undefined
  const target = args[0]!
  if (target.text === "-" || args.length > 1) return undefined
  const searched = !/^(?:\/|\.\.?(?:\/|$)|~)/.test(target.text)
  if (searched && context.cdPath !== undefined && context.cdPath !== "") return undefined
  return resolvePathWord(target, cwd, context.home)
}

/**
 * The permission view of a parsed line (its paths resolved in `context`).
 *
 * @category parsing
 */
export const lineAccess = (parsed: ParsedLine, context: ShellContext): ShellAnalysis => {
  if (parsed.line === undefined) {
    return {
      parsed: false,
      substitution: RAW_SUBSTITUTION.test(parsed.source),
      readOnly: false,
      accesses: [],
      subjects: [UNPARSABLE_SUBJECT],
      rootsNeedingApproval: []
    }
  }
  const walk: Walk = {
    context,
    accesses: [],
    subjects: [],
    needingApproval: new Set(),
    parsed: true,
    substitution: false,
    readOnly: true
  }
  walkLine(walk, parsed, context.cwd, 0)
  const invoked = walk.subjects.length > 0
  return {
    parsed: walk.parsed,
    substitution: walk.substitution,
    readOnly: walk.parsed && walk.readOnly && invoked,
    accesses: walk.accesses,
    subjects: !walk.parsed ? [UNPARSABLE_SUBJECT] : invoked ? walk.subjects : [parsed.source.trim()],
    rootsNeedingApproval: [...walk.needingApproval]
  }
}

/** A context for answers that do not depend on where the line runs (paths resolve against `/`). */
const ANYWHERE: ShellContext = { cwd: "/", root: "/", home: "/" }

/**
 * True when the parser proves the line's programs read-only (see `readOnly.ts`): the permission
 * walk's proof, paths not considered.
 *
 * @category predicates
 */
export const lineReadOnly = (parsed: ParsedLine): boolean => lineAccess(parsed, ANYWHERE).readOnly

/** The roots of the sub-commands that are not proven read-only (for the confirmation). @category parsing */
export const lineRootsNeedingApproval = (parsed: ParsedLine): ReadonlyArray<string> => lineAccess(parsed, ANYWHERE).rootsNeedingApproval

/**
 * The prompt's warnings for accesses outside the workspace, one per mode: what is read or
 * written there, as written on the command line.
 *
 * @category formatting
 */
export const outsideWarnings = (outside: ReadonlyArray<PathAccess>): Array<string> => {
  const list = (mode: PathAccess["mode"]) => [...new Set(outside.filter((a) => a.mode === mode).map((a) => a.path ?? a.written))]
  const reads = list("read")
  const writes = list("write")
  return [
    ...(writes.length > 0 ? [`Writes outside the workspace (or to a path not known before it runs): ${writes.join(", ")}.`] : []),
    ...(reads.length > 0 ? [`Reads outside the workspace (or a path not known before it runs): ${reads.join(", ")}.`] : [])
  ]
}
