/**
 * Gitignore-style glob patterns: the rules of `.gitignore` / `.toolwrightignore` files and the
 * `glob` filter of `grep_search` (ripgrep's `--iglob` semantics).
 *
 * `*` and `?` never cross `/`; `**` spans directories only as a whole path component; a pattern
 * without a `/` (a trailing one aside) matches the base name at any depth, otherwise it is
 * anchored to the directory it is relative to. Filter globs also accept `{a,b}` alternation.
 *
 * @since 0.1.0
 */

/** One rule of an ignore file. @category models */
export interface IgnoreRule {
  /** Matches the path relative to the ignore file's directory. */
  readonly regex: RegExp
  /** For a pattern without a `/`: the same test on the base name alone (a shorter string to scan). */
  readonly nameRegex?: RegExp
  readonly negated: boolean
  readonly dirOnly: boolean
}

/** A compiled filter glob (`*.ts`, `!*.test.ts`, `src/**`, `*.{ts,tsx}`). @category models */
export interface PathGlob {
  readonly glob: string
  readonly negated: boolean
  readonly dirOnly: boolean
  readonly regex: RegExp
}

/**
 * Builds a regex and runs it once: V8 compiles a pattern on first use, and only then throws
 * "Regular expression too large" (sources over ~60 KB). Undefined when either step throws, so no
 * later `test` — inside a stream callback, say — can throw it. @category patterns
 */
export const compileRegexEagerly = (source: string, flags = ""): RegExp | undefined => {
  try {
    const regex = new RegExp(source, flags)
    regex.test("")
    return regex
  } catch {
    return undefined
  }
}

/** A line of an ignore file that could not be turned into a rule (it is skipped). @category models */
export interface SkippedIgnoreLine {
  /** 1-based line number in the file. */
  readonly line: number
  readonly length: number
}

const REGEX_SPECIALS = /[.*+?^${}()|[\]\\/-]/g
const escapeRegex = (s: string): string => s.replace(REGEX_SPECIALS, "\\$&")

const POSIX_CLASSES: Readonly<Record<string, string>> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", blank: " \\t", cntrl: "\\x00-\\x1f\\x7f", digit: "0-9",
  graph: "!-~", lower: "a-z", print: " -~", punct: "!-\\/:-@\\[-`{-~", space: " \\t\\n\\r\\v\\f",
  upper: "A-Z", xdigit: "0-9A-Fa-f"
}

/** Translates a `[...]` bracket starting at `start`; undefined when it is not a closed bracket. */
const bracket = (glob: string, start: number): { readonly source: string; readonly end: number } | undefined => {
  let i = start + 1
  const negated = glob[i] === "!" || glob[i] === "^"
  if (negated) i++
  let body = ""
  let first = true
  while (i < glob.length && (glob[i] !== "]" || first)) {
    first = false
    const c = glob[i]!
    if (c === "[" && glob[i + 1] === ":") {
      const close = glob.indexOf(":]", i + 2)
      const cls = close < 0 ? undefined : POSIX_CLASSES[glob.slice(i + 2, close)]
      if (cls !== undefined) {
        body += cls
        i = close + 2
        continue
      }
    }
    if (c === "\\" && i + 1 < glob.length) {
      body += escapeRegex(glob[i + 1]!)
      i += 2
      continue
    }
    body += c === "-" && body !== "" && glob[i + 1] !== "]" ? "-" : escapeRegex(c)
    i++
  }
  if (i >= glob.length) return undefined
  return { source: negated ? `[^/${body}]` : `(?!/)[${body}]`, end: i + 1 }
}

/** Index of the `}` closing the brace group opened at `start`, or -1. */
const closingBrace = (glob: string, start: number): number => {
  let depth = 0
  for (let i = start; i < glob.length; i++) {
    const c = glob[i]
    if (c === "\\") i++
    else if (c === "{") depth++
    else if (c === "}" && --depth === 0) return i
  }
  return -1
}

/** Splits a brace body on its top-level commas. */
const splitAlternatives = (body: string): Array<string> => {
  const out: Array<string> = []
  let depth = 0
  let current = ""
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (c === "\\") {
      current += c + (body[i + 1] ?? "")
      i++
      continue
    }
    if (c === "{") depth++
    if (c === "}") depth--
    if (c === "," && depth === 0) {
      out.push(current)
      current = ""
    } else current += c
  }
  out.push(current)
  return out
}

