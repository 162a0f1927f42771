/**
 * What an upstream tool returned, as our tool result (reference §13.3 steps 3–4): text as text;
 * images and audio as a note plus the media; embedded resources as text or a note plus the blob;
 * resource links passed through as links (a door without links shows them as a line, see
 * `resourceLinkText`); unknown blocks dropped. `isError` results become `mcp_tool_error`.
 *
 * @since 0.1.0
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Stream from "effect/Stream"
import {
  type LlmPart,
  McpToolError,
  type MediaPart,
  resourceLinkText,
  streamResult,
  text,
  textChunks,
  type ToolOutputStream,
  type ToolResult
} from "../tool/index.js"
import { MAX_MCP_RESULT_MEDIA_CHARS, MAX_TOOL_ERROR_RESPONSE_CHARS, MCP_TOOL_MAX_OUTPUT_CHARS, MCP_TEXT_CHUNK_CHARS } from "./constants.js"

/** The typed success of an upstream tool call. @category models */
export interface McpCallData {
  readonly serverName: string
  readonly toolName: string
  /** The server's `structuredContent`, when it sent one. */
  readonly structuredContent: unknown
}

/** The text when a result has no content array. @category constants */
export const UNPARSABLE_RESPONSE = "[Error: Could not parse tool response]"

const mediaKind = (mimeType: string): MediaPart["type"] =>
  mimeType.startsWith("image/") ? "image" : mimeType.startsWith("audio/") ? "audio" : "file"

type Block = Record<string, unknown>

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/**
 * Maps content blocks to parts. Media beyond {@link MAX_MCP_RESULT_MEDIA_CHARS} (base64 chars, in
 * total) is replaced by a note.
 *
 * @category converters
 */
export const contentToParts = (toolName: string, content: ReadonlyArray<unknown>): Array<LlmPart> => {
  const parts: Array<LlmPart> = []
  let media = 0
  const addMedia = (data: string, mimeType: string, note: string) => {
    if (media + data.length > MAX_MCP_RESULT_MEDIA_CHARS) {
      parts.push(text(`${note}\n[The ${mimeType} data (${data.length} base64 chars) was omitted: the result's media exceeded ${MAX_MCP_RESULT_MEDIA_CHARS} chars.]`))
      return
    }
    media += data.length
    parts.push(text(note), { type: mediaKind(mimeType), data, mimeType })
  }
  for (const raw of content) {
    if (typeof raw !== "object" || raw === null) continue
    const block = raw as Block
    switch (block["type"]) {
      case "text": {
        const value = str(block["text"])
        if (value !== undefined) parts.push(text(value))
        break
      }
      case "image":
      case "audio": {
        const data = str(block["data"])
        const mimeType = str(block["mimeType"]) ?? "application/octet-stream"
        if (data === undefined) break
        addMedia(data, mimeType, `[Tool '${toolName}' provided the following ${block["type"]} data with mime-type: ${mimeType}]`)
        break
      }
      case "resource": {
        const resource = (block["resource"] ?? {}) as Block
        const body = str(resource["text"])
        if (body !== undefined) {
          parts.push(text(body))
          break
        }
        const blob = str(resource["blob"])
        if (blob === undefined) break
        const mimeType = str(resource["mimeType"]) || "application/octet-stream"
        addMedia(blob, mimeType, `[Tool '${toolName}' provided the following embedded resource with mime-type: ${mimeType}]`)
        break
      }
      case "resource_link": {
        const uri = str(block["uri"])
        if (uri === undefined) break
        parts.push({
          type: "resource_link",
          uri,
          name: str(block["name"]) || uri,
          ...(str(block["title"]) ? { title: str(block["title"]) } : {}),
          ...(str(block["description"]) ? { description: str(block["description"]) } : {}),
          ...(str(block["mimeType"]) ? { mimeType: str(block["mimeType"]) } : {})
        })
        break
      }
      default:
        break
    }
  }
  return parts
}

/**
 * The parts of a result as an output stream: text parts in chunks of {@link MCP_TEXT_CHUNK_CHARS}
 * (never splitting a surrogate pair), a `\n` between two text parts (a finished result's text
 * parts are joined by one), media and links as they are.
 *
 * @category converters
 */
export const partsStream = (parts: ReadonlyArray<LlmPart>, chunkChars = MCP_TEXT_CHUNK_CHARS): ToolOutputStream => {
  const firstText = parts.findIndex((p) => p.type === "text")
  return Stream.flatMap(Stream.fromIterable(parts.map((part, i) => [part, i] as const)), ([part, i]): ToolOutputStream =>
    part.type !== "text"
      ? Stream.make(part)
      : i === firstText
      ? textChunks(part.text, chunkChars)
      : Stream.concat(Stream.make(text("\n")), textChunks(part.text, chunkChars)))
}

const textChars = (parts: ReadonlyArray<LlmPart>): number => parts.reduce((n, p) => n + (p.type === "text" ? p.text.length : 0), 0)

const display = (parts: ReadonlyArray<LlmPart>): string =>
  parts.map((p) => (p.type === "text" ? p.text : p.type === "resource_link" ? resourceLinkText(p) : `[${p.type} ${p.mimeType}]`)).join("\n")

/**
 * The tool result of an upstream call, or the `mcp_tool_error` of an `isError` result.
 *
 * @category converters
 */
export const toToolResult = (
  serverName: string,
  toolName: string,
  args: unknown,
  result: CallToolResult
): ToolResult<McpCallData> | McpToolError => {
  const rawContent = (result as { content?: unknown }).content
  const isError = result.isError === true || (result as { isError?: unknown }).isError === "true"
  if (isError) {
    const response = JSON.stringify(Array.isArray(rawContent) ? rawContent : [])
    const cut = response.length > MAX_TOOL_ERROR_RESPONSE_CHARS
      ? `${response.slice(0, MAX_TOOL_ERROR_RESPONSE_CHARS)}… (${response.length - MAX_TOOL_ERROR_RESPONSE_CHARS} more chars)`
      : response
    return new McpToolError({
      message: `MCP tool '${toolName}' reported tool error for function call: ${JSON.stringify({ name: toolName, args })} with response: ${cut}`,
      display: `Error: MCP tool '${toolName}' reported an error.`
    })
  }
  const data: McpCallData = { serverName, toolName, structuredContent: result.structuredContent }
  if (!Array.isArray(rawContent)) {
    return { llmContent: [text(UNPARSABLE_RESPONSE)], display: UNPARSABLE_RESPONSE, data }
  }
  const parts = contentToParts(toolName, rawContent)
  // A server that only sends structured content still gets its answer to the model.
  if (parts.length === 0 && result.structuredContent !== undefined) parts.push(text(JSON.stringify(result.structuredContent)))
  // Text past the tool's own limit is cut anyway: it enters the output pipeline as a stream, which
  // saves it as it arrives and keeps only the windows it shows (and people see that, not all of it).
  if (textChars(parts) > MCP_TOOL_MAX_OUTPUT_CHARS) return streamResult(partsStream(parts), { data })
  return { llmContent: parts, display: display(parts), data }
}
