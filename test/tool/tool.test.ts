import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import {
  CONCURRENCY_SAFE_KINDS,
  declarations,
  defineJsonSchemaTool,
  defineTool,
  InvalidToolParams,
  Kind,
  MUTATOR_KINDS,
  PathNotInWorkspace,
  PathParam,
  textResult
} from "../../src/tool/index.js"
import type { BuildContext } from "../../src/tool/tool.js"
import { echoTool, touchTool } from "../support/tools.js"

describe("Tool.build", () => {
  it.effect("decodes valid args into an invocation", () =>
    Effect.gen(function*() {
      const invocation = yield* touchTool.build({ file_path: "a/b.txt", count: 2 })
      assert.deepStrictEqual(invocation.params, { file_path: "a/b.txt", count: 2 })
      assert.strictEqual(invocation.description, "touch a/b.txt")
      assert.strictEqual(yield* invocation.defaultPermission, "ask")
      assert.deepStrictEqual(invocation.tool.pathFields, ["file_path"])
      // no build context (a direct call): nothing resolves the path, the call claims no locations
      assert.deepStrictEqual(invocation.locations, [])
      assert.isFalse(invocation.concurrencySafe)
    }))

  it.effect("names the field and the problem for a missing key, a wrong type and an excess property", () =>
    Effect.gen(function*() {
      const missing = yield* Effect.flip(touchTool.build({}))
      assert.instanceOf(missing, InvalidToolParams)
      assert.strictEqual(missing.code, "invalid_tool_params")
      assert.include(missing.message, "params.file_path")
      assert.include(missing.message, "Missing key")
      const wrong = yield* Effect.flip(touchTool.build({ file_path: "x", count: "2" }))
      assert.include(wrong.message, "params.count")
      assert.include(wrong.message, "Expected")
      const extra = yield* Effect.flip(touchTool.build({ file_path: "x", colour: "red" }))
      assert.include(extra.message, "params.colour")
      const empty = yield* Effect.flip(touchTool.build({ file_path: "" }))
      assert.include(empty.message, "params.file_path")
      const notObject = yield* Effect.flip(touchTool.build("file_path"))
      assert.include(notObject.message, "params")
    }))

  it.effect("runs the tool's own value checks after the Schema", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(touchTool.build({ file_path: "x", count: -1 }))
      assert.strictEqual(error.message, "params.count: must not be negative")
    }))

  it.effect("can be called straight from an Effect program with typed params and result", () =>
    Effect.gen(function*() {
      const echo = echoTool()
      const result = yield* echo.call({ message: "hi" })
      // result.data is typed as { echoed: string }
      const echoed: string = result.data.echoed
      assert.strictEqual(echoed, "hi")
      assert.deepStrictEqual(result.llmContent, [{ type: "text", text: "hi" }])
      const failure = yield* Effect.exit(echo.call({ message: "x", fail: true }))
      assert.isTrue(Exit.isFailure(failure))
      const error = yield* Effect.flip(echo.call({ message: "x", fail: true }))
      // the error union is typed: InvalidToolParams | ExecutionFailed
      assert.strictEqual(error._tag, "ExecutionFailed")
      assert.strictEqual(error.code, "execution_failed")
    }))

  it("marks path params by Schema key annotation, not by a list", () => {
    assert.deepStrictEqual(touchTool.pathFields, ["file_path"])
    assert.deepStrictEqual(echoTool().pathFields, [])
  })

  it("defaults: allow permission, both-ends truncation, fail-closed classifier input", () =>
    Effect.runPromise(Effect.gen(function*() {
      const echo = echoTool("e", { deferred: false })
      const invocation = yield* echo.build({ message: "m" })
      assert.strictEqual(yield* invocation.defaultPermission, "allow")
      assert.strictEqual(echo.truncateKeep, "both")
      assert.strictEqual(echo.maxOutputChars, undefined)
      assert.strictEqual(echo.toAutoClassifierInput({ message: "secret" }), "")
      const details = yield* invocation.confirmation
      assert.strictEqual(details.type, "info")
    })))

  it("renames keep the behaviour", () =>
    Effect.runPromise(Effect.gen(function*() {
      const renamed = echoTool("e").withName("mcp__srv__e")
      assert.strictEqual(renamed.name, "mcp__srv__e")
      const invocation = yield* renamed.build({ message: "m" })
      assert.strictEqual(invocation.tool.name, "mcp__srv__e")
      const result = yield* renamed.call({ message: "m" })
      assert.strictEqual(result.data.echoed, "m")
    })))
})

