#!/usr/bin/env node
// Copies the tool descriptions (every .md under src/, beside its declaration module) into the
// builds: beside the compiled module in dist/, and flat into dist/bundle/, where esbuild puts the
// bundled declaration modules (a declaration reads its .md relative to its own module's URL, see
// src/tool/toolDeclaration.ts). Flat means the file names must be unique across src/: checked here.
// Then writes builtinDeclarations.json (every built-in's ToolInfo, computed from the compiled
// declaration modules) beside the compiled catalog and into dist/bundle/: the catalog lists from it
// and imports a declaration module only when a tool is built (src/run/catalog.ts).
// Run by `npm run build` after tsc and the bundle.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const src = path.join(repoRoot, "src")
const dist = path.join(repoRoot, "dist")
const bundle = path.join(dist, "bundle")

const files = fs.readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).sort()
const seen = new Map()
for (const file of files) {
  const name = path.basename(file)
  if (seen.has(name)) {
    console.error(`copy-tool-descriptions: ${file} and ${seen.get(name)} share a file name; dist/bundle holds them flat, so rename one`)
    process.exit(1)
  }
  seen.set(name, file)
  fs.mkdirSync(path.join(dist, path.dirname(file)), { recursive: true })
  fs.copyFileSync(path.join(src, file), path.join(dist, file))
  if (fs.existsSync(bundle)) fs.copyFileSync(path.join(src, file), path.join(bundle, name))
}

// The catalog finds no JSON yet (the build emptied dist/), so it reads the declaration modules.
const catalog = await import(pathToFileURL(path.join(dist, "run", "catalog.js")).href)
const text = catalog.writeBuiltinDeclarations(catalog.builtinCatalog.map((tool) => tool.info))
fs.writeFileSync(path.join(dist, "run", "builtinDeclarations.json"), text)
if (fs.existsSync(bundle)) fs.writeFileSync(path.join(bundle, "builtinDeclarations.json"), text)
