// Start-up: import the library, build a session, list declarations — against `node -e ''`.
import { runProcess, median, repoRoot, distDir, tempDir } from "../lib.mjs"
import * as path from "node:path"

export const name = "start-up: import + session + first declaration list"

export const run = async ({ runs }) => {
  const root = tempDir()
  const state = tempDir()
  const script = `
    const t0 = performance.now()
    const tw = await import(${JSON.stringify(path.join(distDir, "index.js"))})
    const { Effect, Layer } = await import("effect")
    const layer = tw.SessionLayer.layer({ roots: [${JSON.stringify(root)}], stateDir: ${JSON.stringify(state)} })
      .pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "cancel" })))
    const n = await Effect.runPromise(Effect.gen(function*() {
      const registry = yield* tw.Registry.ToolRegistry
      return (yield* registry.declarations).length
    }).pipe(Effect.provide(layer)))
    const modules = Object.keys(await import("node:module").then(() => ({}))).length
    console.log(JSON.stringify({ ms: performance.now() - t0, tools: n }))
  `
  const ours = []
  const bare = []
  let tools = 0
  for (let i = 0; i < runs + 1; i++) {
    const a = runProcess(process.execPath, ["--input-type=module", "-e", script], { cwd: repoRoot })
    const b = runProcess(process.execPath, ["-e", ""])
    if (i === 0) continue
    ours.push(a.ms)
    bare.push(b.ms)
    tools = JSON.parse(a.stdout.trim().split("\n").pop()).tools
  }
  const o = median(ours)
  const l = median(bare)
  return [{ scenario: name, size: `${tools} tools`, ours: o, limit: l, unit: "ms", limitName: "node -e ''", ratio: o / l, note: `+${(o - l).toFixed(0)} ms over bare node (target +60 ms)` }]
}
