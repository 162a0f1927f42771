import { it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { paramsJsonSchema } from "../../src/tool/index.js"

const params = Schema.Struct({
  a: Schema.Array(Schema.String).check(Schema.makeFilter(() => true, { toJsonSchema: () => ({ minItems: 2, maxItems: 4 }) })),
  b: Schema.Array(Schema.String).check(Schema.isMinLength(1, { message: "m" }), Schema.isMaxLength(4, { message: "m" })),
  c: Schema.String.check(Schema.isPattern(/\S/u, { message: "x" })).annotate({ description: "c" }),
  d: Schema.Boolean.pipe(Schema.withDecodingDefaultKey(Effect.succeed(false))).annotate({ description: "d" }),
  e: Schema.optionalKey(Schema.Boolean.annotate({ description: "e", default: false })),
  m: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown).annotate({ description: "meta" })),
  n: Schema.optionalKey(Schema.Record(Schema.String, Schema.NullOr(Schema.Json)).annotate({ description: "meta" }))
})

it.effect("scratch", () => Effect.gen(function*() {
  console.log(JSON.stringify(paramsJsonSchema(params), null, 1))
}))
