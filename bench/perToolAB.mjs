// CPU per call of each tool of the session mix, two builds in ONE process, their calls interleaved
// (A, B, A, B, …), so that a loaded machine's drift falls on both alike: `TOOLWRIGHT_BENCH_DIST_A=<dist>
// node bench/perToolAB.mjs` (B is `TOOLWRIGHT_BENCH_DIST_B` or this tree's dist/; ONLY=edit,grep;
// REPS=60 measured calls per tool and build after WARMUP=3 warm-ups (a few hundred let the JIT settle); BLOCKS=5: the reps are split in blocks
// whose per-block ratio is reported as a spread). process.cpuUsage around each call: the thread pool's
// work is counted; the split line gives each build's main thread, other threads and, apart, its
// children (rg, bash, bwrap: cutime+cstime once reaped), so that no build looks cheaper by moving
// work out of the process. Not part of `npm run bench`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { cpuSince, cpuSplit, median, repoRoot } from "./lib.mjs"

const distA = process.env.TOOLWRIGHT_BENCH_DIST_A
if (distA === undefined) throw new Error("set TOOLWRIGHT_BENCH_DIST_A to the build to compare against (e.g. main built elsewhere)")
const distB = process.env.TOOLWRIGHT_BENCH_DIST_B ?? path.join(repoRoot, "dist")
const reps = Number(process.env.REPS ?? 60)
const blocks = Number(process.env.BLOCKS ?? 5)
const only = process.env.ONLY?.split(",")

// One workspace per build (sessions never touch each other's files), each with its own runtime.
const setup = async (dist, label) => {
  // Both builds resolve `effect` to the one installed package; each session has its own runtime.
  const tw = await import(path.join(path.resolve(dist), "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `twab-${label}-`)))
  const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `twab-${label}-s-`)))
  fs.mkdirSync(path.join(root, "src"))
  for (let i = 0; i < 10; i++) {
    fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
  }
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let k = 0
  let edits = 0
  const call = async (name, args) => {
    const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name, args }))
    if (r._tag !== "Success") console.error(label, name, r.code, r.message?.slice(0, 200))
  }
  const tools = {
    read: () => call("read_file", { file_path: "src/m0.ts" }),
    edit: async () => {
      const line = edits++ % 100
      const [from, to] = edits > 100 && Math.floor((edits - 1) / 100) % 2 === 1 ? ["DONE", "TODO"] : ["TODO", "DONE"]
      await call("read_file", { file_path: "src/m1.ts" })
      await call("edit", { file_path: "src/m1.ts", old_string: `// line ${line} ${from}`, new_string: `// line ${line} ${to}` })
    },
    grep: () => call("grep_search", { pattern: "v1[0-9] =", path: "src" }),
    glob: () => call("glob", { pattern: "src/*.ts" }),
    shell: () => call("run_shell_command", { command: "echo hi" })
  }
  const dispose = async () => {
    await rt.dispose()
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(state, { recursive: true, force: true })
  }
  return { tools, dispose }
}

const a = await setup(distA, "a")
const b = await setup(distB, "b")
const cpuOf = async (f, split) => {
  const c0 = cpuSplit()
  await f()
  const c = cpuSince(c0)
  split.main += c.main
  split.other += c.other
  split.children += c.children
  return c.total
}
console.log(`A: ${distA}\nB: ${distB}\nCPU ms per call, ${reps} calls each, interleaved; ratio = A / B (above 1: B is cheaper)`)
for (const name of Object.keys(a.tools)) {
  if (only && !only.includes(name)) continue
  for (let i = 0; i < Number(process.env.WARMUP ?? 3); i++) {
    await a.tools[name]()
    await b.tools[name]()
  }
  const sums = { a: new Array(blocks).fill(0), b: new Array(blocks).fill(0) }
  const splits = { a: { main: 0, other: 0, children: 0 }, b: { main: 0, other: 0, children: 0 } }
  for (let i = 0; i < reps; i++) {
    const block = Math.floor((i * blocks) / reps)
    // Alternate which build goes first, so neither always follows the other's leftovers.
    const order = i % 2 === 0 ? ["a", "b"] : ["b", "a"]
    for (const side of order) sums[side][block] += await cpuOf(side === "a" ? a.tools[name] : b.tools[name], splits[side])
  }
  const totalA = sums.a.reduce((x, y) => x + y, 0)
  const totalB = sums.b.reduce((x, y) => x + y, 0)
  const ratios = sums.a.map((x, i) => x / sums.b[i])
  console.log(
    name.padEnd(6),
    "A", (totalA / reps).toFixed(2), " B", (totalB / reps).toFixed(2),
    " ratio", (totalA / totalB).toFixed(2) + "x",
    " (blocks: median", median(ratios).toFixed(2) + ", range", Math.min(...ratios).toFixed(2), "-", Math.max(...ratios).toFixed(2) + ")"
  )
  const line = (s) => `main ${(s.main / reps).toFixed(2)} / other threads ${(s.other / reps).toFixed(2)}, children ${(s.children / reps).toFixed(2)}`
  console.log("      ", "A", line(splits.a), " B", line(splits.b))
}
await a.dispose()
await b.dispose()
