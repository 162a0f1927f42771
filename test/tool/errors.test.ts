import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { EditNoOccurrenceFound, isToolError, TOOL_ERROR_CLASSES, TOOL_ERROR_CODES } from "../../src/tool/errors.js"

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
})
