/**
 * Simulated in-place sed (reference §9.7): `recogniseSedEdit` recognises, in the parsed line, exactly one
 * `sed -i 's/pattern/replacement/flags' file` that can be simulated faithfully, and
 * `applySedSubstitution` applies it with GNU sed semantics (line by line, `g` / `N` / `Ng`, `&`,
 * `\1`–`\9`, empty matches right after a match suppressed). Basic regular expressions are
 * translated to JavaScript; anything that cannot be translated exactly, or that could backtrack
 * catastrophically, is rejected — and the real command runs instead.
 *
 * @since 0.1.0
 */
import type { ParsedLine } from "./parsedLine.js"
import type { Word } from "./syntax.js"

/** A recognised in-place substitution. @category models */
export interface SedEditInfo {
  readonly filePath: string
  /** The pattern as written (sed syntax). */
  readonly pattern: string
  readonly replacement: string
  /** `""`, `g`, `N`, `Ng`. */
  readonly flags: string
  readonly extendedRegex: boolean
}

const VARIABLE_REFERENCE = /`|\$[A-Za-z_{(0-9#?@$!*]/

/** Splits `s/pattern/replacement/flags` on unescaped `/`; undefined when malformed. */
const splitSubstitution = (expression: string): readonly [string, string, string] | undefined => {
  if (!expression.startsWith("s/")) return undefined
  const parts: Array<string> = []
  let current = ""
  for (let i = 2; i < expression.length; i++) {
    const c = expression[i]!
    if (c === "\\" && i + 1 < expression.length) {
      current += c + expression[i + 1]
      i++
    } else if (c === "/" && parts.length < 2) {
      parts.push(current)
      current = ""
    } else current += c
  }
  if (parts.length !== 2) return undefined
  return [parts[0]!, parts[1]!, current]
}

/** Translates a sed pattern to JavaScript regex source, or undefined when it cannot be exact. @category regex */
export const sedPatternToJs = (pattern: string, extended: boolean): string | undefined => {
  let out = ""
  let i = 0
  // Whether the previous atom can take a quantifier (BRE: a leading `*` is literal).
  let canQuantify = false
  const literal = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c)
  while (i < pattern.length) {
    const c = pattern[i]!
    if (c === "[") {
      // bracket expression: backslash is literal inside; `]` first is literal
      if (pattern.startsWith("[[:", i) || /\[\[[.=]/.test(pattern.slice(i, i + 3))) return undefined
      let j = i + 1
      let body = ""
      if (pattern[j] === "^") {
        body += "^"
        j++
      }
      if (pattern[j] === "]") {
        body += "\\]"
        j++
      }
      while (j < pattern.length && pattern[j] !== "]") {
        const d = pattern[j]!
        if (d === "[" && pattern[j + 1] === ":") return undefined
        body += d === "\\" ? "\\\\" : d === "[" ? "\\[" : d
        j++
      }
      if (j >= pattern.length) return undefined
      out += `[${body}]`
      i = j + 1
      canQuantify = true
      continue
    }
    if (c === "\\") {
      const n = pattern[i + 1]
      if (n === undefined) return undefined
      i += 2
      if ("<>dDwWsS".includes(n)) return undefined
      if (n === "/") {
        out += "\\/"
        canQuantify = true
      } else if (!extended && "+?|(){}".includes(n)) {
        out += n
        canQuantify = n === ")" || n === "}"
        if (n === "(" || n === "|") canQuantify = false
      } else if (/[1-9]/.test(n)) {
        out += `\\${n}`
        canQuantify = true
      } else if (n === "n") {
        out += "\\n"
        canQuantify = true
      } else if (n === "t") {
        out += "\\t"
        canQuantify = true
      } else if (n === "r") {
        out += "\\r"
        canQuantify = true
      } else if (/[A-Za-z0-9]/.test(n)) {
        return undefined // an escape whose meaning differs between sed and JavaScript
      } else {
        out += literal(n)
        canQuantify = true
      }
      continue
    }
    i++
    if (!extended && "+?|(){}".includes(c)) {
      out += `\\${c}`
      canQuantify = true
    } else if (c === "^") {
      const atStart = extended || out === "" || (!extended && /(?:^|[^\\])\($/.test(out))
      out += atStart ? "^" : "\\^"
      canQuantify = !atStart
    } else if (c === "$") {
      const atEnd = extended || i === pattern.length || (!extended && pattern.startsWith("\\)", i))
      out += atEnd ? "$" : "\\$"
      canQuantify = !atEnd
    } else if (c === "*") {
      out += canQuantify ? "*" : "\\*"
      canQuantify = !canQuantify
    } else if (extended && "+?{".includes(c) && !canQuantify) {
      return undefined
    } else {
      out += c === "/" ? "\\/" : c
      canQuantify = !(extended && (c === "(" || c === "|"))
    }
  }
  return out
}

/**
 * The ReDoS guard: true when a quantified group contains alternation or another quantifier
 * (`(a*)*b`, `(a|aa)*b`), which can backtrack exponentially.
 *
 * @category regex
 */
export const hasNestedQuantifier = (js: string): boolean => {
  const stack: Array<{ risky: boolean }> = []
  for (let i = 0; i < js.length; i++) {
    const c = js[i]!
    if (c === "\\") {
      i++
      continue
    }
    if (c === "[") {
      while (i < js.length && js[i] !== "]") i += js[i] === "\\" ? 2 : 1
      continue
    }
    const top = stack[stack.length - 1]
    if (c === "(") stack.push({ risky: false })
    else if (c === ")") {
      const group = stack.pop()
      const next = js[i + 1]
      const quantified = next === "*" || next === "+" || next === "?" || next === "{"
      if (group && quantified && group.risky) return true
      // an enclosing group inherits what this one contains, plus its own quantifier
      const parent = stack[stack.length - 1]
      if (parent && (group?.risky || quantified)) parent.risky = true
    } else if (top && (c === "|" || c === "*" || c === "+" || c === "?" || c === "{")) top.risky = true
  }
  return false
}

const countGroups = (re: RegExp): number => new RegExp(`${re.source}|`).exec("")!.length - 1

/** The JavaScript regex of a substitution (global, for scanning), or undefined. @category regex */
export const compileSedPattern = (pattern: string, extended: boolean): RegExp | undefined => {
  const js = sedPatternToJs(pattern, extended)
  if (js === undefined || hasNestedQuantifier(js)) return undefined
  try {
    // dotAll: sed's `.` matches `\r` (and any character of the line)
    return new RegExp(js, "gs")
  } catch {
    return undefined
  }
}

/**
 * Recognises a simulatable in-place sed substitution in a parsed line: exactly one simple command
 * `sed …` with no operator, redirection, comment, glob or substitution; or returns null.
 *
 * @category parsing
 */
export const recogniseSedEdit = (parsed: ParsedLine): SedEditInfo | null => {
  const { line } = parsed
  if (line === undefined || line.commands.length !== 1 || line.operators.length > 0 || line.comments.length > 0) return null
  if (/;\s*$/.test(parsed.source)) return null // a closing `;` is still an operator here
  const { words, redirects } = line.commands[0]!
  if (redirects.length > 0 || words[0]?.raw !== "sed") return null
  if (words.some((w) => w.glob || w.substitutions.length > 0)) return null
  return sedEditOfArguments(words.slice(1))
}

/** The substitution of `sed`'s arguments, or null when they are not one simulatable `-i` edit of one file. */
const sedEditOfArguments = (args: ReadonlyArray<Word>): SedEditInfo | null => {
  let inPlace = false
  let extended = false
  const expressions: Array<string> = []
  const positionals: Array<Word> = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.text
    if (a === "-i") {
      inPlace = true
      if (args[i + 1]?.text === "") i++ // macOS: -i ''
    } else if (a === "--in-place" || a === "--in-place=") inPlace = true
    else if (a === "-E" || a === "-r" || a === "--regexp-extended") extended = true
    else if (/^-[Eri]+$/.test(a)) {
      if (!a.endsWith("i") || a.slice(1, -1).includes("i")) return null
      inPlace = true
      extended = true
      if (args[i + 1]?.text === "") i++
    } else if (a === "-e" || a === "--expression") {
      const value = args[i + 1]
      if (value === undefined) return null
      expressions.push(value.text)
      i++
    } else if (a.startsWith("--expression=")) expressions.push(a.slice("--expression=".length))
    else if (a.startsWith("-") && a !== "-") return null
    else positionals.push(args[i]!)
  }
  if (!inPlace) return null
  if (expressions.length === 0 && positionals.length > 0) expressions.push(positionals.shift()!.text)
  if (expressions.length !== 1 || positionals.length !== 1) return null
  const expression = expressions[0]!
  const fileWord = positionals[0]!
  const filePath = fileWord.text
  if (VARIABLE_REFERENCE.test(expression)) return null
  // Brace expansion may name other files than the one written.
  if (fileWord.brace || filePath.startsWith("~") || filePath.includes("$") || filePath === "") return null
  if (/[\r\n]/.test(expression)) return null
  const parts = splitSubstitution(expression)
  if (!parts) return null
  const [pattern, replacement, flags] = parts
  if (pattern === "") return null
  if (!/^[g0-9]*$/.test(flags) || (flags.match(/[0-9]+/g) ?? []).length > 1 || /^0|g0/.test(flags) || (flags.match(/g/g) ?? []).length > 1) return null
  if (!/^(?:[^\\]|\\[\\/&1-9])*$/.test(replacement)) return null
  const re = compileSedPattern(pattern, extended)
  if (!re) return null
  const groups = countGroups(re)
  const refs = [...replacement.matchAll(/\\([\\/&1-9])/g)].map((m) => m[1]!).filter((d) => /[1-9]/.test(d)).map(Number)
  if (refs.some((n) => n > groups)) return null
  return { filePath, pattern, replacement, flags, extendedRegex: extended }
}

const expandReplacement = (replacement: string, match: RegExpExecArray): string => {
  let out = ""
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i]!
    if (c === "\\") {
      const n = replacement[++i]
      if (n === undefined) break
      out += /[1-9]/.test(n) ? (match[Number(n)] ?? "") : n
    } else if (c === "&") out += match[0]
    else out += c
  }
  return out
}

/** Applies the substitution to one line (GNU sed semantics). */
const substituteLine = (line: string, re: RegExp, replacement: string, occurrence: number, global: boolean): string => {
  let out = ""
  let cursor = 0
  let from = 0
  let count = 0
  let lastNonEmptyEnd = -1
  while (from <= line.length) {
    re.lastIndex = from
    const m = re.exec(line)
    if (!m) break
    const start = m.index
    const length = m[0].length
    if (length === 0 && start === lastNonEmptyEnd) {
      from = start + 1
      continue
    }
    count++
    if (global ? count >= occurrence : count === occurrence) {
      out += line.slice(cursor, start) + expandReplacement(replacement, m)
      cursor = start + length
    }
    if (length > 0) lastNonEmptyEnd = start + length
    from = length === 0 ? start + 1 : start + length
    if (!global && count >= occurrence) break
  }
  return out + line.slice(cursor)
}

/**
 * Applies a recognised substitution to a whole text: line by line on `\n` (a trailing newline is
 * kept and adds no phantom line; `\r` stays in the pattern space).
 *
 * @category applying
 */
export const applySedSubstitution = (content: string, info: SedEditInfo): string => {
  const re = compileSedPattern(info.pattern, info.extendedRegex)
  if (!re) throw new Error(`the pattern ${JSON.stringify(info.pattern)} cannot be simulated`)
  const global = info.flags.includes("g")
  const digits = /[0-9]+/.exec(info.flags)
  const occurrence = digits ? Number(digits[0]) : 1
  if (content === "") return ""
  const endsWithNewline = content.endsWith("\n")
  const lines = (endsWithNewline ? content.slice(0, -1) : content).split("\n")
  const replaced = lines.map((line) => substituteLine(line, re, info.replacement, occurrence, global)).join("\n")
  return endsWithNewline ? `${replaced}\n` : replaced
}
