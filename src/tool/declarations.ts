/**
 * Tool declarations for the providers, derived from each tool's params Schema: MCP, OpenAI function
 * tools, Anthropic and Gemini. Lists are sorted by name, then display name, so the serialized block
 * stays byte-stable for prompt caching.
 *
 * @since 0.1.0
 */
import { isReadOnlyKind, Kind, MUTATOR_KINDS } from "./kind.js"
import { compareText } from "./order.js"
import type { JsonSchemaObject, ToolInfo } from "./tool.js"

/** The declaration formats we emit. @category models */
export type DeclarationFormat = "mcp" | "openai" | "anthropic" | "gemini"

/** An MCP `tools/list` entry. @category models */
export interface McpDeclaration {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonSchemaObject
  readonly annotations: {
    readonly title: string
    readonly readOnlyHint: boolean
    readonly destructiveHint: boolean
    readonly idempotentHint: boolean
    readonly openWorldHint: boolean
  }
}

/** An OpenAI (Chat Completions) function tool. @category models */
export interface OpenAiDeclaration {
  readonly type: "function"
  readonly function: { readonly name: string; readonly description: string; readonly parameters: JsonSchemaObject }
}

/** An Anthropic Messages API tool. @category models */
export interface AnthropicDeclaration {
  readonly name: string
  readonly description: string
  readonly input_schema: JsonSchemaObject
}

/** A Gemini function declaration. @category models */
export interface GeminiDeclaration {
  readonly name: string
  readonly description: string
  readonly parametersJsonSchema: JsonSchemaObject
}

/** Orders tools by name, ties by display name. @category ordering */
export const byNameOrder = (a: Pick<ToolInfo, "name" | "displayName">, b: Pick<ToolInfo, "name" | "displayName">): number =>
  compareText(a.name, b.name) || compareText(a.displayName, b.displayName)

/** Sorts tools by name, ties by display name (stable block for prompt caching). @category ordering */
export const sortTools = <T extends Pick<ToolInfo, "name" | "displayName">>(tools: Iterable<T>): Array<T> =>
  Array.from(tools).sort(byNameOrder)

/**
 * MCP tool annotations derived from the Kind: Read/Search/Fetch are read-only and idempotent;
 * Edit/Delete/Move/Execute are destructive; Execute and Fetch reach the open world, and so does
 * any tool proxied from an MCP server.
 *
 * @category converters
 */
export const mcpAnnotations = (tool: ToolInfo): McpDeclaration["annotations"] => ({
  title: tool.displayName,
  readOnlyHint: isReadOnlyKind(tool.kind),
  destructiveHint: MUTATOR_KINDS.has(tool.kind),
  idempotentHint: isReadOnlyKind(tool.kind),
  openWorldHint: tool.kind === Kind.Execute || tool.kind === Kind.Fetch || tool.serverName !== undefined
})

/** One tool as an MCP declaration. @category converters */
export const toMcp = (tool: ToolInfo): McpDeclaration => ({
  name: tool.name,
  title: tool.displayName,
  description: tool.description,
  inputSchema: tool.parametersJsonSchema,
  annotations: mcpAnnotations(tool)
})

/** One tool as an OpenAI function tool. @category converters */
export const toOpenAi = (tool: ToolInfo): OpenAiDeclaration => ({
  type: "function",
  function: { name: tool.name, description: tool.description, parameters: tool.parametersJsonSchema }
})

/** One tool as an Anthropic tool. @category converters */
export const toAnthropic = (tool: ToolInfo): AnthropicDeclaration => ({
  name: tool.name,
  description: tool.description,
  input_schema: tool.parametersJsonSchema
})

/** One tool as a Gemini function declaration. @category converters */
export const toGemini = (tool: ToolInfo): GeminiDeclaration => ({
  name: tool.name,
  description: tool.description,
  parametersJsonSchema: tool.parametersJsonSchema
})

const converters = { mcp: toMcp, openai: toOpenAi, anthropic: toAnthropic, gemini: toGemini } as const

/** A sorted declaration list in one format. @category converters */
export const declarations = <F extends DeclarationFormat>(
  tools: Iterable<ToolInfo>,
  format: F
): Array<ReturnType<typeof converters[F]>> =>
  sortTools(tools).map((tool) => converters[format](tool) as ReturnType<typeof converters[F]>)
