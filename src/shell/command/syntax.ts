/**
 * A quote-aware scanner for the bash subset the shell tool reasons about: words (with their
 * unquoted value and whether they expand, glob or substitute), control operators, redirections
 * (with their file descriptor), comments and here-documents. It never executes or expands
 * anything; it only tells the analyses in `commands.ts` what a command line is made of.
 *
 * Anything it cannot follow (an unterminated quote, say) is a {@link ShellSyntaxError}, and every
 * analysis treats that as "not provably safe".
 *
 * @since 0.1.0
 */

/** One word: its value with quotes removed, and what the shell would do to it. @category models */
export interface Word {
  readonly kind: "word"
  /** The value after quote removal; expansions and substitutions are kept as written. */
  readonly text: string
  /** The word as written. */
  readonly raw: string
  /** Some part was quoted. */
  readonly quoted: boolean
  /** Contains an unquoted or double-quoted `$NAME` / `${…}` expansion. */
  readonly expands: boolean
  /** Contains an unquoted `*`, `?` or `[`. */
  readonly glob: boolean
  /** Contains an unquoted `{` (brace expansion may make it several words, or other paths). */
  readonly brace: boolean
  /** The texts of the command substitutions it contains (`$(…)`, backticks, `<(…)`, `>(…)`, `$((…))`). */
  readonly substitutions: ReadonlyArray<string>
}

/** A control operator; a newline is the operator `"\n"`. @category models */
export interface Operator {
  readonly kind: "op"
  readonly op: ControlOp
}

/** Control operators. @category models */
export type ControlOp = "&&" | "||" | ";" | ";;" | "|" | "|&" | "&" | "\n" | "(" | ")"

/** Redirection operators. @category models */
export type RedirectOp = ">" | ">>" | ">|" | "&>" | "&>>" | "<" | "<<" | "<<-" | "<<<" | ">&" | "<&" | "<>"

/** A redirection with its optional leading file descriptor and its target word. @category models */
export interface Redirect {
  readonly kind: "redirect"
  readonly fd: string | undefined
  readonly op: RedirectOp
  readonly target: Word | undefined
  /** For `<<` / `<<-`: the here-document body. */
  readonly body?: string | undefined
}

/** A `#` comment (the text after `#`). @category models */
export interface Comment {
  readonly kind: "comment"
  readonly text: string
  /** Offset of the `#` in the source. */
  readonly start: number
}

/** One token of a command line. @category models */
export type Token = Word | Operator | Redirect | Comment

/** The command line cannot be scanned (unterminated quote or substitution). @category errors */
export class ShellSyntaxError extends Error {
  override readonly name = "ShellSyntaxError"
}

const CONTROL_OPS: ReadonlyArray<ControlOp> = ["&&", "||", ";;", "|&", ";", "|", "&", "(", ")"]
// Longest first, so `&>>` wins over `&>` and `&&` (checked before control ops).
const REDIRECT_OPS: ReadonlyArray<RedirectOp> = ["&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">|", ">&", ">"]
const ANSI_C: Record<string, string> = { a: "\x07", b: "\b", e: "\x1b", E: "\x1b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v" }

const isBlank = (c: string | undefined) => c === " " || c === "\t"
const isMeta = (c: string | undefined) => c === undefined || c === " " || c === "\t" || c === "\n" || "|&;()<>".includes(c)

/**
 * Index just past the bracket that closes a `$(` / `<(` / `(` (`open` is `(`) or a `${`
 * (`open` is `{`) opened before `from` (depth 1 at `from`), honouring quotes, backticks, nested
 * brackets and (inside `${…}`) command substitutions.
 */
const closeNested = (s: string, from: number, open: "(" | "{"): number => {
  const close = open === "(" ? ")" : "}"
  let depth = 1
  let i = from
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\") i += 2
    else if (c === "'") {
      const end = s.indexOf("'", i + 1)
      if (end === -1) throw new ShellSyntaxError("unterminated single quote")
      i = end + 1
    } else if (c === "\"") i = closeDouble(s, i + 1)
    else if (c === "`") i = closeBacktick(s, i + 1)
    else if (open === "{" && c === "$" && s[i + 1] === "(") i = closeParen(s, i + 2)
    else if (c === open) {
      depth++
      i++
    } else if (c === close) {
      depth--
      i++
      if (depth === 0) return i
    } else i++
  }
  throw new ShellSyntaxError(open === "(" ? "unterminated command substitution" : "unterminated ${ expansion")
}

