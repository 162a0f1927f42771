/**
 * Validation and compilation of a grep pattern: the canonical JS matcher plus the same
 * pattern emitted for each backend's dialect.
 *
 * @since 0.1.0
 */
import { compileRegexEagerly } from "../ignore/patterns.js"
import { patternTooLong, patternUncompilable, quotePattern } from "../patternLimits.js"
import { emitPattern, type Dialect, type EmitOutcome } from "./emit.js"
import { parsePattern } from "./parse.js"

/** A validated pattern, ready for every backend. @category models */
export interface CompiledPattern {
  /** The pattern as the model wrote it. */
  readonly pattern: string
  /** The canonical matcher: case-insensitive unless {@link caseSensitive}, applied to one line without its line ending. */
  readonly regex: RegExp
  /** Letters match only in their own case (backends drop `-i` / `--ignore-case`). */
  readonly caseSensitive: boolean
  /** Set when the pattern uses a construct only the JS engine runs as written (all backends then use JS). */
  readonly jsOnlyReason: string | undefined
  /** The pattern in a backend's dialect, or why that dialect cannot express it exactly. */
  readonly emit: (dialect: Exclude<Dialect, "js">) => EmitOutcome
}

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e))

/**
 * Returns the model-facing message for an invalid pattern (over `MAX_SEARCH_PATTERN_CHARS`, or
 * one `new RegExp` rejects, or one too large to run once compiled), or undefined. @category validation
 */
export const validateGrepPattern = (pattern: string): string | undefined => {
  const tooLong = patternTooLong("pattern", pattern)
  if (tooLong !== undefined) return tooLong
  try {
    // V8 compiles on first use: only then does "Regular expression too large" surface
    new RegExp(pattern).test("")
    return undefined
  } catch (e) {
    return `Invalid regular expression pattern: ${quotePattern(pattern)}. Error: ${quotePattern(errorMessage(e))}`
  }
}

const compileJs = (source: string, flags: string): RegExp | undefined => compileRegexEagerly(source, flags)

/** Compiles a pattern for every dialect; fails with the {@link validateGrepPattern} message. @category constructors */
export const compileGrepPattern = (pattern: string, caseSensitive = false): { readonly ok: true; readonly value: CompiledPattern } | { readonly ok: false; readonly message: string } => {
  const invalid = validateGrepPattern(pattern)
  if (invalid !== undefined) return { ok: false, message: invalid }
  const raw = compileRegexEagerly(pattern, caseSensitive ? "" : "i")
  if (raw === undefined) return { ok: false, message: patternUncompilable("pattern", pattern) }
  const parsed = parsePattern(pattern)
  if (parsed._tag === "Unsupported") {
    const reason = `the pattern uses a construct only the JS engine runs as written (${parsed.reason})`
    return {
      ok: true,
      value: { pattern, regex: raw, caseSensitive, jsOnlyReason: reason, emit: () => ({ _tag: "Unsupported", reason }) }
    }
  }
  const js = emitPattern(parsed.node, "js")
  const regex = js._tag === "Emitted" ? compileJs(js.source, caseSensitive ? "u" : "iu") : undefined
  if (regex === undefined) {
    const reason = "the pattern could not be re-emitted for the JS engine"
    return {
      ok: true,
      value: { pattern, regex: raw, caseSensitive, jsOnlyReason: reason, emit: () => ({ _tag: "Unsupported", reason }) }
    }
  }
  return { ok: true, value: { pattern, regex, caseSensitive, jsOnlyReason: undefined, emit: (d) => emitPattern(parsed.node, d, !caseSensitive) } }
}
