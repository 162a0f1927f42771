// grep_search and glob on a generated tree and on node_modules, beside raw rg and raw fast-glob.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { median, repoRoot, distDir, timeMedian } from "../lib.mjs"

export const name = "search: grep_search and glob"

const generateTree = (root, files) => {
  for (let i = 0; i < files; i++) {
    const dir = path.join(root, `d${i % 100}`, `e${Math.floor(i / 100) % 100}`)
    if (i % 10_000 < 100) fs.mkdirSync(dir, { recursive: true })
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, `f${i}.txt`), i % 10 === 0 ? `alpha\nneedle ${i}\nomega\n` : `alpha\nbeta ${i}\nomega\n`)
  }
}

const session = async (root) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-state-"))
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  return { call: (name, args) => rt.runPromise(scheduler.runOne({ callId: String(n++), name, args })), dispose: () => rt.dispose() }
}

export const run = async ({ runs, smoke }) => {
  const base = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir()
  const trees = []
  const sizes = smoke ? [2_000] : [10_000, 100_000]
  for (const files of sizes) {
    const root = fs.mkdtempSync(path.join(base, "twbench-tree-"))
    generateTree(root, files)
    trees.push({ label: `${files.toLocaleString("en")} files`, root, cleanup: true })
  }
  if (!smoke) trees.push({ label: "node_modules", root: path.join(repoRoot, "node_modules"), cleanup: false })
  const fg = (await import("fast-glob")).default
  const rows = []
  const reps = smoke ? 1 : runs
  for (const tree of trees) {
    const s = await session(tree.root)
    const pattern = tree.label === "node_modules" ? "createServer" : "needle \\d+"
    const ours = await timeMedian(() => s.call("grep_search", { pattern }), { runs: reps })
    const rg = await timeMedian(() => {
      const r = spawnSync("rg", ["--json", "-i", "--hidden", "--no-ignore-vcs", "-e", pattern, tree.root], { maxBuffer: 1024 * 1024 * 1024 })
      if (r.status !== 0 && r.status !== 1) throw new Error(`rg exited ${r.status}`)
    }, { runs: reps })
    rows.push({ scenario: "grep_search", size: tree.label, ours, limit: rg, unit: "ms", limitName: "rg --json -i (same flags)", ratio: ours / rg, note: "target ≤ 1.3×" })
    const globPattern = "**/*.txt"
    const oursGlob = await timeMedian(() => s.call("glob", { pattern: tree.label === "node_modules" ? "**/*.d.ts" : globPattern }), { runs: reps })
    const rgFiles = await timeMedian(() => {
      spawnSync("rg", ["--files", "--hidden", "-g", tree.label === "node_modules" ? "*.d.ts" : "*.txt", tree.root], { maxBuffer: 1024 * 1024 * 1024 })
    }, { runs: reps })
    const fastGlob = await timeMedian(() => fg(tree.label === "node_modules" ? "**/*.d.ts" : globPattern, { cwd: tree.root, dot: true }), { runs: reps })
    rows.push({ scenario: "glob", size: tree.label, ours: oursGlob, limit: rgFiles, unit: "ms", limitName: "rg --files -g", ratio: oursGlob / rgFiles, note: `raw fast-glob ${fastGlob.toFixed(0)} ms (${(oursGlob / fastGlob).toFixed(2)}×)` })
    await s.dispose()
    if (tree.cleanup) fs.rmSync(tree.root, { recursive: true, force: true })
  }
  return rows
}
