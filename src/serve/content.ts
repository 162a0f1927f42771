/**
 * Conversions between our call results and MCP `CallToolResult`s.
 *
 * @since 0.1.0
 */
import type { CallResult, LlmPart, ResourceLinkPart, UserModification } from "../tool/index.js"

/** The `_meta` key that carries a failed call's wire code. @category constants */
export const ERROR_TYPE_META = "toolwright/errorType"

/**
 * The `_meta` key of an amended call's result: the parameter the person changed and their
 * `user_*` diff stats (the note in the content tells the model the same).
 * @category constants
 */
export const USER_MODIFIED_META = "toolwright/userModified"

const userModifiedMeta = (m: UserModification) => ({ param: m.param, diffStat: m.diffStat })

/** An MCP content block we produce. @category models */
export type McpContent =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "image"; readonly data: string; readonly mimeType: string }
  | { readonly type: "audio"; readonly data: string; readonly mimeType: string }
  | ResourceLinkPart
  | {
    readonly type: "resource"
    readonly resource: { readonly uri: string; readonly mimeType: string; readonly blob: string }
  }

/** One part as MCP content. @category converters */
export const partToMcp = (part: LlmPart): McpContent => {
  switch (part.type) {
    case "text":
      return { type: "text", text: part.text }
    case "image":
      return { type: "image", data: part.data, mimeType: part.mimeType }
    case "audio":
      return { type: "audio", data: part.data, mimeType: part.mimeType }
    case "file":
      return { type: "resource", resource: { uri: "toolwright://inline", mimeType: part.mimeType, blob: part.data } }
    case "resource_link": {
      const { type: _, ...link } = part
      return { type: "resource_link", ...link }
    }
  }
}

/** An MCP `CallToolResult` for one call result. @category converters */
export const toCallToolResult = (result: CallResult) => {
  switch (result._tag) {
    case "Success":
      return {
        content: result.llmContent.length > 0 ? result.llmContent.map(partToMcp) : [{ type: "text" as const, text: "Tool execution succeeded." }],
        ...(result.userModified !== undefined ? { _meta: { [USER_MODIFIED_META]: userModifiedMeta(result.userModified) } } : {})
      }
    case "Failure":
      return {
        isError: true,
        content: [{ type: "text" as const, text: result.message }],
        _meta: {
          [ERROR_TYPE_META]: result.code,
          ...(result.userModified !== undefined ? { [USER_MODIFIED_META]: userModifiedMeta(result.userModified) } : {})
        }
      }
    case "Cancelled":
      return {
        isError: true,
        content: [{ type: "text" as const, text: result.message }],
        _meta: { "toolwright/cancelled": true }
      }
  }
}
