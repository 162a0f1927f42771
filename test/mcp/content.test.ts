import { assert, describe, it } from "@effect/vitest"
import { contentToParts, toToolResult, UNPARSABLE_RESPONSE } from "../../src/mcp/content.js"
import { MAX_MCP_RESULT_MEDIA_CHARS, MAX_MCP_RESOURCE_BLOB_CHARS, MAX_MCP_RESOURCE_TEXT_CHARS, MAX_TOOL_ERROR_RESPONSE_CHARS } from "../../src/mcp/constants.js"
import { formatResourceContents } from "../../src/mcp/readMcpResource.js"
import { McpToolError } from "../../src/tool/errors.js"

describe("MCP content mapping (reference §13.3)", () => {
  it("maps text, image, audio, embedded resources and links; drops unknown blocks", () => {
    const parts = contentToParts("t", [
      { type: "text", text: "hello" },
      { type: "image", data: "aW1n", mimeType: "image/png" },
      { type: "audio", data: "YXU=", mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "u", text: "embedded" } },
      { type: "resource", resource: { uri: "u", blob: "Ymxv" } },
      { type: "resource_link", uri: "file:///a", name: "a", title: "The A" },
      { type: "resource_link", uri: "file:///b", name: "b" },
      { type: "mystery" },
      null
    ])
    assert.deepStrictEqual(parts, [
      { type: "text", text: "hello" },
      { type: "text", text: "[Tool 't' provided the following image data with mime-type: image/png]" },
      { type: "image", data: "aW1n", mimeType: "image/png" },
      { type: "text", text: "[Tool 't' provided the following audio data with mime-type: audio/wav]" },
      { type: "audio", data: "YXU=", mimeType: "audio/wav" },
      { type: "text", text: "embedded" },
      { type: "text", text: "[Tool 't' provided the following embedded resource with mime-type: application/octet-stream]" },
      { type: "file", data: "Ymxv", mimeType: "application/octet-stream" },
      { type: "resource_link", uri: "file:///a", name: "a", title: "The A" },
      { type: "resource_link", uri: "file:///b", name: "b" }
    ])
  })

  it("replaces media beyond the result's budget with a note (edge)", () => {
    const exact = "a".repeat(MAX_MCP_RESULT_MEDIA_CHARS)
    assert.strictEqual(contentToParts("t", [{ type: "image", data: exact, mimeType: "image/png" }]).length, 2)
    const over = contentToParts("t", [
      { type: "image", data: exact, mimeType: "image/png" },
      { type: "image", data: "b", mimeType: "image/gif" }
    ])
    assert.strictEqual(over.length, 3)
    assert.include((over[2] as { text: string }).text, "The image/gif data (1 base64 chars) was omitted")
  })

  it("an isError result is mcp_tool_error with the call and the response", () => {
    const error = toToolResult("srv", "t", { a: 1 }, { isError: true, content: [{ type: "text", text: "no" }] })
    assert.instanceOf(error, McpToolError)
    const e = error as McpToolError
    assert.strictEqual(e.code, "mcp_tool_error")
    assert.strictEqual(
      e.message,
      `MCP tool 't' reported tool error for function call: {"name":"t","args":{"a":1}} with response: [{"type":"text","text":"no"}]`
    )
    assert.strictEqual(e.display, "Error: MCP tool 't' reported an error.")
    const stringly = toToolResult("srv", "t", {}, { isError: "true", content: [] } as never)
    assert.instanceOf(stringly, McpToolError)
    const long = toToolResult("srv", "t", {}, { isError: true, content: [{ type: "text", text: "x".repeat(MAX_TOOL_ERROR_RESPONSE_CHARS) }] })
    assert.include((long as McpToolError).message, "more chars)")
  })

  it("a result without content, or with structured content only", () => {
    const missing = toToolResult("srv", "t", {}, {} as never)
    assert.notInstanceOf(missing, McpToolError)
    assert.deepStrictEqual((missing as { llmContent: unknown }).llmContent, [{ type: "text", text: UNPARSABLE_RESPONSE }])
    const structured = toToolResult("srv", "t", {}, { content: [], structuredContent: { n: 1 } })
    assert.deepStrictEqual((structured as { llmContent: unknown }).llmContent, [{ type: "text", text: `{"n":1}` }])
  })
})

describe("resource framing (reference §13.6)", () => {
  it("frames contents with a nonce and summarises", () => {
    const out = formatResourceContents("s:u", [{ uri: "u", text: "abc" }, { uri: "u", blob: "AAAA", mimeType: "image/png" }], "12345678")
    assert.deepStrictEqual(out.parts, [
      { type: "text", text: "\n--- Content from MCP resource s:u [12345678] ---\n" },
      { type: "text", text: "abc" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "\n--- End of MCP resource s:u [12345678] ---\n" }
    ])
    assert.strictEqual(out.summary, "Injected 3 chars + 1 attachment(s)")
  })

  it("caps text cumulatively at the limit (edge) and says so", () => {
    const exact = formatResourceContents("s:u", [{ uri: "u", text: "a".repeat(MAX_MCP_RESOURCE_TEXT_CHARS) }], "n")
    assert.isFalse(exact.data.truncated)
    const over = formatResourceContents("s:u", [{ uri: "u", text: "a".repeat(MAX_MCP_RESOURCE_TEXT_CHARS) }, { uri: "u", text: "b" }], "n")
    assert.isTrue(over.data.truncated)
    assert.strictEqual(over.summary, `Injected ${MAX_MCP_RESOURCE_TEXT_CHARS} chars + 0 attachment(s) (truncated)`)
    assert.include((over.parts.at(-1) as { text: string }).text, "[Content truncated — part of this resource exceeded size limits and was omitted.]")
  })

  it("skips a blob beyond the cap; empty and oversized-only contents get one line", () => {
    const big = formatResourceContents("s:u", [{ uri: "u", blob: "a".repeat(MAX_MCP_RESOURCE_BLOB_CHARS + 1) }], "n")
    assert.deepStrictEqual(big.parts, [{ type: "text", text: "\n--- MCP resource s:u: (content too large — skipped) ---\n" }])
    const empty = formatResourceContents("s:u", [], "n")
    assert.deepStrictEqual(empty.parts, [{ type: "text", text: "\n--- MCP resource s:u: (no readable content) ---\n" }])
    const fits = formatResourceContents("s:u", [{ uri: "u", blob: "a".repeat(MAX_MCP_RESOURCE_BLOB_CHARS) }], "n")
    assert.strictEqual(fits.data.attachments, 1)
  })
})
