import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"
import { MAX_GLOB_BRACE_EXPANSIONS } from "../../src/search/constants.js"
import { countBraceExpansions, validateBraceExpansion } from "../../src/search/braces.js"
import { validateGlobPattern } from "../../src/search/glob.js"

// micromatch (fast-glob's matcher, the one that expands) has no bundled types
const micromatch = createRequire(import.meta.url)("micromatch") as {
  readonly braces: (pattern: string, options: { readonly expand: boolean }) => ReadonlyArray<string>
}

describe("brace expansion count", () => {
  it.each([
    "**/*.ts",
    "src/*.{ts,tsx}",
    "{a,b}{c,d}",
    "{a,{b,c}d}",
    "x{1..10}y",
    "{1..10..3}",
    "{a..e..2}",
    "{a,b",
    "a\\{b,c}",
    "{a}",
    "{a,b}/{c,{d,e}{f,g}}/*.{js,jsx,ts}",
    "{,a}{b,}"
  ])("counts %s as micromatch expands it", (pattern) => {
    expect(countBraceExpansions(pattern)).toBe(micromatch.braces(pattern, { expand: true }).length)
  })

  it("refuses a pattern one past the limit and accepts one at it", () => {
    // 2^10 = 1024 = the limit; one more two-way group doubles it
    const atLimit = "{a,b}".repeat(10)
    expect(countBraceExpansions(atLimit)).toBe(MAX_GLOB_BRACE_EXPANSIONS)
    expect(validateBraceExpansion(atLimit)).toBeUndefined()
    const over = `${atLimit}{c,d}`
    expect(validateGlobPattern(over)).toMatch(/expands its \{…\} groups into 2,048 patterns .*Rewrite it/)
  })

  it("counts twenty groups without expanding them, and huge ranges", () => {
    expect(countBraceExpansions("{a,b}".repeat(20))).toBe(2 ** 20)
    expect(countBraceExpansions("{1..100000000}")).toBe(100_000_000)
    expect(validateGlobPattern("{a,b}".repeat(400))).toMatch(/more than a quadrillion patterns/)
    expect(validateGlobPattern("{".repeat(100_000) + "a,b" + "}".repeat(100_000))).toMatch(/more than a quadrillion/)
  })
})