describe("Kind", () => {
  it("mutators and concurrency-safe kinds follow the reference", () => {
    assert.deepStrictEqual([...MUTATOR_KINDS].sort(), ["delete", "edit", "execute", "move"])
    assert.deepStrictEqual([...CONCURRENCY_SAFE_KINDS].sort(), ["fetch", "read", "search"])
  })

  it.effect("Think is not concurrency-safe: a Think tool that writes a file must not race another", () =>
    Effect.gen(function*() {
      // todo_write is Kind Think and replaces a file on every call; two in one batch must run in order.
      const todo = defineTool({
        name: "todo_like",
        displayName: "TodoLike",
        description: "writes a list",
        kind: Kind.Think,
        params: Schema.Struct({}),
        invoke: () => Effect.succeed({ description: "write", execute: () => Effect.succeed(textResult("ok")) })
      })
      const invocation = yield* todo.build({})
      assert.isFalse(invocation.concurrencySafe)
      assert.isFalse(CONCURRENCY_SAFE_KINDS.has(Kind.Think))
    }))
})

describe("declarations", () => {
  const tools = [touchTool, echoTool("b_tool"), echoTool("a_tool", { kind: Kind.Execute })]
  for (const format of ["mcp", "openai", "anthropic", "gemini"] as const) {
    it(`${format} declarations are sorted and stable`, async () => {
      const list = declarations(tools, format)
      await expectSnapshot(JSON.stringify(list, null, 2), `declarations.${format}.json`)
    })
  }

  it("MCP annotations derive from Kind", () => {
    const [a, b, touch] = declarations(tools, "mcp")
    assert.strictEqual(a!.name, "a_tool")
    assert.deepStrictEqual(a!.annotations, { title: "Echo a_tool", readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true })
    assert.deepStrictEqual(b!.annotations, { title: "Echo b_tool", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false })
    assert.strictEqual(touch!.annotations.destructiveHint, true)
    assert.deepStrictEqual(touch!.inputSchema.required, ["file_path"])
    assert.strictEqual(touch!.inputSchema.additionalProperties, false)
  })

  it("ties on name break by display name", () => {
    const x = { ...echoTool("same"), displayName: "B" }
    const y = { ...echoTool("same"), displayName: "A" }
    assert.deepStrictEqual(declarations([x, y], "anthropic").map((d) => d.name), ["same", "same"])
    assert.deepStrictEqual(declarations([x, y], "mcp").map((d) => d.title), ["A", "B"])
  })
})

import { expect } from "vitest"
const expectSnapshot = (text: string, file: string) => expect(text).toMatchFileSnapshot(`./__snapshots__/${file}`)

describe("defineJsonSchemaTool", () => {
  const upstreamLike = defineJsonSchemaTool({
    name: "json_tool",
    displayName: "JsonTool",
    description: "params described by a JSON Schema",
    kind: Kind.Other,
    parametersJsonSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
    validateArgs: (args) => Effect.succeed(typeof args["n"] === "number" ? undefined : "params.n: must be number"),
    invoke: (args) => Effect.succeed({ description: `n=${String(args["n"])}`, execute: () => Effect.succeed(textResult(`got ${String(args["n"])}`)) })
  })

  it.effect("passes the schema through unchanged and validates raw arguments before anything runs", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(declarations([upstreamLike], "anthropic")[0]!.input_schema, upstreamLike.parametersJsonSchema)
      assert.strictEqual((yield* Effect.flip(upstreamLike.build([1]))).message, "params: must be an object, got [1]")
      assert.strictEqual((yield* Effect.flip(upstreamLike.build({ n: "x" }))).message, "params.n: must be number")
      const invocation = yield* upstreamLike.build({ n: 2 })
      assert.strictEqual(invocation.description, "n=2")
      assert.deepStrictEqual((yield* invocation.execute()).llmContent, [{ type: "text", text: "got 2" }])
      assert.strictEqual(upstreamLike.withName("renamed").name, "renamed")
    }))
})

