/**
 * The glob walk against fast-glob itself: for every pattern, `globSearch` (fast-glob's filters
 * driven by the synchronous walk) finds exactly the files fast-glob's own walker finds with the
 * same options and the same ignore pruning — over more than one walk slice of directories.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import fg from "fast-glob"
import { afterAll } from "vitest"
import { globSearch } from "../../src/search/glob.js"
import { makeIgnoreTree } from "../../src/search/ignore/tree.js"
import { makeSearchFixture, removeTree } from "./fixture.js"

const root = makeSearchFixture()
afterAll(() => removeTree(root))

const write = (rel: string, content = "") => {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
  fs.writeFileSync(path.join(root, rel), content)
}
for (const rel of ["file[1].txt", "file1.txt", "a b.txt", "(x).txt", "{y}.txt", "src/deep/er/d.TS", "src/deep/er/!bang.ts", ".dot/in/e.md", "Mixed/Case/F.Txt"]) write(rel)
// more directories than one walk slice (64)
for (let i = 0; i < 150; i++) write(`many/d${i % 75}/s${i}/f${i}.${i % 2 === 0 ? "ts" : "md"}`)
fs.symlinkSync("src", path.join(root, "dirlink"))

const IGNORE = { gitignore: true, toolwrightIgnore: true, workspaceRoot: root } as const
const OPTIONS = { cwd: root, absolute: true, dot: true, caseSensitiveMatch: false, followSymbolicLinks: false, onlyFiles: false, objectMode: true, suppressErrors: true } as const

/** What fast-glob's own walker finds: pruned by the same ignore rules, files (and symlinks to files) only. */
const reference = (pattern: string): Array<string> => {
  const tree = makeIgnoreTree(root, IGNORE)
  const readdirSync = ((dir: string) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true })
    const state = tree.stateOf(dir)
    return entries.filter((e) => tree.classify(state, e.name, e.isDirectory()) === undefined)
  }) as never
  const literal = fs.existsSync(path.join(root, pattern))
  const entries = fg.sync(literal ? fg.escapePath(pattern) : pattern, { ...OPTIONS, fs: { readdirSync } }) as unknown as Array<fg.Entry>
  return entries
    .filter((e) => e.dirent.isFile() || (e.dirent.isSymbolicLink() && fs.statSync(e.path, { throwIfNoEntry: false })?.isFile() === true))
    .map((e) => e.path)
    .filter((p) => p.startsWith(`${root}/`) && tree.reasonFor(path.relative(root, p), false) === undefined)
    .sort()
}

const PATTERNS = [
  "**/*", "*", "*.md", "src/*", "src/**", "SRC/**", "**/*.{ts,js}", "{src,dist}/**/*.ts", "**/.hidden/*", ".*", "**/.*",
  "link.txt", "file[1].txt", "[a-c]*.txt", "!*.ts", "**/nested/**", "nested/deep/*", "**/deep", "**/deep/", "src/deep/",
  "./src/*.ts", "src//*.ts", "**/*.TXT", "@(src|dist)/*", "+(a|b)*", "**/ünï*", "src/with space.txt", "a b.txt", "**/*.log",
  "vendor/**", "**/lib/*", "bin/*", "*/", "**", "**/**/*.ts", "dirlink/*", "(x).txt", "{y}.txt", "**/!bang.ts", "Mixed/*/*",
  "mixed/case/*", "many/d1*/**/*.ts", "many/*/s1?/*", "**/s[0-9]/*.md", "private/**", "dist/*", "**/*.pem", "sub/*.log"
]

describe("glob walk", () => {
  it.effect("finds what fast-glob's own walker finds, for every pattern", () =>
    Effect.gen(function*() {
      for (const pattern of PATTERNS) {
        const result = yield* globSearch({ pattern, roots: [root], ignore: IGNORE })
        assert.isFalse(result.hitCollectionLimit, pattern)
        assert.deepStrictEqual(result.entries.map((e) => e.path).sort(), reference(pattern), pattern)
      }
    }), 60_000)

  it.effect("stops at the collection cap with files fast-glob would find", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 1005; i++) write(`cap/c${i % 40}/x${i}.cap`)
      const result = yield* globSearch({ pattern: "**/*.cap", roots: [root], ignore: IGNORE })
      const all = new Set(reference("**/*.cap"))
      assert.strictEqual(all.size, 1005)
      assert.isTrue(result.hitCollectionLimit)
      assert.strictEqual(result.entries.length, 1000)
      assert.isTrue(result.entries.every((e) => all.has(e.path)))
    }), 60_000)
})
