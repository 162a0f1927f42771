#!/usr/bin/env node
// Generates src/run/builtinDeclarations.ts: the declaration (name, description, params JSON Schema,
// kind, flags) of every built-in tool, taken from the tools themselves through the built library
// (run `npm run build` first). The session lists and searches built-in tools from this file and
// imports a tool's module only on its first call, so start-up does not load every tool.
// A test fails when the file is stale; `npm run gen:docs` regenerates it.
//
//   node scripts/gen-builtin-declarations.mjs          write the file
//   node scripts/gen-builtin-declarations.mjs --check  exit 1 if the committed file is stale
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const target = path.join(repoRoot, "src", "run", "builtinDeclarations.ts")

// Declarations must not depend on the machine: generate them without our environment variables.
for (const key of Object.keys(process.env)) if (key.startsWith("TOOLWRIGHT_")) delete process.env[key]

const { Approver, infoOf, Registry, SessionLayer } = await import("../dist/index.js")
const { builtinFactories } = await import("../dist/run/catalog.js")
const Layer = await import("effect/Layer")

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-decl-root-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-decl-state-")))
const builtinNames = new Set(builtinFactories.map((f) => f.name))
let infos
try {
  infos = await Effect.runPromise(Effect.gen(function*() {
    const registry = yield* Registry.ToolRegistry
    const warmed = yield* registry.warmAll
    if (warmed.failed.length > 0) return yield* Effect.die(new Error(`these tools failed to load: ${warmed.failed.join(", ")}`))
    return (yield* registry.tools).filter((tool) => builtinNames.has(tool.name))
  }).pipe(
    Effect.provide(SessionLayer.layer({ roots: [root], stateDir: state }).pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel" }))))
  ))
} finally {
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(state, { recursive: true, force: true })
}
for (const info of infos) {
  const text = JSON.stringify(infoOf(info))
  if (text.includes(root) || text.includes(state)) throw new Error(`${info.name}: its declaration names the workspace, so it cannot be generated`)
}
if (infos.length !== builtinFactories.length) throw new Error(`expected ${builtinFactories.length} built-in tools, loaded ${infos.length}`)

const literal = (value, indent) => {
  if (value === undefined) return "undefined"
  if (value === Number.POSITIVE_INFINITY) return "Number.POSITIVE_INFINITY"
  return JSON.stringify(value, null, 2).split("\n").join(`\n${indent}`)
}
const entry = (info) =>
  `  {\n${Object.entries(infoOf(info)).map(([k, v]) => `    ${k}: ${literal(v, "    ")}`).join(",\n")}\n  }`
const source = `/**
 * The declarations of the built-in tools, generated from the tools themselves by
 * \`npm run gen:docs\` (scripts/gen-builtin-declarations.mjs); do not edit by hand. A test fails when
 * this file no longer matches the tools. With it, a session lists and searches the built-in tools
 * without importing their modules; a tool's module is imported on its first call.
 *
 * @since 0.1.0
 */
import type { ToolInfo } from "../tool/tool.js"

/** Every built-in tool's declaration, sorted by name. @category constants */
export const builtinDeclarations: ReadonlyArray<ToolInfo> = [
${[...infos].sort((a, b) => a.name.localeCompare(b.name)).map(entry).join(",\n")}
]
`
if (process.argv.includes("--check")) {
  const current = fs.existsSync(target) ? fs.readFileSync(target, "utf8") : ""
  if (current !== source) {
    console.error("src/run/builtinDeclarations.ts is stale: run `npm run gen:docs`")
    process.exit(1)
  }
} else {
  fs.writeFileSync(target, source)
  console.log(`wrote ${path.relative(repoRoot, target)} (${infos.length} tools)`)
}
