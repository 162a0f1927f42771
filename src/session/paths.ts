/**
 * Path helpers shared by the file and search tools: shell-escape removal (reference §3.2, defined
 * in the tool room, which resolves path params) and the short relative form used in descriptions,
 * titles and results.
 *
 * @since 0.1.0
 */
import * as path from "node:path"

export { unescapePath } from "../tool/index.js"

/** A `//`, `/./` or `/../` segment, or a trailing `/`, `/.`, `/..`: the path is not normalised. */
const NOT_NORMALISED = /\/\.{0,2}(?:\/|$)/

/** `abs` relative to `root` when inside it (`.` for the root itself), else `abs`. @category paths */
export const displayPath = (root: string, abs: string): string => {
  // fast path (what `path.relative` returns, without resolving both paths): a normalised absolute
  // path below the root; the root, a prefix of it ending at a separator, is then normalised too
  if (path.sep === "/" && root.startsWith("/") && abs.startsWith(root) && abs.charCodeAt(root.length) === 47 && !NOT_NORMALISED.test(abs)) {
    const rel = abs.slice(root.length + 1)
    if (!rel.startsWith("..")) return rel
  }
  const rel = path.relative(root, abs)
  if (rel === "") return "."
  return rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel.split(path.sep).join("/")
}
