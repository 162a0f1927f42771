/**
 * Which discovered tools a server config admits (reference §13.4 `isEnabled`).
 *
 * @since 0.1.0
 */

/**
 * Nameless tools are never admitted; `excludeTools` wins; without `includeTools` every tool is
 * admitted; otherwise a tool is admitted when an entry equals its name or starts with `name(`.
 *
 * @category predicates
 */
export const isToolEnabled = (
  name: string,
  includeTools: ReadonlyArray<string> | undefined,
  excludeTools: ReadonlyArray<string>
): boolean => {
  if (name === "") return false
  if (excludeTools.includes(name)) return false
  if (includeTools === undefined) return true
  return includeTools.some((entry) => entry === name || entry.startsWith(`${name}(`))
}
