/**
 * MCP upstreams: the config, the resilient client, the workspace transport pool and budget, the
 * session gateway that registers upstream tools behind `tool_search`, and `read_mcp_resource`.
 *
 * @since 0.1.0
 */
export * from "./budget.js"
export * from "./config.js"
export * from "./constants.js"
export * from "./content.js"
export * from "./errors.js"
export * from "./filter.js"
export * from "./fingerprint.js"
export * from "./service.js"
export { layerForSession, makeGateway, type GatewayOptions } from "./gateway.js"
export { makeMcpPool, McpPool, type PoolEntry, type PoolOptions, type PoolSnapshot } from "./pool.js"
export { formatResourceContents, makeReadMcpResource, ReadMcpResourceParams, type ResolveServer, type ResourceReadData } from "./readMcpResource.js"
export { makeMcpTool, type McpCallError, type McpTool, toCallError } from "./tool.js"
export { makeUpstream, type Upstream, type UpstreamEvent, UpstreamFailure, type UpstreamStatus } from "./upstream.js"
export type { Catalog, DiscoveredTool } from "./discovery.js"
export type { LiveConnection, TransportKind } from "./connection.js"
