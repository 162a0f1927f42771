import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { declareTool, defineTool, Kind, PathParam, paramsJsonSchema, textResult } from "../../src/tool/index.js"

const params = Schema.Struct({ file_path: PathParam("The file to note"), note: Schema.optionalKey(Schema.String) })
const declaration = declareTool({ name: "note", displayName: "Note", description: "Adds a note.", kind: Kind.Edit, params })
const invoke = () => Effect.succeed({ description: "note", execute: () => Effect.succeed(textResult("ok")) })

describe("declareTool: what every session's tool shares", () => {
  it("tools defined from one declaration share its params' JSON Schema and path fields, derived once", () => {
    // each session defines its tools again on their first call; the Schema walk is not repeated
    const a = defineTool({ ...declaration, invoke })
    const b = defineTool({ ...declaration, invoke })
    assert.strictEqual(a.parametersJsonSchema, b.parametersJsonSchema)
    assert.strictEqual(a.parametersJsonSchema, declaration.info.parametersJsonSchema)
    assert.deepStrictEqual(a.parametersJsonSchema, paramsJsonSchema(params))
    assert.deepStrictEqual(a.pathFields, ["file_path"])
    // a renamed tool keeps them too
    assert.strictEqual(a.withName("note2").parametersJsonSchema, a.parametersJsonSchema)
    // the shared part is not a listed key of the declaration
    assert.notInclude(Object.keys(declaration), "parametersJsonSchema")
  })

  it("a spec that spreads a declaration but brings other params derives from its own", () => {
    const other = Schema.Struct({ text: Schema.String })
    const tool = defineTool({ ...declaration, params: other, invoke })
    assert.deepStrictEqual(tool.parametersJsonSchema, paramsJsonSchema(other))
    assert.notStrictEqual(tool.parametersJsonSchema, declaration.info.parametersJsonSchema)
    assert.deepStrictEqual(tool.pathFields, [])
  })
})
