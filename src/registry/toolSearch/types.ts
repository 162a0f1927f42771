/**
 * The plain shapes the on-demand tool disclosure logic works on. The registry service maps its
 * tools onto these; nothing here knows about Effect services or the registry itself.
 *
 * @since 0.1.0
 */

/** A tool as keyword search sees it: names, description, optional hint, and the MCP server if any. */
export interface SearchableTool {
  readonly name: string
  readonly displayName: string
  readonly description: string
  readonly searchHint?: string | undefined
  /** Set for MCP tools. */
  readonly serverName?: string | undefined
}

/** One deferred tool as the deferred-tools reminder lists it. */
export interface DeferredToolSummary {
  readonly name: string
  readonly description: string
  /** Set for MCP tools. */
  readonly serverName?: string | undefined
}

/** True when the tool came from an MCP server (its `serverName` is set and non-empty). */
export const isMcpTool = (tool: { readonly serverName?: string | undefined }): boolean =>
  typeof tool.serverName === "string" && tool.serverName.length > 0
