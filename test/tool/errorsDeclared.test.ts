/**
 * Tool errors are declared once: each class names its wire code, and the union, the code list and
 * the lookups come from TOOL_ERROR_CLASSES. These tests hold the derivations to that: a class that
 * is exported but not listed, a tag that is not its code, or a union that drifts from the list
 * fails here (the type-level checks fail `tsc`, which `npm test` runs).
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { expectTypeOf } from "vitest"
import { BudgetExhausted } from "../../src/mcp/errors.js"
import { codedError, tagOf, type TagOf } from "../../src/tool/codedError.js"
import * as Errors from "../../src/tool/errors.js"
import {
  errorCode,
  FileChangedSinceRead,
  FileNotFound,
  FileWriteFailure,
  hasCode,
  isToolError,
  NoSpaceLeft,
  PermissionDenied,
  restate,
  TOOL_ERROR_CLASSES,
  TOOL_ERROR_CODES,
  type ToolError,
  toolErrorClass,
  type ToolErrorCode
} from "../../src/tool/errors.js"

/** The instance type of every class the module exports that carries a wire code. */
type ExportedCodedClass = {
  [K in keyof typeof Errors]: (typeof Errors)[K] extends { readonly code: string } & (abstract new(...args: never) => infer I)
    ? I
    : never
}[keyof typeof Errors]

describe("tool errors declared once", () => {
  it("the union is exactly the listed classes, and every exported error class is listed (type level)", () => {
    // A class declared with toolError but left out of TOOL_ERROR_CLASSES makes these unequal.
    expectTypeOf<ExportedCodedClass>().toEqualTypeOf<ToolError>()
    expectTypeOf<ToolError>().toEqualTypeOf<InstanceType<(typeof TOOL_ERROR_CLASSES)[number]>>()
    expectTypeOf<ToolErrorCode>().toEqualTypeOf<(typeof TOOL_ERROR_CODES)[number]>()
    expectTypeOf<ToolErrorCode>().not.toEqualTypeOf<string>()
    // One class per code, and its tag is the code in PascalCase.
    expectTypeOf<Extract<ToolError, { readonly code: "file_not_found" }>>().toEqualTypeOf<FileNotFound>()
    type TagsMatchCodes = { [C in ToolErrorCode]: Extract<ToolError, { readonly code: C }>["_tag"] extends TagOf<C> ? true : C }[
      ToolErrorCode
    ]
    expectTypeOf<TagsMatchCodes>().toEqualTypeOf<true>()
    expectTypeOf(toolErrorClass("no_space_left")).toEqualTypeOf<typeof NoSpaceLeft>()
    // constructor shape as before: a message, an optional display, nothing else
    expectTypeOf<ConstructorParameters<typeof FileNotFound>[0]>().toMatchTypeOf<{ message: string; display?: string }>()
    // @ts-expect-error a misspelt field is refused
    assert.throws(() => new FileNotFound({ mesage: "x" }))
  })

  it("every exported class with a wire code is in TOOL_ERROR_CLASSES, once", () => {
    const exported = Object.values(Errors).filter((v) => typeof v === "function" && "code" in v)
    assert.sameMembers(exported, [...TOOL_ERROR_CLASSES])
    assert.strictEqual(new Set(TOOL_ERROR_CLASSES).size, TOOL_ERROR_CLASSES.length)
    assert.deepStrictEqual(TOOL_ERROR_CODES, TOOL_ERROR_CLASSES.map((c) => c.code))
  })

  it("each class's tag and name are its code in PascalCase", () => {
    for (const cls of TOOL_ERROR_CLASSES) {
      const error = new cls({ message: "m" })
      assert.strictEqual(error._tag, tagOf(cls.code))
      assert.strictEqual(cls.name, error._tag)
      assert.strictEqual(toolErrorClass(cls.code), cls)
    }
    assert.strictEqual(tagOf("search_path_not_a_directory"), "SearchPathNotADirectory")
    assert.strictEqual(tagOf("unknown"), "Unknown")
  })

  it("the code is data: it is encoded, decoded and checked like any field", () => {
    const encoded = Schema.encodeSync(FileNotFound)(new FileNotFound({ message: "gone", display: "d" }))
    assert.deepStrictEqual(encoded, { _tag: "FileNotFound", message: "gone", display: "d", code: "file_not_found" })
    const decoded = Schema.decodeUnknownSync(FileNotFound)({ _tag: "FileNotFound", message: "gone", code: "file_not_found" })
    assert.strictEqual(decoded.code, "file_not_found")
    assert.isTrue(isToolError(decoded))
    assert.throws(() => Schema.decodeUnknownSync(FileNotFound)({ _tag: "FileNotFound", message: "m", code: "unknown" }))
  })

  it("hasCode and errorCode match by code, whatever the class", () => {
    const changed = new FileChangedSinceRead({ message: "m" })
    assert.isTrue(hasCode(changed, FileChangedSinceRead))
    assert.isFalse(hasCode(changed, FileNotFound))
    assert.strictEqual(errorCode(changed), "file_changed_since_read")
    // another copy of the class (a second copy of the module, a bundle): same code, other class
    const copy = { _tag: "FileChangedSinceRead", code: "file_changed_since_read", message: "m" }
    assert.isTrue(hasCode(copy, FileChangedSinceRead))
    // an errno-coded failure is not a tool error, even though it has a string `code`
    const errno = { _tag: "AtomicWriteError", code: "ENOENT", message: "m" }
    assert.isFalse(hasCode(errno, FileChangedSinceRead))
    assert.isUndefined(errorCode(errno))
    assert.isUndefined(errorCode(new Error("x")))
  })

  it("restate keeps the code and replaces the message", () => {
    for (const error of [new PermissionDenied({ message: "a" }), new NoSpaceLeft({ message: "a" }), new FileWriteFailure({ message: "a" })]) {
      const again = restate(error, { message: "while saving todos: a", display: "d" })
      assert.strictEqual(again.code, error.code)
      assert.strictEqual(again._tag, error._tag)
      assert.strictEqual(again.message, "while saving todos: a")
      assert.strictEqual(again.display, "d")
      assert.strictEqual(again.constructor, error.constructor)
    }
  })

  it("codedError serves errors of other rooms with their own fields and codes (not tool errors)", () => {
    const refused = new BudgetExhausted({ server: "s", budget: 1, message: "full" })
    assert.strictEqual(refused._tag, "BudgetExhausted")
    assert.strictEqual(refused.code, "budget_exhausted")
    assert.strictEqual(BudgetExhausted.code, "budget_exhausted")
    assert.strictEqual(refused.budget, 1)
    assert.isFalse(isToolError(refused))
    class Local extends codedError<Local>()("local_failure", { message: Schema.String, path: Schema.String }) {}
    const local = new Local({ message: "m", path: "/p" })
    assert.deepStrictEqual([local._tag, local.code, local.path], ["LocalFailure", "local_failure", "/p"])
  })
})
