#!/usr/bin/env node
// Bundles the CLI (dist/cli/main.js, built by tsc) into dist/bundle/: one ES module for what start-up
// needs, plus chunks for what loads on demand (each tool's module, the MCP client, the other
// commands). Start-up of `toolwright serve` is dominated by loading ~500 small modules (Effect,
// the MCP SDK, zod): one file compiles and resolves several times faster (docs/benchmarks.md).
// bin/toolwright.js runs the bundle, except with --tools-module: user tools import `toolwright`
// and `effect` from node_modules, and they must share one copy of Effect with the session.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const outdir = path.join(repoRoot, "dist", "bundle")

// Chunk names carry content hashes: clear the old ones.
fs.rmSync(outdir, { recursive: true, force: true })

await esbuild.build({
  entryPoints: [path.join(repoRoot, "dist", "cli", "main.js")],
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Native or optional-native packages stay where npm put them (they are required at run time).
  external: ["node-pty", "@xterm/headless"],
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __toolwrightCreateRequire } from \"node:module\"; const require = __toolwrightCreateRequire(import.meta.url);" },
  legalComments: "linked",
  logLevel: "warning"
})

// Worker scripts (plain .mjs under src/, which tsc does not copy): beside their module in dist/, and
// bundled into dist/bundle/ (the bundled module that starts one finds it beside itself). A worker
// loads only what it imports, so it is bundled on its own (turndown included: one file to load).
const workers = fs.readdirSync(path.join(repoRoot, "src"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith("Worker.mjs"))
for (const file of workers) {
  fs.mkdirSync(path.join(repoRoot, "dist", path.dirname(file)), { recursive: true })
  fs.copyFileSync(path.join(repoRoot, "src", file), path.join(repoRoot, "dist", file))
  await esbuild.build({
    entryPoints: [path.join(repoRoot, "src", file)],
    outfile: path.join(outdir, path.basename(file)),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    banner: { js: "import { createRequire as __toolwrightCreateRequire } from \"node:module\"; const require = __toolwrightCreateRequire(import.meta.url);" },
    legalComments: "linked",
    logLevel: "warning"
  })
}