/** Translates a glob body (no anchoring) into a JS regex source. @category patterns */
export const globSource = (glob: string, options: { readonly braces: boolean }): string => {
  let out = ""
  let i = 0
  while (i < glob.length) {
    const c = glob[i]!
    if (c === "\\") {
      out += escapeRegex(glob[i + 1] ?? "\\")
      i += 2
    } else if (c === "*") {
      let j = i
      while (glob[j] === "*") j++
      const stars = j - i
      const before = i === 0 || glob[i - 1] === "/"
      const after = j === glob.length || glob[j] === "/"
      if (stars >= 2 && before && after) {
        if (j === glob.length) out += ".*"
        else {
          out += "(?:.*/)?"
          j++ // the slash is part of `**/`
        }
      } else out += "[^/]*"
      i = j
    } else if (c === "?") {
      out += "[^/]"
      i++
    } else if (c === "[") {
      const b = bracket(glob, i)
      out += b === undefined ? "\\[" : b.source
      i = b === undefined ? i + 1 : b.end
    } else if (c === "{" && options.braces) {
      const close = closingBrace(glob, i)
      if (close < 0) {
        out += "\\{"
        i++
      } else {
        out += `(?:${splitAlternatives(glob.slice(i + 1, close)).map((a) => globSource(a, options)).join("|")})`
        i = close + 1
      }
    } else {
      out += escapeRegex(c)
      i++
    }
  }
  return out
}

/** Anchors a glob: with a `/` it is relative to its base directory, without one it matches a base name at any depth. */
const anchored = (body: string, options: { readonly braces: boolean }): string => {
  const hasSlash = body.includes("/")
  const trimmed = body.startsWith("/") ? body.slice(1) : body
  return hasSlash ? `^${globSource(trimmed, options)}$` : `^(?:.*/)?${globSource(trimmed, options)}$`
}

/**
 * Parses the text of a `.gitignore`-syntax file into rules (comments, `!`, trailing `/`, escapes).
 * A line whose pattern cannot compile (too large for the regex engine) is skipped and listed in
 * `skipped`. @category patterns
 */
export const parseIgnoreFileReport = (
  content: string
): { readonly rules: ReadonlyArray<IgnoreRule>; readonly skipped: ReadonlyArray<SkippedIgnoreLine> } => {
  const rules: Array<IgnoreRule> = []
  const skipped: Array<SkippedIgnoreLine> = []
  const text = content.startsWith("\uFEFF") ? content.slice(1) : content
  for (const [index, rawLine] of text.split("\n").entries()) {
    let line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine
    if (line === "" || line.startsWith("#")) continue
    while (line.endsWith(" ") && !line.endsWith("\\ ")) line = line.slice(0, -1)
    const negated = line.startsWith("!")
    if (negated) line = line.slice(1)
    const dirOnly = line.endsWith("/") && !line.endsWith("\\/")
    if (dirOnly) line = line.slice(0, -1)
    if (line === "" || line === "/") continue
    const regex = compileRegexEagerly(anchored(line, { braces: false }))
    // `^(?:.*/)?G$` on a path is `^G$` on its base name: G cannot match a `/` (a bare `**` matches anything either way)
    const nameRegex = line.includes("/") ? undefined : compileRegexEagerly(`^${globSource(line, { braces: false })}$`)
    if (regex === undefined || (!line.includes("/") && nameRegex === undefined)) {
      skipped.push({ line: index + 1, length: rawLine.length })
      continue
    }
    rules.push(nameRegex === undefined ? { regex, negated, dirOnly } : { regex, nameRegex, negated, dirOnly })
  }
  return { rules, skipped }
}

/** The rules of a `.gitignore`-syntax file ({@link parseIgnoreFileReport} without the skipped lines). @category patterns */
export const parseIgnoreFile = (content: string): ReadonlyArray<IgnoreRule> => parseIgnoreFileReport(content).rules

/**
 * Compiles a grep `glob` filter (case-insensitive; a leading `!` excludes); undefined when the
 * regex engine cannot compile it (see {@link compileRegexEagerly}). @category patterns
 */
export const compilePathGlob = (glob: string): PathGlob | undefined => {
  const negated = glob.startsWith("!")
  let body = negated ? glob.slice(1) : glob
  const dirOnly = body.endsWith("/")
  if (dirOnly) body = body.slice(0, -1)
  const regex = compileRegexEagerly(anchored(body, { braces: true }), "i")
  return regex === undefined ? undefined : { glob, negated, dirOnly, regex }
}

/** True when a path relative to the search root passes the filter glob (`isDir` for directories). @category patterns */
export const pathGlobAllows = (glob: PathGlob, relPath: string, isDir: boolean): boolean => {
  const matches = (!glob.dirOnly || isDir) && glob.regex.test(relPath)
  if (glob.negated) return !matches
  return isDir || matches
}

/** True when the glob is plain enough to hand to ripgrep's `--iglob` with identical meaning. @category patterns */
export const isSimpleBasenameGlob = (glob: string): boolean =>
  /^!?[A-Za-z0-9._\-*?,{}]+$/.test(glob) && !glob.includes("**") && !/\{[^}]*\{/.test(glob) && !glob.includes("{}") &&
  (glob.match(/\{/g) ?? []).length === (glob.match(/\}/g) ?? []).length
