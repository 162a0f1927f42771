/**
 * A parser for JavaScript regular expressions (the non-unicode, Annex B grammar that
 * `new RegExp(pattern)` accepts) into the dialect-neutral {@link RegexNode} tree.
 *
 * The parser only sees patterns that already compiled with `new RegExp(pattern)`. Constructs
 * whose meaning would change when re-emitted (a quantified astral character, a lone
 * surrogate, quantified lookarounds, inline modifiers) are reported as unsupported, and the
 * caller then runs the pattern as-is on the JS engine.
 *
 * @since 0.1.0
 */
import {
  type ClassSpec,
  DIGIT,
  DOT_EXCLUDED,
  type RegexNode,
  SPACE,
  unionSpecs,
  WORD
} from "./ast.js"

/** Result of {@link parsePattern}. @category models */
export type ParseOutcome =
  | { readonly _tag: "Parsed"; readonly node: RegexNode; readonly groups: number }
  | { readonly _tag: "Unsupported"; readonly reason: string }

class Unsupported {
  constructor(readonly reason: string) {}
}

type ClassAtom = { readonly kind: "char"; readonly cp: number } | { readonly kind: "set"; readonly spec: ClassSpec }

const escapeSet = (c: string): ClassSpec | undefined => {
  switch (c) {
    case "d": return { negated: false, set: DIGIT }
    case "D": return { negated: true, set: DIGIT }
    case "w": return { negated: false, set: WORD }
    case "W": return { negated: true, set: WORD }
    case "s": return { negated: false, set: SPACE }
    case "S": return { negated: true, set: SPACE }
    default: return undefined
  }
}

const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 9, n: 10, v: 11, f: 12, r: 13 }
const isHex = (s: string): boolean => /^[0-9a-fA-F]+$/.test(s)
const isHigh = (u: number): boolean => u >= 0xd800 && u <= 0xdbff
const isLow = (u: number): boolean => u >= 0xdc00 && u <= 0xdfff

/** The capturing groups of a pattern in order (`name` for named ones), skipping escapes and classes. */
const scanGroups = (p: string): ReadonlyArray<{ readonly name: string | undefined }> => {
  const groups: Array<{ readonly name: string | undefined }> = []
  let inClass = false
  for (let i = 0; i < p.length; i++) {
    const c = p[i]
    if (c === "\\") {
      i++
    } else if (inClass) {
      if (c === "]") inClass = false
    } else if (c === "[") {
      let j = i + 1
      if (p[j] === "^") j++
      if (p[j] === "]") i = j // `[]` and `[^]` close at once
      else {
        inClass = true
        i = j - 1
      }
    } else if (c === "(") {
      if (p[i + 1] !== "?") groups.push({ name: undefined })
      else if (p[i + 2] === "<" && p[i + 3] !== "=" && p[i + 3] !== "!") {
        groups.push({ name: p.slice(i + 3, p.indexOf(">", i + 3)) })
      }
    }
  }
  return groups
}

class Parser {
  pos = 0
  readonly groups: number
  readonly names: ReadonlyArray<string | undefined>
  constructor(readonly p: string, captures: ReadonlyArray<{ readonly name: string | undefined }>) {
    this.groups = captures.length
    this.names = captures.map((g) => g.name)
  }

  fail(reason: string): never {
    throw new Unsupported(reason)
  }

  disjunction(): RegexNode {
    const alternatives = [this.alternative()]
    while (this.p[this.pos] === "|") {
      this.pos++
      alternatives.push(this.alternative())
    }
    return alternatives.length === 1 ? alternatives[0]! : { _tag: "Alt", alternatives }
  }

  alternative(): RegexNode {
    const items: Array<RegexNode> = []
    while (this.pos < this.p.length && this.p[this.pos] !== "|" && this.p[this.pos] !== ")") items.push(this.term())
    if (items.length === 0) return { _tag: "Empty" }
    return items.length === 1 ? items[0]! : { _tag: "Seq", items }
  }

