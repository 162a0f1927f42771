// Start-up: import the library, build a session, list declarations — against `node -e ''`, and beside
// the floor Effect itself sets (importing just the Effect modules a session needs).
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { runProcess, median, repoRoot, distDir, tempDir } from "../lib.mjs"

export const name = "start-up: import + session + first declaration list"

const effectModule = (name) => JSON.stringify(pathToFileURL(path.join(repoRoot, "node_modules", "effect", "dist", `${name}.js`)).href)

export const run = async ({ runs }) => {
  const root = tempDir()
  const state = tempDir()
  const dir = tempDir()
  const script = path.join(dir, "startup.mjs")
  fs.writeFileSync(script, `
    const t0 = performance.now()
    const tw = await import(${JSON.stringify(pathToFileURL(path.join(distDir, "index.js")).href)})
    const Effect = await import(${effectModule("Effect")})
    const Layer = await import(${effectModule("Layer")})
    const layer = tw.SessionLayer.layer({ roots: [${JSON.stringify(root)}], stateDir: ${JSON.stringify(state)} })
      .pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "cancel" })))
    const n = await Effect.runPromise(Effect.gen(function*() {
      const registry = yield* tw.Registry.ToolRegistry
      return (yield* registry.declarations).length
    }).pipe(Effect.provide(layer)))
    console.log(JSON.stringify({ ms: performance.now() - t0, tools: n }))
  `)
  // What an Effect application pays on top of the Effect it already loaded: the same script, timed
  // in-process after the floor's modules are imported.
  const marginal = path.join(dir, "marginal.mjs")
  fs.writeFileSync(marginal, ["Effect", "Layer", "Schema", "Stream", "FileSystem"].map((m) => `await import(${effectModule(m)})`).join("\n") + "\n" +
    fs.readFileSync(script, "utf8"))
  // The floor: the Effect modules every session needs, and nothing of ours.
  const floor = path.join(dir, "floor.mjs")
  fs.writeFileSync(floor, ["Effect", "Layer", "Schema", "Stream", "FileSystem"].map((m) => `await import(${effectModule(m)})`).join("\n"))
  // Modules loaded, counted once with a loader hook (the hook itself costs time, so not in a timed run).
  const hooks = path.join(dir, "hooks.mjs")
  fs.writeFileSync(hooks, `export async function load(url, context, next) { process.stderr.write("LOADED " + url + "\\n"); return next(url, context) }`)
  const count = path.join(dir, "count.mjs")
  fs.writeFileSync(count, `import { register } from "node:module"\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\nawait import(${JSON.stringify(pathToFileURL(script).href)})`)
  const counted = runProcess(process.execPath, [count], { cwd: repoRoot })
  const modules = counted.stderr.split("\n").filter((l) => l.startsWith("LOADED file:")).length
  const ours = []
  const bare = []
  const effectOnly = []
  const onTop = []
  let tools = 0
  for (let i = 0; i < runs + 1; i++) {
    const a = runProcess(process.execPath, [script], { cwd: repoRoot })
    const b = runProcess(process.execPath, ["-e", ""])
    const c = runProcess(process.execPath, [floor], { cwd: repoRoot })
    const d = runProcess(process.execPath, [marginal], { cwd: repoRoot })
    if (i === 0) continue
    onTop.push(JSON.parse(d.stdout.trim().split("\n").pop()).ms)
    ours.push(a.ms)
    bare.push(b.ms)
    effectOnly.push(c.ms)
    tools = JSON.parse(a.stdout.trim().split("\n").pop()).tools
  }
  const o = median(ours)
  const l = median(bare)
  const e = median(effectOnly)
  return [{
    scenario: name,
    size: `${tools} tools`,
    ours: o,
    limit: l,
    unit: "ms",
    limitName: "node -e ''",
    ratio: o / l,
    note: `+${(o - l).toFixed(0)} ms over bare node (target +60 ms); ${modules} modules loaded; importing only Effect's Effect/Layer/Schema/Stream/FileSystem takes ${e.toFixed(0)} ms (+${(e - l).toFixed(0)}); in a process that has loaded those already, ours takes ${median(onTop).toFixed(0)} ms`
  }]
}
