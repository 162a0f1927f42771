import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { afterAll, beforeAll } from "vitest"
import { globSearch, formatGlobResult } from "../../src/search/glob.js"
import { formatGrepResult } from "../../src/search/grep/format.js"
import { selectGrepBackend } from "../../src/search/grep/select.js"
import type { GrepBackendName } from "../../src/search/grep/types.js"

const DIRS = 100
const SUBDIRS = 10
const FILES = 100
let root = ""
const timings: Record<string, number> = {}

beforeAll(() => {
  const t0 = Date.now()
  const base = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir() // tmpfs when available: fast to create and remove
  root = fs.realpathSync(fs.mkdtempSync(path.join(base, "toolwright-100k-")))
  fs.writeFileSync(path.join(root, ".gitignore"), "d00/\n")
  for (let d = 0; d < DIRS; d++) {
    for (let s = 0; s < SUBDIRS; s++) {
      const dir = path.join(root, `d${String(d).padStart(2, "0")}`, `s${s}`)
      fs.mkdirSync(dir, { recursive: true })
      for (let f = 0; f < FILES; f++) {
        const n = (d * SUBDIRS + s) * FILES + f
        fs.writeFileSync(path.join(dir, `f${f}.txt`), n % 10 === 0 ? `file ${n}\nneedle ${n}\n` : `file ${n}\n`)
      }
    }
  }
  fs.mkdirSync(path.join(root, ".git"))
  timings.generate = Date.now() - t0
}, 60_000)

afterAll(() => {
  const t0 = Date.now()
  fs.rmSync(root, { recursive: true, force: true })
  timings.remove = Date.now() - t0
  console.log(`100k tree wall times (ms): ${JSON.stringify(timings)}`)
}, 60_000)

const timed = <A, E>(label: string, effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const t0 = Date.now()
    const a = yield* effect
    timings[label] = Date.now() - t0
    return a
  })

describe("search over a generated 100,000-file tree", () => {
  for (const force of ["ripgrep", "js"] as ReadonlyArray<GrepBackendName>) {
    it.effect(`grep (${force}) finishes and respects the caps`, () =>
      Effect.gen(function*() {
        const backend = yield* selectGrepBackend(root, { force })
        const request = { pattern: "needle \\d+", root, ignore: { gitignore: true, toolwrightIgnore: true } }
        const result = yield* timed(`grep.${force}`, backend.search(request))
        assert.strictEqual(result.engine, force)
        assert.strictEqual(result.totalMatches, 9_900) // d00 (1,000 files, 100 needles) is git-ignored
        assert.strictEqual(result.matches.length, 1_000)
        assert.strictEqual(result.matches[0]!.path, "d01/s0/f0.txt")
        const out = formatGrepResult(result, { pattern: request.pattern, location: { _tag: "Workspace", directories: 1 } })
        const lines = out.llmContent.split("\n")
        assert.strictEqual(lines[0], `Found 9900 matches for pattern "needle \\d+" in the workspace directory:`)
        // ~26-char lines: the 25,000-char cap cuts before the 1,000-line cap; the cut line ends in "..."
        const listed = lines.slice(2, -2)
        const included = listed.length - 1
        assert.isTrue(listed[listed.length - 1]!.endsWith("..."))
        assert.isTrue(listed.slice(0, -1).join("\n").length <= 25_000)
        assert.strictEqual(lines[lines.length - 1], `[${9_900 - included} lines truncated] ...`)
        assert.isTrue(out.truncated)
      }), 60_000)
  }

  it.live("glob finishes and stops at the collection cap", () =>
    Effect.gen(function*() {
      const result = yield* timed("glob", globSearch({ pattern: "**/*.txt", roots: [root], ignore: { gitignore: true, toolwrightIgnore: true } }))
      assert.isTrue(result.hitCollectionLimit)
      assert.strictEqual(result.entries.length, 1_000)
      assert.isTrue(result.entries.every((e) => !e.path.includes("/d00/")))
      const out = formatGlobResult(result, { pattern: "**/*.txt", location: { _tag: "Path", path: root } })
      const lines = out.llmContent.split("\n")
      assert.strictEqual(lines[0], `Found at least 1000 file(s) matching "**/*.txt" within ${root}, sorted by modification time (newest first):`)
      assert.strictEqual(lines.length, 2 + 100 + 2)
      assert.strictEqual(lines[lines.length - 1], "[Results truncated after scanning 1000 matching files. Narrow the pattern or path.]")
    }), 60_000)
})
