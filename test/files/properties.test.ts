/**
 * Property: an edit through the real tools changes exactly the matched span; every byte before and
 * after it is identical, in every encoding, BOM and line-ending style.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import iconv from "iconv-lite"
import fc from "fast-check"
import { Effect } from "effect"
import { fileWorld } from "./helpers.js"

interface Style { readonly name: string; readonly encode: (text: string) => Buffer; readonly safe: (s: string) => string }

const ascii = (s: string) => s.replace(/[^\x20-\x7e]/g, "?")
const styles: ReadonlyArray<Style> = [
  { name: "utf-8", encode: (t) => Buffer.from(t), safe: (s) => s },
  { name: "utf-8 bom crlf", encode: (t) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t.replaceAll("\n", "\r\n"))]), safe: (s) => s },
  { name: "utf-16le bom", encode: (t) => Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(t, "utf-16le")]), safe: (s) => s },
  { name: "gbk crlf", encode: (t) => iconv.encode(t.replaceAll("\n", "\r\n"), "gbk"), safe: (s) => ascii(s) + "中文" }
]

const lineArb = fc.string({ unit: fc.constantFrom("a", "b", " ", "é", "x", "(", ")", "$", "'"), maxLength: 12 })

describe("edit property: bytes outside the matched span never change", () => {
  it("for random files, encodings and replacements (seeded)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...styles),
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        fc.nat(),
        lineArb,
        async (style, rawLines, pick, replacement) => {
          const lines = rawLines.map(style.safe)
          const at = pick % lines.length
          const target = `UNIQUE_${at}_${lines[at]}`
          lines[at] = target
          const text = lines.join("\n") + "\n"
          const neu = style.safe(replacement) + "!"
          const before = style.encode(text)
          const expected = style.encode(text.replace(target, () => neu))
          const after = await Effect.runPromise(Effect.scoped(Effect.gen(function*() {
            const w = yield* fileWorld()
            const file = w.file("p.txt", before)
            yield* w.read.call({ file_path: file, offset: 0, limit: 1 })
            yield* w.edit.call({ file_path: file, old_string: target, new_string: neu })
            return fs.readFileSync(file)
          })))
          // The whole file is exactly the old bytes with the span's encoding swapped.
          assert.strictEqual(after.toString("hex"), expected.toString("hex"), style.name)
          const prefix = style.encode(text.slice(0, text.indexOf(target)))
          const suffix = style.encode(text.slice(text.indexOf(target) + target.length)).subarray(style.name.includes("bom") ? (style.name.startsWith("utf-16") ? 2 : 3) : 0)
          assert.isTrue(after.subarray(0, prefix.length).equals(before.subarray(0, prefix.length)))
          assert.isTrue(after.subarray(after.length - suffix.length).equals(before.subarray(before.length - suffix.length)))
        }
      ),
      { seed: 20260, numRuns: 60 }
    )
  }, 60_000)
})