  quantifierAt(pos: number): { readonly min: number; readonly max: number; readonly length: number } | undefined {
    const c = this.p[pos]
    if (c === "*") return { min: 0, max: Infinity, length: 1 }
    if (c === "+") return { min: 1, max: Infinity, length: 1 }
    if (c === "?") return { min: 0, max: 1, length: 1 }
    if (c !== "{") return undefined
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(pos))
    if (m === null) return undefined
    const min = Number(m[1])
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3])
    if (min > 1e6 || (max !== Infinity && max > 1e6)) this.fail("repetition count too large")
    return { min, max, length: m[0].length }
  }

  noQuantifier(node: RegexNode): RegexNode {
    if (this.quantifierAt(this.pos) !== undefined) this.fail("quantified assertion")
    return node
  }

  quantified(atom: RegexNode, astral = false): RegexNode {
    const q = this.quantifierAt(this.pos)
    if (q === undefined) return atom
    if (astral) this.fail("quantified astral character")
    this.pos += q.length
    if (this.p[this.pos] === "?") this.pos++ // laziness does not change which lines match
    if (this.quantifierAt(this.pos) !== undefined) this.fail("nothing to repeat")
    return { _tag: "Repeat", min: q.min, max: q.max, body: atom }
  }

  term(): RegexNode {
    const c = this.p[this.pos]!
    switch (c) {
      case "^":
        this.pos++
        return this.noQuantifier({ _tag: "LineStart" })
      case "$":
        this.pos++
        return this.noQuantifier({ _tag: "LineEnd" })
      case "(":
        return this.group()
      case ".":
        this.pos++
        return this.quantified({ _tag: "Class", spec: { negated: true, set: DOT_EXCLUDED } })
      case "[":
        return this.quantified(this.classNode())
      case "\\": {
        const next = this.p[this.pos + 1]
        if (next === "b" || next === "B") {
          this.pos += 2
          return this.noQuantifier({ _tag: "WordBoundary", negated: next === "B" })
        }
        return this.atomEscape()
      }
      case "*":
      case "+":
      case "?":
        return this.fail("nothing to repeat")
      case "{":
        if (this.quantifierAt(this.pos) !== undefined) this.fail("nothing to repeat")
        this.pos++
        return this.quantified({ _tag: "Char", cp: 0x7b })
      default:
        return this.literal()
    }
  }

  literal(): RegexNode {
    const u = this.p.charCodeAt(this.pos)
    if (isHigh(u) && isLow(this.p.charCodeAt(this.pos + 1))) {
      const cp = this.p.codePointAt(this.pos)!
      this.pos += 2
      return this.quantified({ _tag: "Char", cp }, true)
    }
    if (isHigh(u) || isLow(u)) this.fail("lone surrogate")
    this.pos++
    return this.quantified({ _tag: "Char", cp: u })
  }

  group(): RegexNode {
    const rest = this.p.slice(this.pos + 1)
    let look: { readonly behind: boolean; readonly negated: boolean } | undefined
    let capture = true
    if (rest.startsWith("?:")) {
      capture = false
      this.pos += 3
    } else if (rest.startsWith("?=") || rest.startsWith("?!")) {
      look = { behind: false, negated: rest[1] === "!" }
      this.pos += 3
    } else if (rest.startsWith("?<=") || rest.startsWith("?<!")) {
      look = { behind: true, negated: rest[2] === "!" }
      this.pos += 4
    } else if (rest.startsWith("?<")) {
      this.pos = this.p.indexOf(">", this.pos) + 1
    } else if (rest.startsWith("?")) {
      return this.fail("unsupported group syntax")
    } else {
      this.pos += 1
    }
    const body = this.disjunction()
    if (this.p[this.pos] !== ")") this.fail("unterminated group")
    this.pos++
    if (look !== undefined) return this.noQuantifier({ _tag: "Look", ...look, body })
    return this.quantified({ _tag: "Group", capture, body })
  }

  /** Legacy octal escape (Annex B) or identity escape of a digit; `pos` is at the first digit. */
  legacyOctal(): number {
    const first = this.p[this.pos]!
    if (first === "8" || first === "9") {
      this.pos++
      return first.charCodeAt(0)
    }
    const maxDigits = first <= "3" ? 3 : 2
    let digits = ""
    while (digits.length < maxDigits && /[0-7]/.test(this.p[this.pos] ?? "")) digits += this.p[this.pos++]
    return parseInt(digits, 8)
  }

  /** Shared character escapes (`\t`, `\x41`, `\u0041`, `\cA`, identity); `pos` is at the backslash. */
  characterEscape(inClass: boolean): number {
    const c = this.p[this.pos + 1]
    if (c === undefined) return this.fail("trailing backslash")
    const control = CONTROL_ESCAPES[c]
    if (control !== undefined) {
      this.pos += 2
      return control
    }
    if (c === "c") {
      const letter = this.p[this.pos + 2] ?? ""
      if (/[A-Za-z]/.test(letter) || (inClass && /[0-9_]/.test(letter))) {
        this.pos += 3
        return letter.charCodeAt(0) % 32
      }
      this.pos += 1 // `\c` without a letter is a literal backslash; the `c` is read next
      return 0x5c
    }
    const hex2 = this.p.slice(this.pos + 2, this.pos + 4)
    if (c === "x" && hex2.length === 2 && isHex(hex2)) {
      this.pos += 4
      return parseInt(this.p.slice(this.pos - 2, this.pos), 16)
    }
    const hex4 = this.p.slice(this.pos + 2, this.pos + 6)
    if (c === "u" && hex4.length === 4 && isHex(hex4)) {
      const unit = parseInt(this.p.slice(this.pos + 2, this.pos + 6), 16)
      this.pos += 6
      const low = /^\\u([0-9a-fA-F]{4})/.exec(this.p.slice(this.pos))
      if (isHigh(unit) && !inClass && low !== null && isLow(parseInt(low[1]!, 16))) {
        this.pos += 6
        return (unit - 0xd800) * 0x400 + (parseInt(low[1]!, 16) - 0xdc00) + 0x10000
      }
      if (isHigh(unit) || isLow(unit)) this.fail("lone surrogate escape")
      return unit
    }
    if (/[0-9]/.test(c)) {
      this.pos += 1
      if (c === "0" && !/[0-9]/.test(this.p[this.pos + 1] ?? "")) {
        this.pos += 1
        return 0
      }
      return this.legacyOctal()
    }
    const u = this.p.charCodeAt(this.pos + 1)
    if (isHigh(u) || isLow(u)) this.fail("escaped surrogate")
    this.pos += 2
    return u
  }

  atomEscape(): RegexNode {
    const c = this.p[this.pos + 1] ?? ""
    const set = escapeSet(c)
    if (set !== undefined) {
      this.pos += 2
      return this.quantified({ _tag: "Class", spec: set })
    }
    if (/[1-9]/.test(c)) {
      const digits = /^\d+/.exec(this.p.slice(this.pos + 1))![0]
      const n = Number(digits)
      if (n <= this.groups) {
        this.pos += 1 + digits.length
        return this.quantified({ _tag: "Backref", group: n })
      }
    }
    if (c === "k" && this.hasNames()) {
      const m = /^\\k<([^>]*)>/.exec(this.p.slice(this.pos))
      const index = m === null ? -1 : this.names.indexOf(m[1]!)
      if (m === null || index < 0) return this.fail("bad named back-reference")
      this.pos += m[0].length
      return this.quantified({ _tag: "Backref", group: index + 1 })
    }
    return this.quantified({ _tag: "Char", cp: this.characterEscape(false) })
  }

  hasNames(): boolean {
    return this.names.some((n) => n !== undefined)
  }

  classAtom(): ClassAtom {
    const c = this.p[this.pos]!
    if (c !== "\\") {
      const u = this.p.charCodeAt(this.pos)
      if (isHigh(u) || isLow(u)) this.fail("surrogate inside a character class")
      this.pos++
      return { kind: "char", cp: u }
    }
    const e = this.p[this.pos + 1] ?? ""
    const set = escapeSet(e)
    if (set !== undefined) {
      this.pos += 2
      return { kind: "set", spec: set }
    }
    if (e === "b") {
      this.pos += 2
      return { kind: "char", cp: 8 }
    }
    if (e === "-") {
      this.pos += 2
      return { kind: "char", cp: 0x2d }
    }
    if (e === "k" && this.hasNames()) this.fail("\\k inside a class")
    return { kind: "char", cp: this.characterEscape(true) }
  }

  classNode(): RegexNode {
    this.pos++
    const negated = this.p[this.pos] === "^"
    if (negated) this.pos++
    const items: Array<ClassSpec> = []
    const one = (cp: number): ClassSpec => ({ negated: false, set: [[cp, cp]] })
    const asSpec = (a: ClassAtom): ClassSpec => (a.kind === "set" ? a.spec : one(a.cp))
    while (this.p[this.pos] !== "]") {
      if (this.pos >= this.p.length) this.fail("unterminated class")
      const a = this.classAtom()
      const after = this.p[this.pos + 1]
      if (this.p[this.pos] === "-" && after !== undefined && after !== "]") {
        this.pos++
        const b = this.classAtom()
        if (a.kind === "char" && b.kind === "char") {
          if (a.cp > b.cp) this.fail("range out of order")
          items.push({ negated: false, set: [[a.cp, b.cp]] })
        } else {
          items.push(asSpec(a), one(0x2d), asSpec(b))
        }
      } else {
        items.push(asSpec(a))
      }
    }
    this.pos++
    const spec = unionSpecs(items)
    return { _tag: "Class", spec: negated ? { negated: !spec.negated, set: spec.set } : spec }
  }
}

/** Parses a JS regex source (already validated by `new RegExp`) into a {@link RegexNode}. @category parsing */
export const parsePattern = (pattern: string): ParseOutcome => {
  const parser = new Parser(pattern, scanGroups(pattern))
  try {
    const node = parser.disjunction()
    if (parser.pos !== pattern.length) return { _tag: "Unsupported", reason: "unbalanced parenthesis" }
    return { _tag: "Parsed", node, groups: parser.groups }
  } catch (e) {
    if (e instanceof Unsupported) return { _tag: "Unsupported", reason: e.reason }
    throw e
  }
}
