/**
 * A scanned command line split into simple commands on its control operators, with what the
 * analyses need at the line level: the operators used, comments, subshells and substitutions.
 *
 * @since 0.1.0
 */
import { type Comment, type ControlOp, type Redirect, scan, ShellSyntaxError, type Word } from "./syntax.js"

/** One simple command: its words and redirections, and the operators around it. @category models */
export interface SimpleCommand {
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<Redirect>
  /** The operator that ends this command (`undefined` at the end of the line). */
  readonly next: ControlOp | undefined
}

/** A command line split into simple commands. @category models */
export interface CommandLine {
  readonly commands: ReadonlyArray<SimpleCommand>
  /** Every control operator used, in order. */
  readonly operators: ReadonlyArray<ControlOp>
  readonly comments: ReadonlyArray<Comment>
  /** Subshell or grouping parentheses are present. */
  readonly hasSubshell: boolean
  /** Texts of every command substitution anywhere in the line (words, redirect targets, here-docs). */
  readonly substitutions: ReadonlyArray<string>
}

/**
 * Splits a command line into simple commands on every control operator.
 *
 * @category parsing
 */
export const parseCommandLine = (source: string): CommandLine => {
  const tokens = scan(source)
  const commands: Array<SimpleCommand> = []
  const operators: Array<ControlOp> = []
  const comments: Array<Comment> = []
  const substitutions: Array<string> = []
  let words: Array<Word> = []
  let redirects: Array<Redirect> = []
  let hasSubshell = false
  const flush = (next: ControlOp | undefined) => {
    if (words.length > 0 || redirects.length > 0) commands.push({ words, redirects, next })
    words = []
    redirects = []
  }
  for (const token of tokens) {
    if (token.kind === "word") {
      words.push(token)
      substitutions.push(...token.substitutions)
    } else if (token.kind === "redirect") {
      redirects.push(token)
      if (token.target) substitutions.push(...token.target.substitutions)
    } else if (token.kind === "comment") comments.push(token)
    else {
      if (token.op === "(" || token.op === ")") hasSubshell = true
      operators.push(token.op)
      flush(token.op)
    }
  }
  flush(undefined)
  // A trailing newline or `;` closes the line; it is not a compound operator.
  while (operators.length > 0 && (operators[operators.length - 1] === "\n" || operators[operators.length - 1] === ";")) {
    const last = commands[commands.length - 1]
    if (last && last.next === operators[operators.length - 1]) commands[commands.length - 1] = { ...last, next: undefined }
    operators.pop()
  }
  return { commands, operators, comments, hasSubshell, substitutions }
}

/** Parses, or returns `undefined` when the line cannot be scanned. @category parsing */
export const tryParseCommandLine = (source: string): CommandLine | undefined => {
  try {
    return parseCommandLine(source)
  } catch (error) {
    if (error instanceof ShellSyntaxError) return undefined
    throw error
  }
}
