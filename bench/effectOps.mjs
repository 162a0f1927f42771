// Effect primitives evaluated per call of read_file and of edit (after a read), one session, one
// call at a time: `node bench/effectOps.mjs` (TOOLWRIGHT_BENCH_DIST for another build, REPS=30).
// Counted by wrapping the fiber's run loop (each slice reports its `currentOpCount`); a "slice" is
// one run of a fiber between suspensions (an async call, a yield). Not part of `npm run bench`.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { distDir } from "./lib.mjs"
const tw = await import(path.join(distDir, "index.js"))
const { Effect, Layer, ManagedRuntime } = await import("effect")

const fiberProto = Object.getPrototypeOf(Effect.runFork(Effect.void))
const counts = { ops: 0, slices: 0 }
const runLoop = fiberProto.runLoop
fiberProto.runLoop = function(effect) {
  const result = runLoop.call(this, effect)
  counts.ops += this.currentOpCount
  counts.slices += 1
  return result
}

const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twops-")))
const state = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twops-s-")))
fs.mkdirSync(path.join(root, "src"))
fs.writeFileSync(path.join(root, "src", "m1.ts"), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
const rt = ManagedRuntime.make(layer)
const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
let k = 0
let edits = 0
const call = async (name, args) => {
  const r = await rt.runPromise(scheduler.runOne({ callId: `c${k++}`, name, args }))
  if (r._tag !== "Success") console.error(name, r.code, r.message?.slice(0, 200))
}
const read = () => call("read_file", { file_path: "src/m1.ts" })
const edit = () => {
  const line = edits % 100
  const [from, to] = Math.floor(edits++ / 100) % 2 === 0 ? ["TODO", "DONE"] : ["DONE", "TODO"]
  return call("edit", { file_path: "src/m1.ts", old_string: `// line ${line} ${from}`, new_string: `// line ${line} ${to}` })
}
for (let i = 0; i < 3; i++) {
  await read()
  await edit()
}
const reps = Number(process.env.REPS ?? 30)
for (const [name, measured] of [["read_file", read], ["edit", edit]]) {
  let ops = 0
  let slices = 0
  for (let i = 0; i < reps; i++) {
    await read()
    counts.ops = 0
    counts.slices = 0
    await measured()
    ops += counts.ops
    slices += counts.slices
  }
  console.log(name.padEnd(10), "Effect primitives per call", (ops / reps).toFixed(0), "fiber run slices per call", (slices / reps).toFixed(0))
}
await rt.dispose()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
