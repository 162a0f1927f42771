// grep_search with a match cap (the common call) and a full scan, on a 100,000-file tree, beside rg.
//
// Capped: `limit: 100`; the limit is rg stopped after the same 100 matching lines (killed once it has
// printed them: parallel, unsorted, plain output — the fastest rg can give 100 lines). Full scan: a
// pattern with one match, so nothing stops early; the limit is `rg --json -i --hidden` over the tree.
// Pairs are interleaved (ours, rg, ours, rg…) so a change in machine load hits both sides alike. The
// capped rows warm up 3 rounds: with 1, whichever row ran first (right after the session was built)
// read 0.3–0.6× higher than the same pattern run second (docs/benchmarks.md, issue 18, session 18).
// Peak RSS: one capped search in a fresh process (VmHWM of that process, Node and the session included).
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { benchSession, distDir, generateSearchTree, interleaved, median, peakRssOf, rgFirst, rgRun } from "../lib.mjs"

export const name = "grep_search capped and full scans on 100,000 files"

const FILES = 100_000
const CAP = 100


const spread = (xs) => `${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}`

// child mode: one capped search in a fresh process, for its peak RSS
if (process.argv[2] === "child") {
  const [, , , root, pattern] = process.argv
  const s = await benchSession(root)
  const r = await s.call("grep_search", { pattern, limit: CAP })
  await s.dispose()
  process.stdout.write(JSON.stringify({ total: r.data?.totalMatches }) + "\n")
  process.exit(0)
}

export const run = async ({ runs, smoke }) => {
  const base = fs.existsSync("/dev/shm") ? "/dev/shm" : os.tmpdir()
  const root = fs.mkdtempSync(path.join(base, "twbench-grep-"))
  const files = smoke ? 2_000 : FILES
  generateSearchTree(root, files)
  const s = await benchSession(root)
  const rows = []
  const size = `${files.toLocaleString("en")} files`
  const reps = smoke ? 1 : runs * 2
  const self = fileURLToPath(import.meta.url)
  for (const [label, pattern] of [["common word", "alpha"], ["frequent regex", "(beta|needle) \\d+"]]) {
    const [ours, limit] = await interleaved([
      () => s.call("grep_search", { pattern, limit: CAP }),
      rgFirst(["-i", "--hidden", "-e", pattern, root], CAP, "SIGKILL")
    ], { runs: reps, warmup: smoke ? 1 : 3 })
    const { peakKb } = await peakRssOf([self, "child", root, pattern])
    const m = median(ours)
    const l = median(limit)
    rows.push({
      scenario: `grep_search capped at ${CAP}: ${label}`, size, ours: m, limit: l, unit: "ms",
      limitName: `rg stopped after ${CAP} lines`, ratio: m / l,
      note: `pattern ${JSON.stringify(pattern)}; peak RSS ${(peakKb / 1024).toFixed(0)} MiB (fresh process, target ≤ 150 MB); spread of ${reps} runs: ours ${spread(ours)}, rg ${spread(limit)} ms; target ≤ 1.5×`
    })
  }
  const rare = "needle 99990"
  const [ours, limit] = await interleaved([
    () => s.call("grep_search", { pattern: rare }),
    rgRun(["--json", "-i", "--hidden", "-e", rare, root])
  ], { runs: smoke ? 1 : runs })
  rows.push({
    scenario: "grep_search full scan (one match)", size, ours: median(ours), limit: median(limit), unit: "ms",
    limitName: "rg --json -i --hidden (same job)", ratio: median(ours) / median(limit),
    note: `spread of ${smoke ? 1 : runs} runs: ours ${spread(ours)}, rg ${spread(limit)} ms; target ≤ 1.1×`
  })
  await s.dispose()
  fs.rmSync(root, { recursive: true, force: true })
  return rows
}
