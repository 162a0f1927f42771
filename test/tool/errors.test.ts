import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import {
  EditNoOccurrenceFound,
  isToolError,
  TOOL_ERROR_CLASSES,
  TOOL_ERROR_CODES,
  Unknown
} from "../../src/tool/errors.js"

describe("tool errors", () => {
  it.effect("carry their wire code, message and tag", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(new EditNoOccurrenceFound({ message: "not found" }))
      assert.isTrue(Exit.isFailure(exit))
      const error = new EditNoOccurrenceFound({ message: "m", display: "d" })
      assert.strictEqual(error.code, "edit_no_occurrence_found")
      assert.strictEqual(EditNoOccurrenceFound.code, "edit_no_occurrence_found")
      assert.strictEqual(error._tag, "EditNoOccurrenceFound")
      assert.strictEqual(error.message, "m")
      assert.strictEqual(error.display, "d")
      assert.isTrue(isToolError(error))
      assert.isFalse(isToolError(new Error("x")))
    }))

  it("has one class per code, codes unique and snake_case", () => {
    assert.strictEqual(new Set(TOOL_ERROR_CODES).size, TOOL_ERROR_CLASSES.length)
    for (const code of TOOL_ERROR_CODES) assert.match(code, /^[a-z]+(_[a-z]+)*$/)
    for (const cls of TOOL_ERROR_CLASSES) {
      const e = new cls({ message: "x" })
      assert.strictEqual(e.code, cls.code)
      assert.isTrue(isToolError(e))
    }
  })

  it("recognises a tool error by its wire code, whatever its class is called", () => {
    // what a bundler does: the same class under another name
    const Unknown3 = class extends Unknown {}
    Object.defineProperty(Unknown3, "name", { value: "Unknown3" })
    assert.isTrue(isToolError(new Unknown3({ message: "x" })))
    // another copy of the class (a second copy of this module), with the same tag and code
    class Copy extends Schema.TaggedError<Copy>()("EditNoOccurrenceFound", { message: Schema.String }) {
      readonly code = "edit_no_occurrence_found" as const
    }
    assert.isTrue(isToolError(new Copy({ message: "x" })))
    // a plain object that carries a tag, a known code and a message
    assert.isTrue(isToolError({ _tag: "Renamed", code: "file_not_found", message: "gone" }))
  })

  it("refuses what is not a tool error: an unknown code, no tag, no message", () => {
    assert.isFalse(isToolError({ _tag: "Unknown", code: "no_such_code", message: "x" }))
    assert.isFalse(isToolError({ code: "unknown", message: "x" }))
    assert.isFalse(isToolError({ _tag: "Unknown", code: "unknown" }))
    assert.isFalse(isToolError({ _tag: "Unknown", message: "x" }))
    assert.isFalse(isToolError(null))
    assert.isFalse(isToolError("unknown"))
  })
})
