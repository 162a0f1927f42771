/**
 * Emitters from the dialect-neutral {@link RegexNode} tree to the four regex dialects the grep
 * backends speak: JavaScript (`u` mode), Rust (ripgrep), PCRE (`grep -P`, `git grep -P`) and
 * POSIX ERE (`grep -E`, `git grep -E`).
 *
 * Every emitter spells out the same line semantics: classes (`\d`, `\w`, `\s`, `.`, `[...]`)
 * are explicit code point sets and never match `\r` or `\n`; `\b` is the ASCII word boundary;
 * `$` matches before a trailing `\r`. A construct a dialect cannot express exactly makes the
 * emitter return `Unsupported`, and the backend then runs the JS engine instead. ERE output is
 * meant to run *without* `-i`: it spells out the case closure of every literal and class.
 *
 * @since 0.1.0
 */
import {
  type CharSet,
  type ClassSpec,
  LINE_BREAKS,
  type RegexNode,
  subtract,
  SURROGATES,
  union
} from "./ast.js"
import { caseClosure } from "./fold.js"

/** A regex dialect. @category models */
export type Dialect = "js" | "rust" | "pcre" | "ere"

/** Result of {@link emitPattern}. @category models */
export type EmitOutcome =
  | { readonly _tag: "Emitted"; readonly source: string }
  | { readonly _tag: "Unsupported"; readonly reason: string }

class Unsupported {
  constructor(readonly reason: string) {}
}

const REPEAT_LIMIT: Readonly<Record<Dialect, number>> = { js: Infinity, rust: 1000, pcre: 65535, ere: 255 }
const NUL: CharSet = [[0, 0]]
const CR: CharSet = [[0x0d, 0x0d]]
const LF: CharSet = [[0x0a, 0x0a]]
const ERE_SPECIALS = new Set([..."\\.[]()*+?{}|^$"])
const BRACKET_SPECIALS: CharSet = [[0x2d, 0x2d], [0x5b, 0x5b], [0x5d, 0x5e]]
const isAlnum = (cp: number): boolean =>
  (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a)
const hex = (cp: number): string => cp.toString(16).toUpperCase()

const PCRE_WORD = "[0-9A-Za-z_]"
const PCRE_BOUNDARY = `(?:(?<=${PCRE_WORD})(?!${PCRE_WORD})|(?<!${PCRE_WORD})(?=${PCRE_WORD}))`
const PCRE_NON_BOUNDARY = `(?:(?<=${PCRE_WORD})(?=${PCRE_WORD})|(?<!${PCRE_WORD})(?!${PCRE_WORD}))`

/** Fixed width of a node in characters, or undefined when it varies. */
const fixedWidth = (node: RegexNode): number | undefined => {
  switch (node._tag) {
    case "Char":
    case "Class":
      return 1
    case "Seq": {
      let total = 0
      for (const item of node.items) {
        const w = fixedWidth(item)
        if (w === undefined) return undefined
        total += w
      }
      return total
    }
    case "Alt": {
      const widths = node.alternatives.map(fixedWidth)
      const first = widths[0]
      return widths.every((w) => w !== undefined && w === first) ? first : undefined
    }
    case "Group":
      return fixedWidth(node.body)
    case "Repeat": {
      const w = fixedWidth(node.body)
      return node.min === node.max && w !== undefined ? w * node.min : undefined
    }
    case "Backref":
      return undefined
    default:
      return 0
  }
}

class Emitter {
  /** `fold`: spell out case closures for ERE (a case-insensitive search run without `-i`). */
  constructor(readonly dialect: Dialect, readonly fold: boolean = true) {}

  fail(reason: string): never {
    throw new Unsupported(reason)
  }

  literal(cp: number): string {
    switch (this.dialect) {
      case "js":
        return isAlnum(cp) ? String.fromCharCode(cp) : `\\u{${hex(cp)}}`
      case "rust":
        if (cp === 0x0a || cp === 0x0d) this.fail("ripgrep rejects a literal line break")
        if (isAlnum(cp)) return String.fromCharCode(cp)
        return cp >= 0x80 ? String.fromCodePoint(cp) : `\\x{${hex(cp)}}`
      case "pcre":
        if (cp === 0x0a) return "(?!)"
        if (cp === 0x0d) return "(?:\\r(?!$))"
        return isAlnum(cp) ? String.fromCharCode(cp) : `\\x{${hex(cp)}}`
      case "ere": {
        if (cp === 0x0a || cp === 0x0d || cp === 0) this.fail("ERE cannot express a literal line break or NUL")
        const variants = this.fold ? caseClosure([[cp, cp]]) : [[cp, cp] as const]
        if (variants.length > 1 || variants[0]![0] !== variants[0]![1]) return this.bracketEre(variants, false)
        const c = String.fromCodePoint(cp)
        return ERE_SPECIALS.has(c) ? `\\${c}` : c
      }
    }
  }

  rangeList(set: CharSet, one: (cp: number) => string): string {
    return set.map(([lo, hi]) => (lo === hi ? one(lo) : `${one(lo)}-${one(hi)}`)).join("")
  }

