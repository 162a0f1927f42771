/**
 * A tool discovered on an upstream server, as a tool of ours (reference §13.1–13.3): named
 * `mcp__<server>__<tool>` (provider-safe), deferred unless the config always loads it, Kind Read
 * only when the server says it is read-only, params validated against the server's JSON Schema,
 * output budget 500 000 chars, progress streamed as live output.
 *
 * @since 0.1.0
 */
import type { jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Effect from "effect/Effect"
import { mcpToolName } from "../registry/index.js"
import {
  type ConfirmationDetails,
  defineJsonSchemaTool,
  type ExecuteContext,
  ExecutionTimeout,
  hasCode,
  type JsonSchemaTool,
  Kind,
  McpToolError,
  progress,
  type ToolResult
} from "../tool/index.js"
import { isAlwaysLoaded, type McpServerConfig } from "./config.js"
import { MCP_TOOL_MAX_OUTPUT_CHARS } from "./constants.js"
import { type McpCallData, toToolResult } from "./content.js"
import type { DiscoveredTool } from "./discovery.js"
import type { Progress, Upstream, UpstreamFailure } from "./upstream.js"

/** The errors of an upstream tool call. @category models */
export type McpCallError = McpToolError | ExecutionTimeout

/** Compiles JSON Schemas into validators (the SDK's ajv provider). @category models */
export type SchemaValidatorProvider = jsonSchemaValidator

/** An upstream tool. @category models */
export type McpTool = JsonSchemaTool<string, McpCallData, McpCallError, never>

/** Everything an upstream tool is made from. @category models */
export interface McpToolOptions {
  readonly upstream: Upstream
  readonly server: McpServerConfig
  readonly tool: DiscoveredTool
  /** Compiles the server's JSON Schemas (one provider per session, loaded on first use). */
  readonly validator: Effect.Effect<SchemaValidatorProvider>
  /** The registered name, when the registry renamed the tool. */
  readonly name?: string | undefined
}

/** `data/a/b must be string` (ajv) → `params.a.b: must be string`. */
const formatAjvErrors = (text: string): string =>
  text.split(/, (?=data\b)/).map((one) => {
    const match = /^data((?:\/[^\s]*)?)\s+(.*)$/.exec(one)
    if (!match) return one
    const path = (match[1] ?? "").split("/").filter(Boolean).join(".")
    return `${path ? `params.${path}` : "params"}: ${match[2]}`
  }).join("; ")

const progressText = (p: Progress): string =>
  `${p.message ? `${p.message} ` : ""}(progress ${p.progress}${p.total !== undefined ? `/${p.total}` : ""})`

/** Where an upstream's progress goes: the live tap as a progress part, and people's live view as a line. */
const progressSink = ({ emit, onOutput }: ExecuteContext): ((p: Progress) => Effect.Effect<void>) | undefined => {
  if (!emit && !onOutput) return undefined
  return (p) =>
    Effect.andThen(
      emit ? emit(progress(p.message ?? "", { progress: p.progress, ...(p.total !== undefined ? { total: p.total } : {}) })) : Effect.void,
      onOutput ? onOutput(progressText(p)) : Effect.void
    )
}

/** The model-facing error of a failed upstream request. @category errors */
export const toCallError = (server: string, tool: string, f: UpstreamFailure): McpCallError => {
  switch (f.reason) {
    case "timeout":
    case "idle_timeout":
      return new ExecutionTimeout({
        message: `${f.message}. The call was cancelled. If the task is expected to take longer, ask the user to raise "timeout"/"idleTimeout" for server "${server}".`,
        display: f.message
      })
    case "unreachable":
      return new McpToolError({
        message: `MCP server "${server}" is unreachable, so '${tool}' did not run${f.reconnects > 0 ? ` (gave up after ${f.reconnects} reconnect attempts)` : ""}: ${f.message}`,
        display: `MCP server "${server}" is unreachable.`
      })
    case "connection_lost":
      return new McpToolError({
        message: f.reconnects > 0
          ? `The connection to MCP server "${server}" was lost while '${tool}' was running, and it was lost again on each of ${f.reconnects} reconnect attempts: ${f.message}. The server will be restarted on the next call.`
          : `The connection to MCP server "${server}" was lost while '${tool}' was running: ${f.message}. The call may or may not have taken effect; the server will be restarted on the next call. Check the state before retrying.`,
        display: `MCP server "${server}" disconnected during '${tool}'.`
      })
    case "protocol":
    case "other":
      return new McpToolError({
        message: `MCP tool '${tool}' on server "${server}" failed: ${f.message}`,
        display: `MCP tool '${tool}' failed.`
      })
  }
}

/**
 * Makes our tool for one discovered tool.
 *
 * @category constructors
 */
export const makeMcpTool = (options: McpToolOptions): McpTool => {
  const { server, tool, upstream } = options
  const name = options.name ?? mcpToolName(server.name, tool.name)
  const readOnly = tool.annotations?.readOnlyHint === true
  const displayName = `${tool.name} (${server.name} MCP Server)`
  let validate: ((input: unknown) => string | undefined) | undefined
  const validator = Effect.gen(function*() {
    if (validate) return validate
    const provider = yield* options.validator
    try {
      const check = provider.getValidator(tool.inputSchema as never)
      validate = (input) => {
        const result = check(input)
        return result.valid ? undefined : formatAjvErrors(result.errorMessage)
      }
    } catch {
      // A schema our validator cannot compile: the server validates the arguments itself.
      validate = () => undefined
    }
    return validate
  })
  const confirmation: ConfirmationDetails = {
    type: "mcp",
    title: "Confirm MCP Tool Execution",
    serverName: server.name,
    toolName: tool.name,
    toolDisplayName: displayName
  }
  const resendAfterLoss = readOnly || tool.annotations?.idempotentHint === true

  const execute = (args: Readonly<Record<string, unknown>>, context: ExecuteContext): Effect.Effect<ToolResult<McpCallData>, McpCallError> =>
    upstream.callTool(tool.name, args as Record<string, unknown>, {
      timeoutMs: server.timeoutMs,
      idleTimeoutMs: server.idleTimeoutMs,
      resendAfterLoss,
      onProgress: progressSink(context)
    }).pipe(
      Effect.mapError((f) => toCallError(server.name, tool.name, f)),
      Effect.flatMap((result) => {
        const mapped = toToolResult(server.name, tool.name, args as Record<string, unknown>, result)
        return hasCode(mapped, McpToolError) ? Effect.fail(mapped) : Effect.succeed(mapped)
      })
    )

  return defineJsonSchemaTool({
    name,
    displayName,
    description: tool.description,
    kind: readOnly ? Kind.Read : Kind.Other,
    shouldDefer: true,
    alwaysLoad: isAlwaysLoaded(server, tool.name),
    searchHint: [`mcp ${server.name}`, tool.title, server.description?.slice(0, 120)].filter(Boolean).join(" "),
    maxOutputChars: MCP_TOOL_MAX_OUTPUT_CHARS,
    truncateKeep: "both",
    serverName: server.name,
    parametersJsonSchema: tool.inputSchema,
    validateArgs: (args) => Effect.map(validator, (check) => check(args)),
    invoke: (params) => {
      const json = JSON.stringify(params)
      return Effect.succeed({
        description: json.length > 300 ? `${json.slice(0, 299)}…` : json,
        defaultPermission: Effect.succeed(server.trust ? "allow" as const : "ask" as const),
        confirmation: Effect.succeed(confirmation),
        execute: (context: ExecuteContext) => execute(params, context)
      })
    }
  })
}
