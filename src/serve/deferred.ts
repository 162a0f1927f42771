/**
 * How the serve door offers deferred tools, per host. `list-changed`: `tool_search` reveals a tool,
 * `tools/list` shows it and the host is sent `notifications/tools/list_changed` (hosts that re-list:
 * Claude Code, Cursor). `proxy`: the same, plus a `call_tool {name, arguments}` tool that is always
 * listed and calls any revealed tool, for hosts that never re-list (Qwen Code, Gemini CLI, Codex).
 * `off`: every tool is listed from the start, nothing is deferred.
 *
 * The mode comes from `--deferred`, else `TOOLWRIGHT_DEFERRED`, else the config file's top-level
 * `"deferred"`, else from the host's `clientInfo.name` (see {@link deferredModeForClient}).
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
// floors: start-up — config.ts is the config parser only (no MCP client)
import { DEFERRED_MODES, type DeferredMode } from "../mcp/config.js"
import { ToolRegistry } from "../registry/index.js"
import { InvalidToolParams, type McpDeclaration, ToolNotRegistered, type ToolErrorCode } from "../tool/index.js"

export type { DeferredMode }

/** The environment variable that sets the deferred mode (`--deferred` wins). @category constants */
export const DEFERRED_ENV = "TOOLWRIGHT_DEFERRED"

/** The proxy tool's name. @category constants */
export const CALL_TOOL_NAME = "call_tool"

/**
 * Hosts by the `clientInfo.name` they send in `initialize` (a prefix: Qwen Code appends the server's
 * name), and the mode that works there. Unknown hosts get `list-changed`, which the protocol
 * promises. See docs/hosts.md for where each name comes from.
 *
 * @category constants
 */
export const KNOWN_HOSTS: ReadonlyArray<{ readonly prefix: string; readonly host: string; readonly mode: DeferredMode }> = [
  { prefix: "qwen-cli-mcp-client", host: "Qwen Code", mode: "proxy" },
  { prefix: "qwen-code", host: "Qwen Code", mode: "proxy" },
  { prefix: "gemini-cli-mcp-client", host: "Gemini CLI", mode: "proxy" },
  { prefix: "codex-mcp-client", host: "Codex", mode: "proxy" },
  { prefix: "claude-code", host: "Claude Code", mode: "list-changed" },
  { prefix: "cursor", host: "Cursor", mode: "list-changed" }
]

/** The mode for a host, by its `clientInfo.name`. @category constructors */
export const deferredModeForClient = (clientName: string | undefined): DeferredMode => {
  const name = (clientName ?? "").toLowerCase()
  return KNOWN_HOSTS.find((known) => name.startsWith(known.prefix))?.mode ?? "list-changed"
}

/** `TOOLWRIGHT_DEFERRED`, when set; a value that is no mode fails with a message saying which are. @category constructors */
export const deferredModeFromEnv: Effect.Effect<DeferredMode | undefined, string> = Config.option(
  Config.schema(Schema.Literals(DEFERRED_MODES as ["list-changed", "proxy", "off"]), DEFERRED_ENV)
).pipe(
  Effect.map((value) => (value._tag === "Some" ? value.value : undefined)),
  Effect.mapError(() => `${DEFERRED_ENV} must be one of ${DEFERRED_MODES.join(", ")}.`)
)

const CALL_TOOL_DESCRIPTION = `Calls a tool that tool_search revealed, by name, with its arguments.

Use this for every tool you fetched with tool_search (the deferred tools): this host does not refresh its tool list, so a revealed tool may not appear as a tool of its own. Pass the tool's exact name and an arguments object that matches the schema tool_search returned. The call runs exactly as a direct call would (same approval, limits and result). A tool that was not revealed yet fails: call tool_search with "select:NAME" first.`

/** The `call_tool` declaration. @category constants */
export const callToolDeclaration: McpDeclaration = {
  name: CALL_TOOL_NAME,
  title: "CallTool",
  description: CALL_TOOL_DESCRIPTION,
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "The exact name of a tool revealed by tool_search." },
      arguments: { type: "object", description: "The tool's arguments, as its schema describes them.", additionalProperties: true }
    },
    required: ["name"],
    additionalProperties: false
  } as McpDeclaration["inputSchema"],
  // it may call any tool: what the called tool does, the policy decides and asks about
  annotations: { title: "CallTool", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }
}

/** What a `call_tool` call turns into: the call of the named tool, or a refusal. @category models */
export type ProxyTarget =
  | { readonly _tag: "Call"; readonly name: string; readonly args: Record<string, unknown> }
  | { readonly _tag: "Refused"; readonly code: ToolErrorCode; readonly message: string }

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/**
 * The call a `call_tool` call stands for: a registered tool that is not a hidden deferred tool
 * (revealed, always loaded, or never deferred). Unknown or unrevealed names are refused with
 * `tool_not_registered` and a message telling to `tool_search` first.
 *
 * @category constructors
 */
export const resolveProxyCall = Effect.fnUntraced(function*(args: Record<string, unknown>) {
  const registry = yield* ToolRegistry
  const refuse = (code: ToolErrorCode, message: string): ProxyTarget => ({ _tag: "Refused", code, message })
  const name = args["name"]
  const inner = args["arguments"] ?? {}
  if (typeof name !== "string" || name.trim() === "" || !isRecord(inner) || Object.keys(args).some((k) => k !== "name" && k !== "arguments")) {
    return refuse(InvalidToolParams.code, `call_tool takes {"name": "<a tool revealed by tool_search>", "arguments": {…}}; fix the call and retry.`)
  }
  if (name === CALL_TOOL_NAME) return refuse(InvalidToolParams.code, "call_tool cannot call itself; pass the name of the tool you want to run.")
  const canonical = yield* registry.canonicalName(name)
  if (canonical === undefined) {
    return refuse(
      ToolNotRegistered.code,
      `No tool named "${name}" exists. Call tool_search with keywords to find the tool you need (or "select:NAME" for an exact name), then call it through call_tool.`
    )
  }
  if (yield* registry.isDeferredAndHidden(canonical)) {
    return refuse(
      ToolNotRegistered.code,
      `Tool "${canonical}" is deferred and not revealed yet. Call tool_search with query "select:${canonical}" first, then call it through call_tool.`
    )
  }
  return { _tag: "Call", name: canonical, args: inner } as ProxyTarget
})
