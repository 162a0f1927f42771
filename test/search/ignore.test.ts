import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { compilePathGlob, isSimpleBasenameGlob, parseIgnoreFile, pathGlobAllows } from "../../src/search/ignore/patterns.js"
import { chainDecision, makeIgnoreTree } from "../../src/search/ignore/tree.js"

const decide = (content: string, rel: string, isDir = false) =>
  chainDecision([{ base: "/r", rules: parseIgnoreFile(content) }], `/r/${rel}`, isDir)

describe("gitignore patterns", () => {
  const cases: ReadonlyArray<readonly [string, string, boolean, boolean | undefined]> = [
    ["*.log", "a/b/c.log", false, true],
    ["*.log", "c.log.txt", false, undefined],
    ["/top.txt", "top.txt", false, true],
    ["/top.txt", "sub/top.txt", false, undefined],
    ["doc/*.txt", "doc/a.txt", false, true],
    ["doc/*.txt", "x/doc/a.txt", false, undefined],
    ["doc/*.txt", "doc/sub/a.txt", false, undefined],
    ["**/foo", "a/b/foo", false, true],
    ["**/foo", "foo", false, true],
    ["foo/**", "foo/a/b", false, true],
    ["a/**/b", "a/b", false, true],
    ["a/**/b", "a/x/y/b", false, true],
    ["build/", "build", true, true],
    ["build/", "build", false, undefined],
    ["*.log\n!keep.log", "keep.log", false, false],
    ["!keep.log\n*.log", "keep.log", false, true],
    ["\\#hash", "#hash", false, true],
    ["# comment", "# comment", false, undefined],
    ["trail   ", "trail", false, true],
    ["sp\\ ", "sp ", false, true],
    ["f[abc].txt", "fb.txt", false, true],
    ["f[!abc].txt", "fb.txt", false, undefined],
    ["f[!abc].txt", "fz.txt", false, true],
    ["?.md", "a.md", false, true],
    ["?.md", "ab.md", false, undefined],
    ["a*b", "a/b", false, undefined],
    ["\\!bang", "!bang", false, true],
    ["x.txt\r\n", "x.txt", false, true]
  ]
  for (const [content, rel, isDir, expected] of cases) {
    it(`${JSON.stringify(content)} on ${rel}${isDir ? "/" : ""} → ${String(expected)}`, () => {
      assert.strictEqual(decide(content, rel, isDir), expected)
    })
  }
})

describe("grep glob filter", () => {
  it("matches base names without a slash, anchored paths with one, case-insensitively", () => {
    const ts = compilePathGlob("*.{ts,tsx}")!
    assert.isTrue(pathGlobAllows(ts, "src/a.TS", false))
    assert.isTrue(pathGlobAllows(ts, "b.tsx", false))
    assert.isFalse(pathGlobAllows(ts, "c.js", false))
    assert.isTrue(pathGlobAllows(ts, "src", true))
    const src = compilePathGlob("src/**")!
    assert.isTrue(pathGlobAllows(src, "src/x/y.txt", false))
    assert.isFalse(pathGlobAllows(src, "lib/src/y.txt", false))
    const not = compilePathGlob("!*.test.ts")!
    assert.isFalse(pathGlobAllows(not, "a/b.test.ts", false))
    assert.isTrue(pathGlobAllows(not, "a/b.ts", false))
  })

  it("hands only plain base-name globs to ripgrep", () => {
    assert.isTrue(isSimpleBasenameGlob("*.{ts,tsx}"))
    assert.isTrue(isSimpleBasenameGlob("!*.min.js"))
    assert.isFalse(isSimpleBasenameGlob("src/*.ts"))
    assert.isFalse(isSimpleBasenameGlob("**/*.ts"))
    assert.isFalse(isSimpleBasenameGlob("*.{a,{b,c}}"))
    assert.isFalse(isSimpleBasenameGlob("[ab].ts"))
  })
})

describe("makeIgnoreTree", () => {
  const tmp = (files: Record<string, string>) => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-ignore-")))
    for (const [rel, content] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
      fs.writeFileSync(path.join(root, rel), content)
    }
    return root
  }

  it.effect("applies .gitignore only inside a work tree, from its top down", () =>
    Effect.gen(function*() {
      const root = tmp({ ".gitignore": "*.log\n", "a/x.log": "", "repo/.git/HEAD": "", "repo/.gitignore": "*.tmp\n", "repo/y.tmp": "", "repo/z.log": "" })
      const tree = makeIgnoreTree(root, { gitignore: true, toolwrightIgnore: true })
      assert.isFalse(tree.insideWorkTree)
      assert.isUndefined(tree.reasonFor("a/x.log", false))
      assert.strictEqual(tree.reasonFor("repo/y.tmp", false), "git")
      assert.isUndefined(tree.reasonFor("repo/z.log", false))
      assert.strictEqual(tree.reasonFor("repo/.git/HEAD", false), "default")
      fs.rmSync(root, { recursive: true, force: true })
    }))

  it.effect("reads .toolwrightignore from the workspace root and hides a root inside an ignored directory", () =>
    Effect.gen(function*() {
      const root = tmp({ ".toolwrightignore": "secret/\n*.pem\n", "secret/a.txt": "", "sub/k.pem": "", "sub/ok.txt": "" })
      const sub = makeIgnoreTree(path.join(root, "sub"), { gitignore: true, toolwrightIgnore: true, workspaceRoot: root })
      assert.strictEqual(sub.reasonFor("k.pem", false), "toolwright")
      assert.isUndefined(sub.reasonFor("ok.txt", false))
      const secret = makeIgnoreTree(path.join(root, "secret"), { gitignore: true, toolwrightIgnore: true, workspaceRoot: root })
      assert.isTrue(secret.rootHidden)
      const off = makeIgnoreTree(path.join(root, "sub"), { gitignore: true, toolwrightIgnore: false, workspaceRoot: root })
      assert.isUndefined(off.reasonFor("k.pem", false))
      fs.rmSync(root, { recursive: true, force: true })
    }))
})
