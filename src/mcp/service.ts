/**
 * The MCP gateway service of a session, as a tag and its models. This module is light (no MCP
 * client code), so a session without MCP servers never loads the client: the implementation in
 * `gateway.ts` is imported only when servers are configured.
 *
 * @since 0.1.0
 */
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { ExecutionFailed, type ExecutionTimeout, type McpToolError } from "../tool/index.js"
import type { McpConfig } from "./config.js"
import type { TransportKind } from "./connection.js"
import type { McpPool } from "./pool.js"
import type { ResolveServer } from "./readMcpResource.js"

/** Where a configured server stands in this session. @category models */
export interface ServerStatus {
  readonly name: string
  readonly state: "starting" | "connected" | "disconnected" | "failed" | "disabled" | "invalid" | "refused"
  readonly transport: TransportKind | undefined
  /** Tools registered from it. */
  readonly tools: number
  readonly message: string | undefined
}

/** Log levels of gateway events (MCP logging levels). @category models */
export type GatewayLevel = "debug" | "info" | "notice" | "warning" | "error"

/** Something a door may show or forward. @category models */
export type GatewayEvent =
  | { readonly _tag: "Status"; readonly status: ServerStatus; readonly level: GatewayLevel }
  | {
    readonly _tag: "ToolsChanged"
    readonly server: string
    readonly added: ReadonlyArray<string>
    readonly removed: ReadonlyArray<string>
  }
  | { readonly _tag: "PromptsChanged" }
  | { readonly _tag: "Notice"; readonly level: GatewayLevel; readonly server: string | undefined; readonly message: string }
  | { readonly _tag: "UpstreamLog"; readonly server: string; readonly level: string; readonly data: unknown }

/** An upstream prompt as our server exposes it. @category models */
export interface GatewayPrompt {
  /** `<server>__<prompt>`. */
  readonly name: string
  readonly server: string
  readonly prompt: Prompt
}

/** A resource (or resource template) a server lists. @category models */
export interface GatewayResource {
  readonly server: string
  /** The URI, or the URI template of a template. */
  readonly uri: string
  readonly name: string
  readonly template: boolean
  readonly mimeType: string | undefined
}

/** MCP options of a session. @category models */
export interface McpSessionOptions {
  readonly config: McpConfig
  /** The workspace's pool, shared by its sessions; default: a pool of this session alone. */
  readonly pool?: McpPool.Service | undefined
  /**
   * How long building the session waits for servers (default 15 s; `Infinity`: until each server's
   * first attempt ends). Servers that take longer join later and are announced by reminder.
   */
  readonly startupWaitMs?: number | undefined
}

/**
 * The MCP gateway of a session.
 *
 * @category services
 */
export class McpGateway extends Context.Service<McpGateway, McpGateway.Service>()("toolwright/mcp/McpGateway") {
  /** A gateway with no servers (a session without MCP config). */
  static readonly layerEmpty: Layer.Layer<McpGateway> = Layer.succeed(
    McpGateway,
    McpGateway.of({
      statuses: Effect.succeed([]),
      subscribe: Effect.succeed(Stream.empty),
      instructionsReminder: Effect.succeed(null),
      takeReminder: Effect.succeed(null),
      prompts: Effect.succeed([]),
      resources: Effect.succeed([]),
      getPrompt: (name) => Effect.fail(new ExecutionFailed({ message: `Prompt "${name}" is not offered by any connected MCP server.` })),
      resolveServer: (name) => Effect.fail(new ExecutionFailed({ message: `MCP server '${name}' is not configured.` })),
      settled: Effect.void,
      hasServers: false
    })
  )
}

/** @since 0.1.0 */
export declare namespace McpGateway {
  /** @category models */
  export interface Service {
    readonly statuses: Effect.Effect<ReadonlyArray<ServerStatus>>
    /** Events from now on; the subscription ends with the scope. */
    readonly subscribe: Effect.Effect<Stream.Stream<GatewayEvent>, never, Scope.Scope>
    /** The server-instructions reminder (§2.4), for the startup prelude. */
    readonly instructionsReminder: Effect.Effect<string | null>
    /** The reminder for MCP tools added or removed since the model was last told; null when none. */
    readonly takeReminder: Effect.Effect<string | null>
    readonly prompts: Effect.Effect<ReadonlyArray<GatewayPrompt>>
    /** Resources and templates the servers list (bounded per server). */
    readonly resources: Effect.Effect<ReadonlyArray<GatewayResource>>
    readonly getPrompt: (
      name: string,
      args: Record<string, string>
    ) => Effect.Effect<GetPromptResult, ExecutionFailed | McpToolError | ExecutionTimeout>
    /** A server for `read_mcp_resource`. */
    readonly resolveServer: ResolveServer
    /** Completes when every server finished its first connection attempt. */
    readonly settled: Effect.Effect<void>
    /** Whether any server is configured, valid or not (doors declare prompts and logging then). */
    readonly hasServers: boolean
  }
}
