/**
 * Provider-safe tool names and the MCP tool name forms (reference §13.2).
 *
 * @since 0.1.0
 */

/** The longest tool name strict providers accept. */
export const MAX_TOOL_NAME_LENGTH = 63

/** The prefix of every MCP tool name. */
export const MCP_TOOL_PREFIX = "mcp__"

const PROVIDER_SAFE_NAME = /^[A-Za-z][A-Za-z0-9_-]*$/

/** True when a name is at most 63 chars and matches `^[A-Za-z][A-Za-z0-9_-]*$`. */
export const isProviderSafeToolName = (name: string): boolean =>
  name.length <= MAX_TOOL_NAME_LENGTH && PROVIDER_SAFE_NAME.test(name)

/** FNV-1a 32-bit over UTF-16 code units, in base 36, left-padded with `0` to 7 chars. */
export const toolNameHash = (name: string): string => {
  let h = 2166136261
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619)
  return (h >>> 0).toString(36).padStart(7, "0")
}

/** Replaces every char outside `[A-Za-z0-9_-]` with `_` and prefixes `tool_` unless it starts with a letter. */
export const sanitizeToolNameForProvider = (name: string): string => {
  const sanitized = name.replace(/[^A-Za-z0-9_-]/g, "_")
  return /^[A-Za-z]/.test(sanitized) ? sanitized : `tool_${sanitized}`
}

/** A safe name unchanged; otherwise the sanitised name cut to fit 63 chars with `_` + hash of the original. */
export const normalizeToolNameForProvider = (name: string): string => {
  if (isProviderSafeToolName(name)) return name
  const suffix = `_${toolNameHash(name)}`
  return sanitizeToolNameForProvider(name).slice(0, MAX_TOOL_NAME_LENGTH - suffix.length) + suffix
}

/** The reference's name for the same function (`generateValidName`). */
export const generateValidName = normalizeToolNameForProvider

/** Normalises names that start with `mcp__`; leaves every other name unchanged. */
export const normalizeMcpToolName = (name: string): string =>
  name.startsWith(MCP_TOOL_PREFIX) ? normalizeToolNameForProvider(name) : name

/** The pre-normalisation spelling: chars outside `[A-Za-z0-9_.-]` → `_`, > 63 chars → first 28 + `___` + last 32. */
export const generateLegacyMcpToolName = (name: string): string => {
  const legacy = name.replace(/[^A-Za-z0-9_.-]/g, "_")
  return legacy.length > MAX_TOOL_NAME_LENGTH ? `${legacy.slice(0, 28)}___${legacy.slice(-32)}` : legacy
}

/** The raw fully qualified identity `mcp__<server>__<tool>`, before normalisation. */
export const rawMcpToolName = (serverName: string, serverToolName: string): string =>
  `${MCP_TOOL_PREFIX}${serverName}__${serverToolName}`

/** The registered name of an MCP tool: `mcp__<server>__<tool>` made provider-safe. */
export const mcpToolName = (serverName: string, serverToolName: string): string =>
  normalizeToolNameForProvider(rawMcpToolName(serverName, serverToolName))
