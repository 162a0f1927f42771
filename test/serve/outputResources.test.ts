import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { Deferred, Effect, Result } from "effect"
import { DEFAULT_PAGE_LINES, outputUri, PAGE_META, parseOutputUri, RESOURCE_NOT_FOUND } from "../../src/serve/outputResources.js"
import { startServer } from "../../src/serve/server.js"
import { factoriesOf, makeTempDir } from "../support/session.js"
import { bigTool, echoTool, makeText } from "../support/tools.js"

describe("parseOutputUri", () => {
  it("reads the id, offset and limit, with defaults", () => {
    assert.deepStrictEqual(parseOutputUri("toolwright://output/big_0123"), Result.succeed({ id: "big_0123", offsetLine: 0, limitLines: DEFAULT_PAGE_LINES }))
    assert.deepStrictEqual(parseOutputUri("toolwright://output/big_0123?offset=5&limit=1"), Result.succeed({ id: "big_0123", offsetLine: 5, limitLines: 1 }))
    assert.deepStrictEqual(parseOutputUri(outputUri("a b", { offsetLine: 2, limitLines: 3 })), Result.succeed({ id: "a b", offsetLine: 2, limitLines: 3 }))
  })
  it("refuses what it cannot page", () => {
    const failure = (uri: string) => {
      const r = parseOutputUri(uri)
      return Result.isFailure(r) ? r.failure : "parsed"
    }
    assert.strictEqual(failure("file:///x"), "Not a toolwright output URI: file:///x")
    assert.strictEqual(failure("toolwright://output/x?limit=0"), `"limit" must be an integer of 1 or more, got "0".`)
    assert.strictEqual(failure("toolwright://output/x?offset=-1"), `"offset" must be an integer of 0 or more, got "-1".`)
    assert.strictEqual(failure("toolwright://output/x?offset=1.5"), `"offset" must be an integer of 0 or more, got "1.5".`)
    assert.strictEqual(failure("toolwright://output/x?page=2"), "Unknown query parameter(s) page: only offset and limit are accepted.")
    assert.strictEqual(failure("toolwright://output/"), "The output URI must be toolwright://output/<id>, got toolwright://output/")
    assert.strictEqual(failure("toolwright://output/a/b"), "The output URI must be toolwright://output/<id>, got toolwright://output/a/b")
    assert.strictEqual(failure("toolwright://output/%E0%A4%A"), "The output id in toolwright://output/%E0%A4%A is not valid percent-encoding.")
  })
})

const connect = (capabilities: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
    yield* startServer({
      roots: [makeTempDir("tw-res-root-")],
      stateDir: makeTempDir("tw-res-state-"),
      builtins: false,
      mode: "yolo",
      tools: factoriesOf([bigTool("big"), echoTool("echo", { deferred: false })])
    }, serverTransport)
    const client = new Client({ name: "t", version: "0" }, { capabilities })
    yield* Effect.acquireRelease(Effect.promise(() => client.connect(clientTransport)), () => Effect.promise(() => client.close()))
    return client
  })

type Link = { type: string; uri: string; name: string; description: string; mimeType: string; size: number }

describe("saved outputs as MCP resources", () => {
  it.live("a cut result carries a resource_link beside the path; the output is listed and read in pages that add up to the file", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const changed = yield* Deferred.make<void>()
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        Deferred.doneUnsafe(changed, Effect.void)
      })
      assert.deepStrictEqual((yield* Effect.promise(() => client.listResources())).resources, [])

      const result = yield* Effect.promise(() => client.callTool({ name: "big", arguments: { size: 60_000 } }))
      const content = result.content as Array<{ type: string; text?: string } & Partial<Link>>
      assert.deepStrictEqual(content.map((c) => c.type), ["text", "resource_link"])
      const link = content[1] as Link
      const path = /Full output saved to: (\S+)/.exec(content[0]!.text!)![1]!
      assert.strictEqual(link.uri, `toolwright://output/${link.name}`)
      assert.isTrue(path.endsWith(`/${link.name}.output`))
      assert.strictEqual(link.mimeType, "text/plain")
      assert.strictEqual(link.size, 60_000)
      assert.include(link.description, "Full output of big (600 lines, 59 KB)")
      assert.include(link.description, `${link.uri}?offset=0&limit=${DEFAULT_PAGE_LINES}`)
      yield* Deferred.await(changed).pipe(Effect.timeout("5 seconds"))

      const listed = (yield* Effect.promise(() => client.listResources())).resources
      assert.deepStrictEqual(listed.map((r) => [r.uri, r.name, r.size]), [[link.uri, link.name, 60_000]])
      const templates = (yield* Effect.promise(() => client.listResourceTemplates())).resourceTemplates
      assert.deepStrictEqual(templates.map((t) => t.uriTemplate), ["toolwright://output/{id}{?offset,limit}"])

      // pages of 250 lines: 250 + 250 + 100; each but the last says where the next one is
      const pages: Array<string> = []
      for (let offset = 0; offset < 600; offset += 250) {
        const read = yield* Effect.promise(() => client.readResource({ uri: `${link.uri}?offset=${offset}&limit=250` }))
        const [page, note] = read.contents as Array<{ uri: string; text: string; _meta?: Record<string, any> }>
        pages.push(page!.text)
        const meta = page!._meta![PAGE_META]
        assert.strictEqual(meta.offsetLine, offset)
        assert.strictEqual(meta.totalLines, 600)
        assert.strictEqual(meta.hasMore, offset + 250 < 600)
        if (meta.hasMore) {
          assert.strictEqual(note!.uri, `${link.uri}?offset=${offset + 250}&limit=250`)
          assert.strictEqual(note!.text, `[toolwright: lines ${offset + 1}-${offset + 250} of 600 shown; ${350 - offset} more. Read ${note!.uri} for the next page.]`)
        } else {
          assert.strictEqual(read.contents.length, 1)
          assert.strictEqual(meta.lineCount, 100)
        }
      }
      assert.strictEqual(pages.join(""), makeText(60_000))
      assert.strictEqual(pages.join(""), fs.readFileSync(path, "utf8"))

      // the default page is the first DEFAULT_PAGE_LINES lines (here: all 600)
      const whole = yield* Effect.promise(() => client.readResource({ uri: link.uri }))
      assert.strictEqual((whole.contents[0] as { text: string }).text, makeText(60_000))
    }), 30_000)

  it.live("a small result has no link; unknown ids and bad pages are MCP errors", () =>
    Effect.gen(function*() {
      const client = yield* connect()
      const small = yield* Effect.promise(() => client.callTool({ name: "echo", arguments: { message: "hi" } }))
      assert.deepStrictEqual(small.content, [{ type: "text", text: "hi" }])
      const missing = yield* Effect.flip(Effect.tryPromise(() => client.readResource({ uri: "toolwright://output/nope_0000" })))
      assert.strictEqual((missing.cause as { code: number }).code, RESOURCE_NOT_FOUND)
      assert.include(String(missing.cause), "no saved output 'nope_0000' in this session")
      const bad = yield* Effect.flip(Effect.tryPromise(() => client.readResource({ uri: "toolwright://output/x?limit=0" })))
      assert.strictEqual((bad.cause as { code: number }).code, -32602)
    }), 30_000)
})
