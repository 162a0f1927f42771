import { assert, it } from "@effect/vitest"
import { resolveEdit } from "../../src/text/index.js"

it("prof", () => {
  let t0 = performance.now()
  const lap = (label: string) => { const t = performance.now(); console.log("LAP", label, (t - t0).toFixed(0)); t0 = t }
  const parts: string[] = []
  let size = 0, i = 0
  while (size < 20 * 1024 * 1024) { const t = `    const value_${i} = compute(${i}, "x");`; i++; parts.push(t); size += t.length + 1 }
  const content = parts.join("\n") + "\n"
  lap("build")
  const at = Math.floor(i / 2)
  const needle = [at, at + 1, at + 2].map((i) => `    const value_${i} = compute(${i}, "x");`)
  needle[1] = needle[1]!.replace("\"x\"", "\"y\"")
  const r = resolveEdit(content, needle.join("\n"), "replacement")
  lap("resolve")
  const r2 = resolveEdit(content, needle.join("\n"), "replacement")
  lap("resolve2")
  const parts2: string[] = []
  size = 0
  while (size < 20 * 1024 * 1024) { const t = "    return value;"; parts2.push(t); size += t.length + 1 }
  const c2 = parts2.join("\n") + "\n"
  lap("build2")
  const n2 = "return value;\n".repeat(2000) + "return other;\n"
  resolveEdit(c2, n2, "x")
  lap("resolve3")
  assert.isTrue(r._tag === r2._tag)
})
