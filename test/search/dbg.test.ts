import { it, assert } from "@effect/vitest"
import { parsePattern } from "../../src/search/regex/parse.js"
import { emitPattern } from "../../src/search/regex/emit.js"
it("dbg", () => {
  for (const p of ["na.ve", "\\s$", "a\\sb"]) {
    const r = parsePattern(p)
    if (r._tag === "Parsed") console.log(p, JSON.stringify(emitPattern(r.node, "ere")))
  }
  assert.isTrue(true)
})
