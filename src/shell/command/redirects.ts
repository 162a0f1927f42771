/**
 * What a redirection does to the file system: nothing worth asking about (a here-document, a
 * descriptor duplication, `/dev/null`), a read of its target, or a write to it. The permission
 * subjects, the read-only proof and the path checks all classify redirections here, so they
 * cannot disagree.
 *
 * @since 0.1.0
 */
import type { Redirect } from "./syntax.js"

/** How a redirection touches its target. @category models */
export type RedirectEffect = "harmless" | "read" | "write"

/** Write targets that are not files anyone keeps. @category constants */
export const HARMLESS_WRITE_TARGETS: ReadonlySet<string> = new Set(["/dev/null", "/dev/stdout", "/dev/stderr"])

/** Read sources that hold nothing of anyone's (`< /dev/null`, `diff f /dev/null`). @category constants */
export const HARMLESS_READ_SOURCES: ReadonlySet<string> = new Set(["/dev/null", "/dev/stdin"])

// `2>&1`, `>&-` (close), `2>&1-` (move): descriptor operations, no file opened.
const DESCRIPTOR = /^(?:[0-9]+-?|-)$/

const plainTarget = (r: Redirect): string | undefined => {
  const t = r.target
  if (!t || t.expands || t.glob || t.brace || t.substitutions.length > 0) return undefined
  return t.text
}

/**
 * Classifies a redirection. Here-documents and here-strings are harmless (their bodies'
 * substitutions are counted elsewhere); `>&WORD` with a file name is bash's `&>WORD`; `<>`
 * opens for writing too. A target that is not a plain word (a variable, a glob, a substitution)
 * is never harmless.
 *
 * @category predicates
 */
export const redirectEffect = (r: Redirect): RedirectEffect => {
  switch (r.op) {
    case "<<":
    case "<<-":
    case "<<<":
      return "harmless"
    case "<": {
      const target = plainTarget(r)
      return target !== undefined && HARMLESS_READ_SOURCES.has(target) ? "harmless" : "read"
    }
    case "<&":
    case ">&": {
      const target = plainTarget(r)
      if (target !== undefined && DESCRIPTOR.test(target)) return "harmless"
      if (r.op === "<&") return "read"
      return target !== undefined && HARMLESS_WRITE_TARGETS.has(target) ? "harmless" : "write"
    }
    default: {
      const target = plainTarget(r)
      return target !== undefined && HARMLESS_WRITE_TARGETS.has(target) ? "harmless" : "write"
    }
  }
}
