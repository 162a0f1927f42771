/**
 * grep_search's `case_sensitive`: every backend (ripgrep, git grep, grep, JS) matches letters only
 * in the case written when asked, and case-insensitively by default.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { selectGrepBackend } from "../../src/search/grep/select.js"
import type { GrepBackendName } from "../../src/search/grep/types.js"

const BACKENDS: ReadonlyArray<GrepBackendName> = ["ripgrep", "git-grep", "grep", "js"]
const IGNORE = { gitignore: true, toolwrightIgnore: true } as const

describe("grep case sensitivity on every backend", () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-case-")))
  fs.writeFileSync(path.join(root, "a.txt"), "Needle one\nneedle two\nNEEDLE three\nhay\n")

  for (const force of BACKENDS) {
    it.effect(`${force}: default case-insensitive finds 3 lines; case_sensitive finds only the spelling asked for`, () =>
      Effect.gen(function*() {
        const backend = yield* selectGrepBackend(root, { force })
        const lines = (pattern: string, caseSensitive?: boolean) =>
          Effect.map(
            backend.search({ pattern, root, ignore: IGNORE, ...(caseSensitive !== undefined ? { caseSensitive } : {}) }),
            (r) => r.matches.map((m) => m.line)
          )
        assert.deepStrictEqual(yield* lines("needle"), [1, 2, 3])
        assert.deepStrictEqual(yield* lines("needle", false), [1, 2, 3])
        assert.deepStrictEqual(yield* lines("needle", true), [2])
        assert.deepStrictEqual(yield* lines("N[E]EDLE", true), [3])
        assert.deepStrictEqual(yield* lines("[^n]eedle", true), [1])
      }))
  }
})
