/**
 * Wildcard patterns for permission rules: `*` any run of characters except `/`, `**` any run
 * including `/`, `?` one character. Tool names and commands use the same matcher, where `/` is an
 * ordinary character for `*` (so `git status*` matches `git status --short`).
 *
 * @since 0.1.0
 */

const escape = (c: string) => (/[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c)

/** Compiles a glob to an anchored RegExp. `pathMode` keeps `*` within one path segment. @category constructors */
export const globToRegExp = (glob: string, pathMode: boolean): RegExp => {
  let out = ""
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // `**/` also matches nothing, so `src/**/a.ts` matches `src/a.ts`
        if (glob[i + 2] === "/") {
          out += "(?:.*/)?"
          i += 2
        } else {
          out += ".*"
          i += 1
        }
      } else out += pathMode ? "[^/]*" : ".*"
    } else if (c === "?") out += pathMode ? "[^/]" : "."
    else out += escape(c)
  }
  return new RegExp(`^${out}$`, "s")
}

/** True when `value` matches the glob. @category predicates */
export const matchesGlob = (glob: string, value: string, pathMode: boolean): boolean =>
  globToRegExp(glob, pathMode).test(value)
