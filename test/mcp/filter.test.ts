import { assert, describe, it } from "@effect/vitest"
import { isToolEnabled } from "../../src/mcp/filter.js"

describe("tool filter (reference §13.4 vectors)", () => {
  it("include ['a']: a ✓, b ✗", () => {
    assert.isTrue(isToolEnabled("a", ["a"], []))
    assert.isFalse(isToolEnabled("b", ["a"], []))
  })
  it("include ['a(args)']: a ✓", () => {
    assert.isTrue(isToolEnabled("a", ["a(args)"], []))
    assert.isFalse(isToolEnabled("ab", ["a(args)"], []))
  })
  it("exclude wins over include", () => {
    assert.isFalse(isToolEnabled("a", ["a"], ["a"]))
  })
  it("no include: everything but the excluded; nameless never", () => {
    assert.isTrue(isToolEnabled("x", undefined, []))
    assert.isFalse(isToolEnabled("x", undefined, ["x"]))
    assert.isFalse(isToolEnabled("", undefined, []))
  })
})
