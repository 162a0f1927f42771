/**
 * The packed tarball (`npm pack`, how the package is installed: it is not on the npm registry)
 * carries what it needs and nothing else: every export and the bin, source maps whose sources are
 * in the tarball, the examples the docs point at (with what they import), and no tests, CI or
 * bench code. Reads `npm pack --dry-run --json` of the current build (`npm run build` first).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { repoRoot } from "../support/serve.js"

interface PackedFile {
  readonly path: string
  readonly size: number
}

/** The files `npm pack` would put in the tarball. Scripts are skipped: the test reads the build `npm test` made. */
const packedFiles = (): ReadonlySet<string> => {
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: repoRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, npm_config_loglevel: "silent", npm_config_update_notifier: "false" }
  })
  const [report] = JSON.parse(out) as ReadonlyArray<{ readonly files: ReadonlyArray<PackedFile> }>
  return new Set(report!.files.map((file) => file.path))
}

const packageJson = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
  readonly bin: Record<string, string>
  readonly exports: Record<string, string | Record<string, string>>
}

/** `./dist/x.js` → `dist/x.js`, the form `npm pack` lists. */
const packagePath = (target: string) => path.posix.normalize(target)

describe("the packed tarball", () => {
  const files = packedFiles()
  const shipped = [...files]

  it("carries the built CLI, the bin and every export's files", () => {
    assert.isTrue(files.has("dist/bundle/main.js"), "dist/ is missing from the tarball: run `npm run build` before this test")
    for (const bin of Object.values(packageJson.bin)) assert.isTrue(files.has(packagePath(bin)), `bin ${bin} is not packed`)
    for (const [name, target] of Object.entries(packageJson.exports)) {
      const targets = typeof target === "string" ? [target] : Object.values(target)
      for (const file of targets) assert.isTrue(files.has(packagePath(file)), `export "${name}" points at ${file}, which is not packed`)
    }
  })

  it("has no source map that points at a file it does not ship", () => {
    const maps = shipped.filter((file) => file.endsWith(".map"))
    const unresolved: Array<string> = []
    for (const map of maps) {
      const { sourceRoot = "", sources } = JSON.parse(fs.readFileSync(path.join(repoRoot, map), "utf8")) as {
        readonly sourceRoot?: string
        readonly sources: ReadonlyArray<string>
      }
      for (const source of sources) {
        const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(map), sourceRoot, source))
        if (!files.has(resolved)) unresolved.push(`${map} → ${resolved}`)
      }
    }
    assert.deepStrictEqual(unresolved.slice(0, 10), [], `${unresolved.length} source(s) of shipped maps are not shipped (first 10 shown)`)
  })

  it("ships every example the shipped docs name, and what those examples import", () => {
    const docs = shipped.filter((file) => file.endsWith(".md"))
    const named = new Set<string>()
    for (const doc of docs) {
      for (const match of fs.readFileSync(path.join(repoRoot, doc), "utf8").matchAll(/\bexamples\/[\w.-]+\.\w+/g)) named.add(match[0])
    }
    const missing = [...named].filter((example) => !files.has(example))
    assert.deepStrictEqual(missing, [], "the docs point at examples the tarball does not carry")

    const examples = shipped.filter((file) => file.startsWith("examples/") && file.endsWith(".ts"))
    const unresolved: Array<string> = []
    for (const example of examples) {
      const source = fs.readFileSync(path.join(repoRoot, example), "utf8")
      for (const match of source.matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
        // The examples are TypeScript run from source: `../src/index.js` is `../src/index.ts`.
        const imported = path.posix.normalize(path.posix.join(path.posix.dirname(example), match[1]!)).replace(/\.js$/, ".ts")
        if (!files.has(imported)) unresolved.push(`${example} → ${imported}`)
      }
    }
    assert.deepStrictEqual(unresolved, [])
  })

  it("ships what its install script builds the posix_spawn addon from", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }
    const installScript = /^node (\S+)$/.exec(pkg.scripts["install"] ?? "")?.[1]
    assert.strictEqual(installScript, "native/build.mjs")
    for (const file of [installScript, "native/spawn.c", "binding.gyp"]) assert.include(shipped, file)
  })

  it("leaves out tests, CI, benchmarks, build scripts and local configuration", () => {
    const unwanted = shipped.filter((file) =>
      /^(test|\.ci|bench|scripts|node_modules|\.bench-tmp)\//.test(file) ||
      /^(tsconfig.*\.json|vitest\.config\.ts|\.npmrc|package-lock\.json)$/.test(file) ||
      file.endsWith(".tgz") || file.endsWith(".test.ts")
    )
    assert.deepStrictEqual(unwanted, [])
  })
})
