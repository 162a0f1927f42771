/**
 * Discovery: what a connected server offers (tools, resources, resource templates, prompts,
 * instructions), with every list paginated and bounded so a server cannot flood us.
 *
 * @since 0.1.0
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ErrorCode, McpError, type Prompt, type Resource, type ResourceTemplate, type Tool } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import {
  MAX_LIST_PAGES,
  MAX_RESOURCES_PER_SERVER,
  MAX_SERVER_INSTRUCTIONS_CHARS,
  MAX_TOOL_DESCRIPTION_CHARS,
  MAX_TOOL_SCHEMA_CHARS,
  MAX_TOOLS_PER_SERVER
} from "./constants.js"

/** A tool as the server declares it (bounded). @category models */
export interface DiscoveredTool {
  readonly name: string
  readonly title: string | undefined
  readonly description: string
  readonly inputSchema: { readonly [key: string]: unknown }
  readonly annotations: Tool["annotations"]
}

/** Everything a server offers. @category models */
export interface Catalog {
  readonly tools: ReadonlyArray<DiscoveredTool>
  readonly resources: ReadonlyArray<Resource>
  readonly resourceTemplates: ReadonlyArray<ResourceTemplate>
  readonly prompts: ReadonlyArray<Prompt>
  readonly instructions: string | undefined
  readonly serverName: string | undefined
  readonly serverVersion: string | undefined
  /** What was dropped or cut, for the logs. */
  readonly warnings: ReadonlyArray<string>
}

/** A catalog with nothing in it. @category constants */
export const emptyCatalog: Catalog = {
  tools: [],
  resources: [],
  resourceTemplates: [],
  prompts: [],
  instructions: undefined,
  serverName: undefined,
  serverVersion: undefined,
  warnings: []
}

/** Discovery failed (the request failed, not "the server has none"). @category errors */
export interface DiscoveryFailure {
  readonly list: string
  readonly error: unknown
}

interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor?: string | undefined
}

/** Follows cursors up to {@link MAX_LIST_PAGES} pages and `max` items; stops on a repeated cursor. */
const listAll = <A>(
  list: string,
  fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<A>>,
  max: number,
  warnings: Array<string>
): Effect.Effect<Array<A>, DiscoveryFailure> =>
  Effect.gen(function*() {
    const out: Array<A> = []
    const seen = new Set<string>()
    let cursor: string | undefined
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const result = yield* Effect.tryPromise({
        try: (signal) => fetchPage(cursor, signal),
        catch: (error) => ({ list, error })
      }).pipe(
        Effect.catch((failure) =>
          failure.error instanceof McpError && failure.error.code === ErrorCode.MethodNotFound
            ? Effect.succeed<Page<A>>({ items: [] })
            : Effect.fail(failure)
        )
      )
      for (const item of result.items) {
        if (out.length >= max) {
          warnings.push(`${list}: more than ${max} entries; the rest were ignored`)
          return out
        }
        out.push(item)
      }
      cursor = result.nextCursor
      if (cursor === undefined || cursor === "" || seen.has(cursor)) return out
      seen.add(cursor)
    }
    warnings.push(`${list}: more than ${MAX_LIST_PAGES} pages; the rest were ignored`)
    return out
  })

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** Bounds one declared tool; undefined when it cannot be used (no name, oversized schema). */
const boundTool = (tool: Tool, warnings: Array<string>): DiscoveredTool | undefined => {
  if (typeof tool.name !== "string" || tool.name === "") {
    warnings.push("tools: a tool without a name was ignored")
    return undefined
  }
  const schema = (tool.inputSchema ?? { type: "object", properties: {} }) as Record<string, unknown>
  const schemaText = JSON.stringify(schema)
  if (schemaText.length > MAX_TOOL_SCHEMA_CHARS) {
    warnings.push(`tools: "${tool.name}" has an input schema of ${schemaText.length} chars (limit ${MAX_TOOL_SCHEMA_CHARS}) and was ignored`)
    return undefined
  }
  const description = tool.description ?? tool.title ?? ""
  if (description.length > MAX_TOOL_DESCRIPTION_CHARS) {
    warnings.push(`tools: the description of "${tool.name}" was cut to ${MAX_TOOL_DESCRIPTION_CHARS} chars`)
  }
  return {
    name: tool.name,
    title: tool.title ?? tool.annotations?.title,
    description: cut(description, MAX_TOOL_DESCRIPTION_CHARS),
    inputSchema: { ...schema, type: "object", properties: (schema["properties"] as object | undefined) ?? {} },
    annotations: tool.annotations
  }
}

/**
 * Lists everything the server declares capabilities for. A list the server does not implement
 * (`Method not found`) is empty; any other failure fails discovery.
 *
 * @category constructors
 */
export const discover = (client: Client): Effect.Effect<Catalog, DiscoveryFailure> =>
  Effect.gen(function*() {
    const capabilities = client.getServerCapabilities() ?? {}
    const warnings: Array<string> = []
    const opts = (signal: AbortSignal) => ({ signal })
    const tools = capabilities.tools
      ? yield* listAll("tools", (cursor, signal) =>
        client.listTools(cursor ? { cursor } : {}, opts(signal)).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })), MAX_TOOLS_PER_SERVER, warnings)
      : []
    const resources = capabilities.resources
      ? yield* listAll("resources", (cursor, signal) =>
        client.listResources(cursor ? { cursor } : {}, opts(signal)).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })), MAX_RESOURCES_PER_SERVER, warnings)
      : []
    const resourceTemplates = capabilities.resources
      ? yield* listAll("resource templates", (cursor, signal) =>
        client.listResourceTemplates(cursor ? { cursor } : {}, opts(signal)).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })), MAX_RESOURCES_PER_SERVER, warnings)
      : []
    const prompts = capabilities.prompts
      ? yield* listAll("prompts", (cursor, signal) =>
        client.listPrompts(cursor ? { cursor } : {}, opts(signal)).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })), MAX_RESOURCES_PER_SERVER, warnings)
      : []
    const bounded = tools.flatMap((tool) => {
      const b = boundTool(tool, warnings)
      return b ? [b] : []
    })
    const seen = new Set<string>()
    const unique = bounded.filter((tool) => {
      if (seen.has(tool.name)) {
        warnings.push(`tools: "${tool.name}" is declared twice; the first declaration is used`)
        return false
      }
      seen.add(tool.name)
      return true
    })
    const instructions = client.getInstructions()
    if (instructions !== undefined && instructions.length > MAX_SERVER_INSTRUCTIONS_CHARS) {
      warnings.push(`instructions were cut to ${MAX_SERVER_INSTRUCTIONS_CHARS} chars`)
    }
    const version = client.getServerVersion()
    return {
      tools: unique,
      resources,
      resourceTemplates,
      prompts,
      instructions: instructions === undefined ? undefined : cut(instructions, MAX_SERVER_INSTRUCTIONS_CHARS),
      serverName: version?.name,
      serverVersion: version?.version,
      warnings
    } satisfies Catalog
  })

/** A stable signature of one tool's declaration, to tell a changed tool from an unchanged one. @category getters */
export const toolSignature = (tool: DiscoveredTool): string =>
  JSON.stringify([tool.title, tool.description, tool.inputSchema, tool.annotations ?? null])