describe("Tool.build with a context: locations resolved once, fail closed", () => {
  const resolved: Array<string> = []
  const context: BuildContext = {
    locate: (p) =>
      Effect.suspend(() => {
        resolved.push(p)
        return p.startsWith("..")
          ? Effect.fail(new PathNotInWorkspace({ message: `Path ${p} is outside the workspace.` }))
          : Effect.succeed(`/real/${p}`)
      })
  }

  it.effect("a custom tool's path params reach invoke resolved; its locations are the resolved paths", () =>
    Effect.gen(function*() {
      resolved.length = 0
      const plain = yield* touchTool.build({ file_path: "a.txt" }, context)
      assert.deepStrictEqual(plain.locations, ["/real/a.txt"])
      assert.strictEqual(plain.params.file_path, "/real/a.txt")
      assert.strictEqual(plain.description, "touch /real/a.txt")
      const escaped = yield* touchTool.build({ file_path: "my\\ file.txt" }, context)
      // the tool gets the value as given; the policy also sees its shell-unescaped spelling (fail closed)
      assert.strictEqual(escaped.params.file_path, "/real/my\\ file.txt")
      assert.deepStrictEqual(escaped.locations, ["/real/my\\ file.txt", "/real/my file.txt"])
      assert.deepStrictEqual(resolved, ["a.txt", "my\\ file.txt", "my file.txt"])
      // a direct build (no session) resolves nothing
      assert.strictEqual((yield* touchTool.build({ file_path: "a.txt" })).params.file_path, "a.txt")
    }))

  it.effect("a tool that resolves its own paths but reports no locations gets each value resolved, as given and unescaped", () =>
    Effect.gen(function*() {
      resolved.length = 0
      const self = defineTool({
        name: "self_resolving",
        displayName: "Self",
        description: "resolves its own paths",
        kind: Kind.Read,
        resolvesOwnPaths: true,
        params: Schema.Struct({ file_path: PathParam("a file") }),
        invoke: (p) => Effect.succeed({ description: `read ${p.file_path}`, execute: () => Effect.succeed(textResult("ok")) })
      })
      const escaped = yield* self.build({ file_path: "my\\ file.txt" }, context)
      assert.strictEqual(escaped.params.file_path, "my\\ file.txt")
      assert.deepStrictEqual(escaped.locations, ["/real/my\\ file.txt", "/real/my file.txt"])
      assert.deepStrictEqual(resolved, ["my\\ file.txt", "my file.txt"])
    }))

  it.effect("a path param that does not resolve fails the build with the resolver's typed error", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(touchTool.build({ file_path: "../outside" }, context))
      assert.instanceOf(error, PathNotInWorkspace)
      assert.strictEqual(error.code, "path_not_in_workspace")
    }))

  it.effect("a tool that reports its own locations is not resolved again; a JSON-Schema tool's pathFields count", () =>
    Effect.gen(function*() {
      resolved.length = 0
      const own = defineTool({
        name: "own_locations",
        displayName: "Own",
        description: "reports its locations",
        kind: Kind.Read,
        resolvesOwnPaths: true,
        params: Schema.Struct({ file_path: PathParam("a file") }),
        invoke: (p) => Effect.succeed({ description: "own", locations: [`/mine/${p.file_path}`], execute: () => Effect.succeed(textResult("ok")) })
      })
      const invocation = yield* own.build({ file_path: "x" }, context)
      assert.deepStrictEqual(invocation.locations, ["/mine/x"])
      assert.deepStrictEqual(resolved, [])
      const jsonTool = defineJsonSchemaTool({
        name: "json_paths",
        displayName: "JsonPaths",
        description: "a path in a JSON-Schema tool",
        kind: Kind.Edit,
        parametersJsonSchema: { type: "object", properties: { target: { type: "string" } } },
        pathFields: ["target"],
        validateArgs: () => Effect.succeed(undefined),
        invoke: () => Effect.succeed({ description: "json", execute: () => Effect.succeed(textResult("ok")) })
      })
      assert.deepStrictEqual((yield* jsonTool.build({ target: "t.txt" }, context)).locations, ["/real/t.txt"])
      assert.strictEqual((yield* Effect.flip(jsonTool.build({ target: "../t" }, context))).code, "path_not_in_workspace")
    }))
})