  /** ERE bracket body: ASCII ranges as ranges, non-ASCII characters one by one (glibc's C.UTF-8 rejects them as range ends). */
  ereItems(set: CharSet): string {
    let out = ""
    let enumerated = 0
    for (const [lo, hi] of set) {
      if (lo < 0x80) out += this.rangeList([[lo, Math.min(hi, 0x7f)]], (cp) => String.fromCodePoint(cp))
      for (let cp = Math.max(lo, 0x80); cp <= hi; cp++) {
        if (++enumerated > 512) this.fail("ERE cannot express a large non-ASCII range")
        out += String.fromCodePoint(cp)
      }
    }
    return out
  }

  bracketEre(set: CharSet, negated: boolean): string {
    const has = (cp: number) => set.some(([lo, hi]) => cp >= lo && cp <= hi)
    const core = this.ereItems(subtract(set, BRACKET_SPECIALS))
    const head = `${has(0x5d) ? "]" : ""}${core}${has(0x5b) ? "[" : ""}`
    if (!negated && head === "" && has(0x5e)) return has(0x2d) ? "[-^]" : "\\^"
    return `[${negated ? "^" : ""}${head}${has(0x5e) ? "^" : ""}${has(0x2d) ? "-" : ""}]`
  }

  klass(spec: ClassSpec): string {
    const d = this.dialect
    if (!spec.negated) {
      const set = subtract(spec.set, union(union(LINE_BREAKS, SURROGATES), d === "ere" ? NUL : []))
      if (set.length === 0) {
        if (d === "js") return "[]"
        if (d === "pcre") return "(?!)"
        return this.fail("empty character class")
      }
      if (d === "ere") return this.bracketEre(this.fold ? caseClosure(set) : set, false)
      return `[${this.rangeList(set, d === "js" ? (cp) => `\\u{${hex(cp)}}` : (cp) => `\\x{${hex(cp)}}`)}]`
    }
    if (d === "js") return `[^${this.rangeList(union(union(spec.set, LINE_BREAKS), SURROGATES), (cp) => `\\u{${hex(cp)}}`)}]`
    if (d === "ere") return this.bracketEre(subtract(union(this.fold ? caseClosure(spec.set) : spec.set, CR), union(union(LF, NUL), SURROGATES)), true)
    return `[^${this.rangeList(subtract(union(spec.set, LINE_BREAKS), SURROGATES), (cp) => `\\x{${hex(cp)}}`)}]`
  }

  group(body: string, capture: boolean): string {
    if (this.dialect === "ere") return `(${body})`
    return capture && this.dialect !== "rust" ? `(${body})` : `(?:${body})`
  }

  emit(node: RegexNode): string {
    const d = this.dialect
    switch (node._tag) {
      case "Empty":
        return d === "ere" ? "()" : ""
      case "Char":
        return this.literal(node.cp)
      case "Class":
        return this.klass(node.spec)
      case "Seq":
        return node.items.map((item) => this.emit(item)).join("")
      case "Alt":
        return this.group(node.alternatives.map((a) => this.emit(a)).join("|"), false)
      case "Group":
        return this.group(this.emit(node.body), node.capture)
      case "Repeat": {
        const limit = REPEAT_LIMIT[d]
        if (node.min > limit || (node.max !== Infinity && node.max > limit)) this.fail("repetition count too large")
        const body = node.body._tag === "Class" || node.body._tag === "Group"
          ? this.emit(node.body)
          : this.group(this.emit(node.body), false)
        const q = node.max === Infinity
          ? `{${node.min},}`
          : node.min === node.max ? `{${node.min}}` : `{${node.min},${node.max}}`
        return body + q
      }
      case "LineStart":
        return "^"
      case "LineEnd":
        if (d === "pcre") return "(?=\\r?$)"
        if (d === "ere") return "\r?$"
        return "$"
      case "WordBoundary":
        if (d === "js") return node.negated ? "\\B" : "\\b"
        if (d === "rust") return node.negated ? "(?-u:\\B)" : "(?-u:\\b)"
        if (d === "pcre") return node.negated ? PCRE_NON_BOUNDARY : PCRE_BOUNDARY
        return this.fail("ERE has no word boundary")
      case "Look": {
        if (d === "rust" || d === "ere") return this.fail("lookaround")
        if (d === "pcre" && node.behind && fixedWidth(node.body) === undefined) this.fail("variable-length lookbehind")
        const open = `(?${node.behind ? "<" : ""}${node.negated ? "!" : "="}`
        return `${open}${this.emit(node.body)})`
      }
      case "Backref":
        if (d === "js") return `(?:\\${node.group})`
        if (d === "pcre") return `(?:\\g{${node.group}})`
        return this.fail("back-reference")
    }
  }
}

/** Emits a parsed pattern in one dialect, or says why the dialect cannot express it. @category emitting */
export const emitPattern = (node: RegexNode, dialect: Dialect, fold = true): EmitOutcome => {
  try {
    return { _tag: "Emitted", source: new Emitter(dialect, fold).emit(node) }
  } catch (e) {
    if (e instanceof Unsupported) return { _tag: "Unsupported", reason: e.reason }
    throw e
  }
}