/** Index just past the `)` closing a `$(` / `<(` / `(` whose body starts at `from`. */
const closeParen = (s: string, from: number): number => closeNested(s, from, "(")

/** Index just past the `"` closing a double-quoted string whose body starts at `from`. */
const closeDouble = (s: string, from: number): number => {
  let i = from
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\") i += 2
    else if (c === "\"") return i + 1
    else if (c === "$" && s[i + 1] === "(") i = closeParen(s, i + 2)
    else if (c === "`") i = closeBacktick(s, i + 1)
    else i++
  }
  throw new ShellSyntaxError("unterminated double quote")
}

/** Index just past the closing backtick of a backtick substitution whose body starts at `from`. */
const closeBacktick = (s: string, from: number): number => {
  let i = from
  while (i < s.length) {
    const c = s[i]!
    if (c === "\\") i += 2
    else if (c === "`") return i + 1
    else i++
  }
  throw new ShellSyntaxError("unterminated backtick substitution")
}

/** Index past a `${…}` whose body starts at `from` (braces nest). */
const closeBrace = (s: string, from: number): number => closeNested(s, from, "{")

interface WordState {
  text: string
  quoted: boolean
  expands: boolean
  glob: boolean
  brace?: boolean
  substitutions: Array<string>
}

/** Reads a `$…` at `i` (inside or outside double quotes) into the word; returns the next index. */
const readDollar = (s: string, i: number, w: WordState, inDouble: boolean): number => {
  const next = s[i + 1]
  if (next === "(") {
    const arithmetic = s[i + 2] === "("
    const end = closeParen(s, i + 2)
    w.substitutions.push(s.slice(arithmetic ? i + 3 : i + 2, arithmetic ? end - 2 : end - 1))
    w.text += s.slice(i, end)
    return end
  }
  if (next === "{") {
    const end = closeBrace(s, i + 2)
    w.expands = true
    w.text += s.slice(i, end)
    return end
  }
  if (next === "'" && !inDouble) {
    // ANSI-C quoting: $'…'
    let j = i + 2
    let out = ""
    while (j < s.length && s[j] !== "'") {
      if (s[j] === "\\" && j + 1 < s.length) {
        const e = s[j + 1]!
        out += ANSI_C[e] ?? (e === "\\" || e === "'" || e === "\"" ? e : `\\${e}`)
        j += 2
      } else out += s[j++]
    }
    if (j >= s.length) throw new ShellSyntaxError("unterminated $'…' quote")
    w.quoted = true
    w.text += out
    return j + 1
  }
  if (next === "\"" && !inDouble) return i + 1 // $"…": locale quoting, read as a double quote
  const name = /^(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]|[*@#?$!-])/.exec(s.slice(i + 1))
  if (name) {
    w.expands = true
    w.text += `$${name[0]}`
    return i + 1 + name[0].length
  }
  w.text += "$"
  return i + 1
}

/** Reads a backtick substitution at `i` into the word; returns the next index. */
const readBacktick = (s: string, i: number, w: WordState): number => {
  const end = closeBacktick(s, i + 1)
  w.substitutions.push(s.slice(i + 1, end - 1))
  w.text += s.slice(i, end)
  return end
}

/**
 * Scans a command line into tokens.
 *
 * @category parsing
 */
export const scan = (source: string): Array<Token> => {
  const s = source
  const tokens: Array<Token> = []
  const pendingHeredocs: Array<{ readonly index: number; readonly delimiter: string; readonly strip: boolean; readonly expand: boolean }> = []
  let i = 0
  let expectTarget: { fd: string | undefined; op: RedirectOp } | undefined

  const pushWord = (w: WordState, start: number, end: number) => {
    const word: Word = { kind: "word", text: w.text, raw: s.slice(start, end), quoted: w.quoted, expands: w.expands, glob: w.glob, brace: w.brace === true, substitutions: w.substitutions }
    if (expectTarget) {
      const { fd, op } = expectTarget
      expectTarget = undefined
      if (op === "<<" || op === "<<-") {
        pendingHeredocs.push({ index: tokens.length, delimiter: word.text, strip: op === "<<-", expand: !word.quoted })
      }
      tokens.push({ kind: "redirect", fd, op, target: word })
    } else tokens.push(word)
  }

  const readHeredocBodies = () => {
    for (const doc of pendingHeredocs.splice(0)) {
      let body = ""
      for (;;) {
        if (i >= s.length) break
        const nl = s.indexOf("\n", i)
        const line = nl === -1 ? s.slice(i) : s.slice(i, nl)
        i = nl === -1 ? s.length : nl + 1
        const compare = doc.strip ? line.replace(/^\t+/, "") : line
        if (compare === doc.delimiter) break
        body += `${line}\n`
      }
      const redirect = tokens[doc.index] as Redirect
      const subs: Array<string> = []
      if (doc.expand) {
        const probe: WordState = { text: "", quoted: false, expands: false, glob: false, substitutions: subs }
        for (let j = 0; j < body.length;) {
          if (body[j] === "\\") j += 2
          else if (body[j] === "$") j = readDollar(body, j, probe, true)
          else if (body[j] === "`") j = readBacktick(body, j, probe)
          else j++
        }
      }
      tokens[doc.index] = {
        ...redirect,
        body,
        target: redirect.target ? { ...redirect.target, substitutions: [...redirect.target.substitutions, ...subs] } : undefined
      }
    }
  }

  while (i < s.length) {
    const c = s[i]!
    if (isBlank(c)) {
      i++
      continue
    }
    if (c === "\\" && s[i + 1] === "\n") {
      i += 2
      continue
    }
    if (c === "\n") {
      if (expectTarget) throw new ShellSyntaxError("redirection without a target")
      tokens.push({ kind: "op", op: "\n" })
      i++
      readHeredocBodies()
      continue
    }
    if (c === "#") {
      const nl = s.indexOf("\n", i)
      const end = nl === -1 ? s.length : nl
      tokens.push({ kind: "comment", text: s.slice(i + 1, end), start: i })
      i = end
      continue
    }
    // Process substitution is a word.
    if ((c === "<" || c === ">") && s[i + 1] === "(") {
      const end = closeParen(s, i + 2)
      pushWord({ text: s.slice(i, end), quoted: false, expands: false, glob: false, substitutions: [s.slice(i + 2, end - 1)] }, i, end)
      i = end
      continue
    }
    const redirect = REDIRECT_OPS.find((op) => s.startsWith(op, i))
    if (redirect && !(redirect.startsWith("&") && s[i + 1] === "&")) {
      if (expectTarget) throw new ShellSyntaxError("redirection without a target")
      expectTarget = { fd: undefined, op: redirect }
      i += redirect.length
      continue
    }
    const control = CONTROL_OPS.find((op) => s.startsWith(op, i))
    if (control) {
      if (expectTarget) throw new ShellSyntaxError("redirection without a target")
      tokens.push({ kind: "op", op: control })
      i += control.length
      continue
    }
    // A word.
    const start = i
    const w: WordState = { text: "", quoted: false, expands: false, glob: false, substitutions: [] }
    while (i < s.length && !isMeta(s[i])) {
      const ch = s[i]!
      if (ch === "\\") {
        if (s[i + 1] === "\n") i += 2
        else {
          w.text += s[i + 1] ?? ""
          w.quoted = true
          i += 2
        }
      } else if (ch === "'") {
        const end = s.indexOf("'", i + 1)
        if (end === -1) throw new ShellSyntaxError("unterminated single quote")
        w.text += s.slice(i + 1, end)
        w.quoted = true
        i = end + 1
      } else if (ch === "\"") {
        w.quoted = true
        i++
        while (i < s.length && s[i] !== "\"") {
          const d = s[i]!
          if (d === "\\" && i + 1 < s.length && "$`\"\\\n".includes(s[i + 1]!)) {
            if (s[i + 1] !== "\n") w.text += s[i + 1]
            i += 2
          } else if (d === "$") i = readDollar(s, i, w, true)
          else if (d === "`") i = readBacktick(s, i, w)
          else {
            w.text += d
            i++
          }
        }
        if (i >= s.length) throw new ShellSyntaxError("unterminated double quote")
        i++
      } else if (ch === "$") i = readDollar(s, i, w, false)
      else if (ch === "`") i = readBacktick(s, i, w)
      else {
        if (ch === "*" || ch === "?" || ch === "[") w.glob = true
        else if (ch === "{") w.brace = true
        w.text += ch
        i++
      }
    }
    // `2>file`, `2>&1`: digits glued to a redirection are its file descriptor.
    if (!expectTarget && /^[0-9]+$/.test(s.slice(start, i)) && (s[i] === ">" || s[i] === "<") && s[i + 1] !== "(") {
      const op = REDIRECT_OPS.find((o) => s.startsWith(o, i) && !o.startsWith("&"))!
      expectTarget = { fd: s.slice(start, i), op }
      i += op.length
      continue
    }
    pushWord(w, start, i)
  }
  if (expectTarget) throw new ShellSyntaxError("redirection without a target")
  readHeredocBodies()
  return tokens
}
