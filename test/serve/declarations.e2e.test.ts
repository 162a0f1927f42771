// The built-in declarations reach every build: the CLI bundle (serve without --tools-module runs
// dist/bundle, whose declaration modules read the .md files copied beside them) and the packed
// tarball (npm pack ships the .md files in dist/ and dist/bundle/).
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { type BuiltinTool, builtinCatalog } from "../../src/run/catalog.js"
import { connectServe, repoRoot, tempDir } from "../support/serve.js"

describe("built-in declarations in the builds", () => {
  it.live("serve (the bundle) lists every non-deferred built-in with its declared description and params", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const listed = new Map((yield* Effect.promise(() => client.listTools())).tools.map((t) => [t.name, t]))
      const declarations = yield* Effect.forEach(builtinCatalog as ReadonlyArray<BuiltinTool>, (tool) => tool.declaration)
      const shown = declarations.filter((declaration) => declaration.shouldDefer !== true)
      assert.isAbove(shown.length, 10)
      for (const declaration of shown) {
        const tool = listed.get(declaration.name)
        assert.isDefined(tool, declaration.name)
        assert.strictEqual(tool!.description, declaration.description, declaration.name)
        assert.deepStrictEqual(tool!.inputSchema, declaration.info.parametersJsonSchema, declaration.name)
      }
    }), 60_000)

  it("npm pack ships each description beside its compiled declaration and in dist/bundle, and the built listing", () => {
    const run = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: repoRoot, encoding: "utf8" })
    assert.strictEqual(run.status, 0, run.stderr)
    const files = new Set<string>(JSON.parse(run.stdout)[0].files.map((f: { path: string }) => f.path))
    const markdown = [...files].filter((f) => f.startsWith("dist/") && f.endsWith(".md"))
    const bundled = markdown.filter((f) => f.startsWith("dist/bundle/"))
    assert.strictEqual(bundled.length, builtinCatalog.length)
    // The listing the catalog reads instead of importing the declaration modules, for both builds.
    assert.isTrue(files.has("dist/run/builtinDeclarations.json"), "dist/run/builtinDeclarations.json is shipped")
    assert.isTrue(files.has("dist/bundle/builtinDeclarations.json"), "dist/bundle/builtinDeclarations.json is shipped")
    assert.strictEqual(markdown.length, 2 * builtinCatalog.length)
    for (const f of markdown.filter((m) => !m.startsWith("dist/bundle/"))) {
      assert.isTrue(files.has(f.replace(/\.md$/, ".decl.js")), `${f} has its declaration module beside it`)
      assert.isTrue(files.has(path.posix.join("dist/bundle", path.posix.basename(f))), `${f} is in dist/bundle too`)
    }
  }, 120_000)
})
