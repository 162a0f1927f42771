/**
 * Edit scenarios, one folder each under `test/fixtures/edit/NNN_name/`:
 * - `before`: the file's text;
 * - `request.json`: `old_string`, `new_string`, optional `replace_all`, and optionally the `rung`
 *   the match must come from;
 * - `after`: the text the edit must produce, or `refused`: the fields (JSON) of the refusal
 *   `resolveEdit` must answer with (`_tag`, and for example `rung` and `lines`).
 * Adding a case is adding a folder.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { resolveEdit } from "../../src/text/index.js"

const ROOT = path.join(__dirname, "..", "fixtures", "edit")

interface Request {
  readonly old_string: string
  readonly new_string: string
  readonly replace_all?: boolean
  readonly rung?: string
}

const read = (dir: string, name: string): string | undefined => {
  const file = path.join(dir, name)
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : undefined
}

const scenarios = fs.readdirSync(ROOT).filter((name) => /^\d{3}_/.test(name)).sort()

describe("edit scenarios (test/fixtures/edit)", () => {
  it("there are scenarios, each with exactly one of after and refused", () => {
    assert.isAbove(scenarios.length, 30)
    for (const name of scenarios) {
      const dir = path.join(ROOT, name)
      assert.isTrue((read(dir, "after") === undefined) !== (read(dir, "refused") === undefined), name)
    }
  })

  for (const name of scenarios) {
    it(name, () => {
      const dir = path.join(ROOT, name)
      const before = read(dir, "before")!
      const request = JSON.parse(read(dir, "request.json")!) as Request
      const result = resolveEdit(before, request.old_string, request.new_string, {
        replaceAll: request.replace_all === true
      })
      const after = read(dir, "after")
      if (after !== undefined) {
        if (result._tag !== "Match") assert.fail(`expected a match, got ${JSON.stringify(result)}`)
        assert.strictEqual(result.newContent, after)
        if (request.rung !== undefined) assert.strictEqual(result.rung, request.rung)
        return
      }
      const refused = JSON.parse(read(dir, "refused")!) as Record<string, unknown>
      const actual = result as unknown as Record<string, unknown>
      for (const [key, value] of Object.entries(refused)) assert.deepStrictEqual(actual[key], value, key)
    })
  }
})
