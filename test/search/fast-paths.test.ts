/**
 * Shortcuts taken for speed must answer exactly what the long way answers: `displayPath` without
 * `path.relative`, ignore rules tested on the base name, and directory verdicts shared by the
 * files of one directory.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { parseIgnoreFile } from "../../src/search/ignore/patterns.js"
import { makeIgnoreTree, ruleFileNames } from "../../src/search/ignore/tree.js"
import { displayPath } from "../../src/session/paths.js"

/** `displayPath` as it was before its fast path: always through `path.relative`. */
const displayPathSlow = (root: string, abs: string): string => {
  const rel = path.relative(root, abs)
  if (rel === "") return "."
  return rel.startsWith("..") || path.isAbsolute(rel) ? abs : rel.split(path.sep).join("/")
}

const segment = fc.constantFrom("a", "b", "src", ".", "..", "", ".git", "..c", ".x", "a b", "é")
const pathOf = (segments: ReadonlyArray<string>, trailing: boolean) => `/${segments.join("/")}${trailing ? "/" : ""}`

describe("displayPath fast path", () => {
  it("equals path.relative's answer for normalised and odd paths alike", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 4 }),
        fc.array(segment, { maxLength: 5 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (rootSegments, below, rootSlash, absSlash, related) => {
          const root = pathOf(rootSegments, rootSlash)
          const abs = related ? `${root}${rootSlash ? "" : "/"}${below.join("/")}${absSlash ? "/" : ""}` : pathOf(below, absSlash)
          assert.strictEqual(displayPath(root, abs), displayPathSlow(root, abs), `${root} ${abs}`)
        }
      ),
      { seed: 20261202, numRuns: 3000 }
    )
  })

  it("keeps the quirks: a name starting with '..' inside the root is shown absolute", () => {
    assert.strictEqual(displayPath("/w", "/w/..c/x"), "/w/..c/x")
    assert.strictEqual(displayPath("/w", "/w/src/./a.ts"), "src/a.ts")
    assert.strictEqual(displayPath("/w/", "/w/src/a.ts"), "src/a.ts")
    assert.strictEqual(displayPath("/", "/etc/hosts"), "etc/hosts")
  })
})

describe("ignore rules on base names", () => {
  const globChar = fc.constantFrom("a", "b", ".", "*", "?", "**", "[ab]", "[!a]", "\\*", "-", "x")
  const nameChar = fc.constantFrom("a", "b", ".", "*", "x", "-", "?")

  it("a pattern without '/' decides on the base name exactly as on the whole relative path", () => {
    fc.assert(
      fc.property(
        fc.array(globChar, { minLength: 1, maxLength: 5 }),
        fc.array(fc.array(nameChar, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 4 }),
        (glob, names) => {
          const [rule] = parseIgnoreFile(glob.join(""))
          if (rule === undefined) return
          assert.isDefined(rule.nameRegex)
          const rel = names.map((n) => n.join("")).join("/")
          const name = rel.slice(rel.lastIndexOf("/") + 1)
          assert.strictEqual(rule.nameRegex!.test(name), rule.regex.test(rel), `${glob.join("")} on ${rel}`)
        }
      ),
      { seed: 7, numRuns: 3000 }
    )
  })

  it("a pattern with '/' has no base-name shortcut", () => {
    const [anchored, inner] = parseIgnoreFile("/build\nsrc/*.js\n")
    assert.isUndefined(anchored!.nameRegex)
    assert.isUndefined(inner!.nameRegex)
  })
})

describe("directory verdicts", () => {
  const tmp = (files: Record<string, string>) => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-verdicts-")))
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      fs.writeFileSync(path.join(root, rel), content)
    }
    return root
  }

  it("the files of one directory share its verdict, whichever is asked first", () => {
    const root = tmp({
      ".git/HEAD": "",
      ".gitignore": "build/\n",
      ".toolwrightignore": "secret/\n",
      "build/deep/a.txt": "",
      "secret/b.txt": "",
      "src/x/.gitignore": "*.tmp\n!keep.tmp\n",
      "src/x/a.tmp": "",
      "src/x/keep.tmp": "",
      "src/x/y/z.tmp": ""
    })
    const asked: Array<[string, string | undefined]> = [
      ["src/x/y/z.tmp", "git"], ["src/x/keep.tmp", undefined], ["src/x/a.tmp", "git"], ["build/deep/a.txt", "git"],
      ["build/deep/b.txt", "git"], ["secret/b.txt", "toolwright"], ["src/x/y/ok.txt", undefined], [".git/HEAD", "default"]
    ]
    for (const order of [asked, [...asked].reverse()]) {
      const tree = makeIgnoreTree(root, { gitignore: true, toolwrightIgnore: true, workspaceRoot: root })
      for (const [rel, reason] of order) assert.strictEqual(tree.reasonFor(rel, false), reason, rel)
    }
    fs.rmSync(root, { recursive: true, force: true })
  })

  it("ruleFileNames keeps only the entries that decide a directory's rules", () => {
    const names = ruleFileNames([{ name: "a.ts" }, { name: ".git" }, { name: ".gitignore" }, { name: ".toolwrightignore" }, { name: ".rgignore" }])
    assert.deepStrictEqual([...names].sort(), [".git", ".gitignore", ".toolwrightignore"])
  })
})
