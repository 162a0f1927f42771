import { PassThrough } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { exceedsDepth, MAX_ARGUMENT_DEPTH } from "../../src/serve/argumentDepth.js"
import { probeRequestId, ServeStdioTransport } from "../../src/serve/stdioTransport.js"
import { invalidResponse } from "../../src/mcp/stdioTransport.js"

const harness = (maxMessageBytes: number) => {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const received: Array<JSONRPCMessage> = []
  const written: Array<Record<string, any>> = []
  const logged: Array<string> = []
  let closed = false
  let pending = ""
  stdout.setEncoding("utf8")
  stdout.on("data", (chunk: string) => {
    pending += chunk
    let newline: number
    while ((newline = pending.indexOf("\n")) !== -1) {
      written.push(JSON.parse(pending.slice(0, newline)))
      pending = pending.slice(newline + 1)
    }
  })
  const transport = new ServeStdioTransport({ stdin, stdout, maxMessageBytes, log: (line) => logged.push(line) })
  transport.onmessage = (message) => received.push(message)
  transport.onclose = () => {
    closed = true
  }
  return { stdin, transport, received, written, logged, isClosed: () => closed }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

const request = (id: number, pad: string) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping", params: { pad } })

describe("ServeStdioTransport", () => {
  it("reads messages split across chunks and several in one chunk, CRLF and blank lines included", async () => {
    const h = harness(1024)
    await h.transport.start()
    const a = request(1, "a")
    h.stdin.write(a.slice(0, 5))
    h.stdin.write(a.slice(5) + "\r\n\n" + request(2, "b") + "\n" + request(3, "c"))
    h.stdin.write("\n")
    await settle()
    assert.deepStrictEqual(h.received.map((m) => (m as { id: number }).id), [1, 2, 3])
    assert.deepStrictEqual(h.written, [])
  })

  it("takes a message of exactly the limit and refuses one byte more with -32600 and its id, then goes on", async () => {
    const limit = 200
    const h = harness(limit)
    await h.transport.start()
    const sized = (id: number, bytes: number) => request(id, "x".repeat(bytes - request(id, "").length))
    assert.strictEqual(sized(1, limit).length, limit)
    h.stdin.write(sized(1, limit) + "\n")
    // One byte over, delivered a byte at a time at the end.
    const over = sized(2, limit + 1)
    h.stdin.write(over.slice(0, limit))
    h.stdin.write(over.slice(limit))
    h.stdin.write("\n" + request(3, "after") + "\n")
    await settle()
    assert.deepStrictEqual(h.received.map((m) => (m as { id: number }).id), [1, 3])
    assert.strictEqual(h.written.length, 1)
    assert.strictEqual(h.written[0]!["id"], 2)
    assert.strictEqual(h.written[0]!["error"].code, -32600)
    assert.include(h.written[0]!["error"].message, `over the ${limit} bytes limit`)
    assert.match(h.logged[0]!, /refused a message of 201 bytes/)
    assert.isFalse(h.isClosed())
  })

  it("answers a line that is not JSON with -32700 and JSON that is not JSON-RPC with -32600", async () => {
    const h = harness(1024)
    await h.transport.start()
    h.stdin.write("nope\n{\"jsonrpc\":\"2.0\",\"id\":4}\n[]\n")
    await settle()
    assert.deepStrictEqual(h.written.map((w) => [w["id"], w["error"].code]), [[null, -32700], [4, -32600], [null, -32600]])
    assert.deepStrictEqual(h.received, [])
  })

  it("closes when stdin ends", async () => {
    const h = harness(1024)
    await h.transport.start()
    h.stdin.end()
    await settle()
    assert.isTrue(h.isClosed())
  })
})

describe("probeRequestId", () => {
  it("finds the id first or last at the top level, else null", () => {
    assert.strictEqual(probeRequestId(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"`, `"}}`), 7)
    assert.strictEqual(probeRequestId(`{"id":"x\\"y","method":"m"`, ``), "x\"y")
    assert.strictEqual(probeRequestId(`{"method":"tools/call","params":{"c":"`, `xx"}},"jsonrpc":"2.0","id":12}`), 12)
    assert.isNull(probeRequestId(`{"method":"tools/call","params":{"c":"`, `xx"}}}`))
  })
})

describe("exceedsDepth", () => {
  it(`accepts ${MAX_ARGUMENT_DEPTH} levels and refuses ${MAX_ARGUMENT_DEPTH + 1}, arrays included, at any depth without recursion`, () => {
    const nested = (depth: number) => {
      let value: unknown = {}
      for (let i = 1; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value }
      return value
    }
    assert.isFalse(exceedsDepth(nested(MAX_ARGUMENT_DEPTH)))
    assert.isTrue(exceedsDepth(nested(MAX_ARGUMENT_DEPTH + 1)))
    assert.isTrue(exceedsDepth(nested(200_000)))
    assert.isFalse(exceedsDepth({ a: 1, b: "x", c: [1, 2, { d: null }] }))
  })
})

describe("invalidResponse (MCP client)", () => {
  it("turns an invalid answer to a request into an error response naming the problem; other lines stay garbage", () => {
    assert.deepStrictEqual(invalidResponse({ jsonrpc: "2.0", id: 3, result: "s" }), {
      jsonrpc: "2.0",
      id: 3,
      error: { code: -32603, message: "the server sent an invalid response: its result is a string, not an object" }
    })
    assert.include((invalidResponse({ jsonrpc: "2.0", id: "a" }) as any).error.message, "neither a result nor an error")
    assert.include((invalidResponse({ jsonrpc: "2.0", id: 1, error: [1] }) as any).error.message, "its error is an array")
    assert.isUndefined(invalidResponse({ jsonrpc: "2.0", method: "x", id: 1 }))
    assert.isUndefined(invalidResponse({ jsonrpc: "2.0", result: 1 }))
    assert.isUndefined(invalidResponse("text"))
  })
})
