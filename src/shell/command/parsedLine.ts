/**
 * The one parse of a command line: the line split into simple commands, each with its wrappers
 * peeled, and every command line nested in it — a `bash -c '…'` / `cmd /c …` argument, a
 * `$(…)`, backtick, `<(…)` or here-document substitution — parsed once too, as a child. Every
 * analysis (roots, read-only proof, self-kill, sleep, sed, permission subjects, paths) walks this
 * tree; none scans a string again.
 *
 * @since 0.1.0
 */
import { type CommandLine, type SimpleCommand, tryParseCommandLine } from "./commandLine.js"
import { type Invocation, unwrap } from "./wrappers.js"

/** One simple command of a parsed line, wrappers peeled. @category models */
export type ParsedCommand =
  | { readonly kind: "invocation"; readonly command: SimpleCommand; readonly invocation: Invocation }
  /** A shell wrapper (`bash -c '…'`): the line it runs, parsed. */
  | { readonly kind: "nested"; readonly command: SimpleCommand; readonly wrappers: ReadonlyArray<string>; readonly nested: ParsedLine }
  /** Assignments or redirections alone, or a wrapper with nothing to run. */
  | { readonly kind: "none"; readonly command: SimpleCommand }

/** A command line parsed once, with its nested lines. @category models */
export interface ParsedLine {
  /** The text of this line. */
  readonly source: string
  /** `undefined` when it cannot be scanned (or is nested deeper than {@link MAX_PARSE_NESTING}). */
  readonly line: CommandLine | undefined
  /** One entry per `line.commands`, in order. */
  readonly commands: ReadonlyArray<ParsedCommand>
  /** One entry per `line.substitutions`, in order: each substitution's text, parsed. */
  readonly substitutions: ReadonlyArray<ParsedLine>
}

/**
 * Nesting (wrappers and substitutions together) parsed before a nested line counts as
 * unparsable. The analyses stop well before it (wrappers at 4 levels, self-kill at 3).
 *
 * @category constants
 */
export const MAX_PARSE_NESTING = 16

/** Told of every scan of a line's text (tests count them: one call, one scan per line). @category models */
export type ScanProbe = (source: string) => void

const build = (source: string, depth: number, probe: ScanProbe | undefined): ParsedLine => {
  if (depth > MAX_PARSE_NESTING) return { source, line: undefined, commands: [], substitutions: [] }
  probe?.(source)
  const line = tryParseCommandLine(source)
  if (line === undefined) return { source, line, commands: [], substitutions: [] }
  const commands = line.commands.map((command): ParsedCommand => {
    const u = unwrap(command)
    if (u === undefined) return { kind: "none", command }
    if ("source" in u) return { kind: "nested", command, wrappers: u.wrappers, nested: build(u.source, depth + 1, probe) }
    return { kind: "invocation", command, invocation: u }
  })
  const substitutions = line.substitutions.map((text) => build(text, depth + 1, probe))
  return { source, line, commands, substitutions }
}

/**
 * Parses a command line and every line nested in it, each once.
 *
 * @category parsing
 */
export const parseLine = (source: string, probe?: ScanProbe): ParsedLine => build(source, 0, probe)

/** Every invocation of a parsed line, shell wrappers followed (depth-limited). @category models */
export interface Expanded {
  readonly invocations: ReadonlyArray<Invocation>
  /** The parsed lines, outermost first (the line itself, then nested `bash -c` lines). */
  readonly lines: ReadonlyArray<ParsedLine & { readonly line: CommandLine }>
  /** Some line (or nested line) could not be scanned, or wrappers nest deeper than 4. */
  readonly unparsable: boolean
}

/** Wrapper levels followed before a line counts as unparsable. @category constants */
export const MAX_WRAPPER_DEPTH = 4

/**
 * The invocations of a line and of the `bash -c` / `cmd /c` lines nested in it.
 *
 * @category parsing
 */
export const expandLine = (parsed: ParsedLine, depth = 0): Expanded => {
  const { line } = parsed
  if (line === undefined) return { invocations: [], lines: [], unparsable: true }
  const invocations: Array<Invocation> = []
  const lines: Array<ParsedLine & { readonly line: CommandLine }> = [{ ...parsed, line }]
  let unparsable = false
  for (const command of parsed.commands) {
    if (command.kind === "none") continue
    if (command.kind === "nested") {
      if (depth >= MAX_WRAPPER_DEPTH) {
        unparsable = true
        continue
      }
      const inner = expandLine(command.nested, depth + 1)
      invocations.push(...inner.invocations)
      lines.push(...inner.lines)
      unparsable ||= inner.unparsable
    } else invocations.push(command.invocation)
  }
  return { invocations, lines, unparsable }
}

/** The parsed line of a substitution text somewhere in `lines` (same text, same parse). @category parsing */
export const substitutionLine = (lines: ReadonlyArray<ParsedLine>, text: string): ParsedLine | undefined => {
  for (const line of lines) {
    const found = line.substitutions.find((s) => s.source === text)
    if (found !== undefined) return found
  }
  return undefined
}
