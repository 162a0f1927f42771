// `npm run bench`: every scenario in its own process; writes docs/benchmarks.md.
// `npm run bench -- --smoke`: smallest sizes, one run, no file written (CI keeps the code alive).
// `npm run bench -- NAME`: the scenario files whose name contains NAME, printed only (e.g.
// `npm run bench -- accuracy`: edit accuracy on perturbed real files, per family; docs/benchmarks.md).
import { spawnSync, execSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { growthTable } from "./growth.mjs"
import { fmt, repoRoot } from "./lib.mjs"

const args = process.argv.slice(2)
const smoke = args.includes("--smoke")
const only = args.find((a) => !a.startsWith("--"))
const dir = path.join(repoRoot, "bench", "scenarios")
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".mjs") && (!only || f.includes(only))).sort()

const all = []
const failures = []
const started = performance.now()
for (const file of files) {
  const t0 = performance.now()
  const r = spawnSync(process.execPath, ["--expose-gc", path.join(repoRoot, "bench", "run-one.mjs"), path.join(dir, file), smoke ? "smoke" : "full"], {
    cwd: repoRoot, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, timeout: 15 * 60_000
  })
  const secs = ((performance.now() - t0) / 1000).toFixed(1)
  if (r.status !== 0) {
    failures.push(`${file}: exit ${r.status} ${r.signal ?? ""}\n${(r.stderr || "").slice(-2000)}`)
    console.error(`✗ ${file} (${secs} s)\n${(r.stderr || "").slice(-2000)}`)
    continue
  }
  const rows = JSON.parse(r.stdout.trim().split("\n").pop())
  all.push(...rows)
  console.error(`✓ ${file} (${secs} s, ${rows.length} rows)`)
}

const table = [
  "| scenario | size | ours | limit | unit | limit measured | ours / limit | note |",
  "|---|---|---|---|---|---|---|---|",
  ...all.map((r) => `| ${r.scenario} | ${r.size} | ${fmt(r.ours)} | ${fmt(r.limit)} | ${r.unit} | ${r.limitName} | ${Number.isFinite(r.ratio) ? fmt(r.ratio, 2) + "×" : "—"} | ${r.note ?? ""} |`)
].join("\n")

const commit = (() => { try { return execSync("git rev-parse --short HEAD", { cwd: repoRoot }).toString().trim() } catch { return "unknown" } })()
const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${(os.totalmem() / 1024 ** 3).toFixed(0)} GiB, ${os.platform()} ${os.release()}`
const header = `# Benchmarks

Produced by \`npm run bench\` (${smoke ? "smoke" : "full"}) on ${new Date().toISOString().slice(0, 10)}, commit ${commit}, Node ${process.version},
${machine}, load average at start ${os.loadavg().map((x) => x.toFixed(1)).join(" ")}. Every scenario runs in its own process; figures are
medians of 5 runs after a warm-up, and each is set beside the physical limit measured in the same run.
Total time ${((performance.now() - started) / 1000).toFixed(0)} s.
`
const growth = `## Growth

How cost grows with size, step by step between the sizes each scenario runs at: k is the exponent
in cost ∝ size^k (1 is linear, below 1 better; throughput rows are turned back into time). The
verdict reads the last step, where fixed costs weigh least; a small size that is mostly fixed cost
makes the first step read low. The limit's k beside ours shows how the job itself grows.

${growthTable(all, fmt)}
`
console.log(table)
console.log(growth)
if (!smoke && !only) {
  const notesFile = path.join(repoRoot, "bench", "NOTES.md")
  const notes = fs.existsSync(notesFile) ? "\n" + fs.readFileSync(notesFile, "utf8") : ""
  fs.writeFileSync(path.join(repoRoot, "docs", "benchmarks.md"), `${header}\n${table}\n\n${growth}${notes}`)
  console.error("wrote docs/benchmarks.md")
}
if (failures.length > 0) {
  console.error(`${failures.length} scenario(s) failed`)
  process.exit(1)
}
