// grep_search and glob on generated trees and on node_modules, beside raw rg and raw fast-glob.
//
// The raw-rg limits use the flags that give rg the tool's job: case-insensitive, hidden files
// searched, .gitignore honoured (grep_search and glob skip what .gitignore hides, so rg must do
// the same walk). Each pair of measurements is interleaved (ours, rg, ours, rg…) so a change
// in machine load hits both sides alike.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { benchSession, distDir, generateSearchTree, interleaved, median, repoRoot, rgFirst, rgRun, timeMedian } from "../lib.mjs"

/** Medians of `fns`, interleaved. */
const medians = async (fns, options) => (await interleaved(fns, options)).map(median)

export const name = "search: grep_search and glob"


export const run = async ({ runs, smoke }) => {
  const { MAX_GLOB_COLLECTED_ENTRIES: cap } = await import(path.join(distDir, "search", "constants.js"))
  const base = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir()
  const trees = []
  for (const files of smoke ? [10, 2_000] : [10, 10_000, 100_000]) {
    const root = fs.mkdtempSync(path.join(base, "twbench-tree-"))
    generateSearchTree(root, files)
    trees.push({ label: `${files.toLocaleString("en")} files`, root, cleanup: true, tiny: files === 10 })
  }
  if (!smoke) trees.push({ label: "node_modules", root: path.join(repoRoot, "node_modules"), cleanup: false, tiny: false })
  const fg = (await import("fast-glob")).default
  const rows = []
  for (const tree of trees) {
    const s = await benchSession(tree.root)
    const nm = tree.label === "node_modules"
    const pattern = nm ? "createServer" : "needle \\d+"
    // the tiny tree measures the fixed cost of a call: many short runs
    const reps = smoke ? 1 : tree.tiny ? runs * 10 : runs
    const [ours, limit] = await medians([
      () => s.call("grep_search", { pattern }),
      rgRun(["--json", "-i", "--hidden", "-e", pattern, tree.root])
    ], { runs: reps })
    rows.push({
      scenario: tree.tiny ? "grep_search (fixed cost)" : "grep_search",
      size: tree.label, ours, limit, unit: "ms", limitName: "rg --json -i --hidden (same job)", ratio: ours / limit,
      note: tree.tiny ? `fixed cost ${(ours - limit).toFixed(1)} ms over rg (target < 10 ms)` : "target ≤ 1.3×"
    })
    const globPattern = nm ? "**/*.d.ts" : "**/*.txt"
    const rgArgs = ["--files", "--hidden", "-g", nm ? "*.d.ts" : "*.txt", tree.root]
    // glob stops collecting at its cap (the reference's 1,000 entries); rg --files lists every match.
    // The early-stopping rg beside it is the same job where the tree has more matches than the cap.
    const [oursGlob, rgFiles, rgCapped] = await medians([
      () => s.call("glob", { pattern: globPattern }),
      rgRun(rgArgs),
      rgFirst(rgArgs, cap)
    ], { runs: reps })
    const listed = spawnSync("rg", rgArgs, { maxBuffer: 1024 * 1024 * 1024 }).stdout.toString().split("\n").filter(Boolean)
    const matches = listed.length
    // glob also stats what it collected (it sorts by recency): the cost of those stats, raw.
    const statCapped = await timeMedian(() => { for (const p of listed.slice(0, cap)) fs.statSync(p) }, { runs: reps })
    const fastGlob = await timeMedian(() => fg(globPattern, { cwd: tree.root, dot: true }), { runs: reps })
    rows.push({
      scenario: tree.tiny ? "glob (fixed cost)" : "glob", size: tree.label, ours: oursGlob, limit: rgFiles, unit: "ms",
      limitName: "rg --files -g", ratio: oursGlob / rgFiles,
      note: `${matches.toLocaleString("en")} matches${matches > cap ? `, glob stops at ${cap.toLocaleString("en")}: rg stopped there too takes ${rgCapped.toFixed(1)} ms, and with a stat of each path (glob sorts by recency) ${(rgCapped + statCapped).toFixed(1)} ms (${(oursGlob / (rgCapped + statCapped)).toFixed(2)}×)` : ""}; raw fast-glob ${fastGlob.toFixed(tree.tiny ? 1 : 0)} ms (${(oursGlob / fastGlob).toFixed(2)}×)${tree.tiny ? "" : "; target ≤ 1.3×"}`
    })
    await s.dispose()
    if (tree.cleanup) fs.rmSync(tree.root, { recursive: true, force: true })
  }
  return rows
}
