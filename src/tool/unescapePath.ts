/**
 * Shell-escape removal for path params (reference §3.2). It lives in the tool room because
 * `build` resolves declared path params with it, and the tool room is below the session room.
 *
 * @since 0.1.0
 */

const SHELL_ESCAPED = /\\([ \t()[\]{}&;|<>'"`$!*?#~=%^,])/g

/**
 * Removes shell escapes a model copied from a terminal (`my\ file.txt` → `my file.txt`,
 * `\(v2\)` → `(v2)`); a doubled backslash stays as it is. The input is trimmed first.
 * @category paths
 */
export const unescapePath = (input: string): string => {
  const trimmed = input.trim()
  if (!trimmed.includes("\\")) return trimmed
  // Protect literal double backslashes, then drop one backslash before shell metacharacters.
  return trimmed.split("\\\\").map((part) => part.replace(SHELL_ESCAPED, "$1")).join("\\\\")
}
