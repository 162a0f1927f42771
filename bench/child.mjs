// One measured operation in a fresh process: prints { ms, peakKb, ok, note } as JSON.
// Used by scenarios that need peak RSS of a single operation.
import * as fs from "node:fs"
import * as path from "node:path"
import * as readline from "node:readline"
import { repoRoot, distDir } from "./lib.mjs"

const [op, ...args] = process.argv.slice(2)
const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0)

const session = async (root, stateDir) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo" }).pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })))
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (name, a) => rt.runPromise(scheduler.runOne({ callId: String(n++), name, args: a }))
  return { call, dispose: () => rt.dispose() }
}

const timed = async (fn) => {
  const t0 = performance.now()
  const note = await fn()
  return { ms: performance.now() - t0, note }
}

let result
switch (op) {
  case "edit": {
    const [root, stateDir, file, oldS, newS] = args
    const s = await session(root, stateDir)
    // The first edit in a process loads the edit tool's modules: done on a small file first and
    // reported apart (as the read op warms up), so the figure is the edit of the big file.
    const warm = path.join(root, "warm-up.txt")
    fs.writeFileSync(warm, "warm\n")
    await s.call("read_file", { file_path: warm })
    const firstCall = await timed(() => s.call("edit", { file_path: warm, old_string: "warm", new_string: "cold" }).then((o) => o._tag))
    await s.call("read_file", { file_path: file, offset: 0, limit: 1 })
    const base = peakKb()
    const r = await timed(async () => {
      const out = await s.call("edit", { file_path: file, old_string: JSON.parse(oldS), new_string: JSON.parse(newS) })
      return out._tag === "Success" ? `rung ${out.data?.match?.rung ?? "?"}` : `${out._tag} ${out.code ?? ""}`
    })
    result = { ...r, baseKb: base, firstCallMs: firstCall.ms }
    await s.dispose()
    break
  }
  case "raw-edit":
  case "raw-edit-fsync": {
    const [file, oldS, newS] = args
    const base = peakKb()
    result = { ...(await timed(async () => {
      const text = fs.readFileSync(file, "utf8")
      const i = text.indexOf(JSON.parse(oldS))
      const out = i < 0 ? text : text.slice(0, i) + JSON.parse(newS) + text.slice(i + JSON.parse(oldS).length)
      // raw-edit-fsync also flushes the written file to disk, as edit's atomic write does.
      const fd = fs.openSync(file + ".raw", "w")
      fs.writeFileSync(fd, out)
      if (op === "raw-edit-fsync") fs.fsyncSync(fd)
      fs.closeSync(fd)
      return i < 0 ? "miss" : "hit"
    })), baseKb: base }
    break
  }
  case "read": {
    const [root, stateDir, file, offset] = args
    const s = await session(root, stateDir)
    // Warm the session (first-call costs: tool module import, registry, config) on another, small
    // file, as the edit op does with its prior read; start-up is measured by its own scenario.
    const warm = path.join(root, "warm-up.txt")
    fs.writeFileSync(warm, "warm\n")
    await s.call("read_file", { file_path: warm, offset: 0, limit: 1 })
    const base = peakKb()
    result = { ...(await timed(async () => {
      const out = await s.call("read_file", { file_path: file, offset: Number(offset), limit: 1000 })
      return out._tag
    })), baseKb: base }
    await s.dispose()
    break
  }
  case "raw-read": {
    const [file, offset] = args
    const base = peakKb()
    result = { ...(await timed(async () => {
      const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity })
      let i = 0
      const lines = []
      for await (const line of rl) {
        if (i >= Number(offset)) lines.push(line)
        if (++i >= Number(offset) + 1000) break
      }
      rl.close()
      return `${lines.length} lines`
    })), baseKb: base }
    break
  }
  default:
    throw new Error(`unknown op ${op}`)
}
console.log(JSON.stringify({ ...result, peakKb: peakKb() }))
process.exit(0)
