// A long session: the cost of one small edit as the session's history fills (its before-images,
// pruned to 200 entries). It should stay flat; it grew from 9 to 42 ms per edit over 250 edits when
// pruning read every metadata file.
import * as fs from "node:fs"
import * as path from "node:path"
import { distDir, median, tempDir } from "../lib.mjs"

export const name = "long session: edit cost as the history fills"

export const run = async ({ smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const root = tempDir()
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir: tempDir(), mode: "yolo" }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
  )
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (name, args) => rt.runPromise(scheduler.runOne({ callId: String(n++), name, args }))
  const file = path.join(root, "f.txt")
  fs.writeFileSync(file, "v0\n")
  await call("read_file", { file_path: file })
  // Windows of 20 edits, after 10, 100 and 230 edits (the history holds at most 200 entries).
  const windows = smoke ? [[5, 10], [20, 25]] : [[10, 30], [100, 120], [230, 250]]
  const total = windows[windows.length - 1][1]
  const times = []
  for (let i = 0; i < total; i++) {
    const t0 = performance.now()
    const r = await call("edit", { file_path: file, old_string: `v${i}`, new_string: `v${i + 1}` })
    times.push(performance.now() - t0)
    if (r._tag !== "Success") throw new Error(`edit ${i} failed: ${JSON.stringify(r).slice(0, 500)}`)
  }
  await rt.dispose()
  fs.rmSync(root, { recursive: true, force: true })
  return windows.map(([from, to]) => ({
    scenario: "edit of a small file in a long session",
    size: `${from} edits before`,
    ours: median(times.slice(from, to)),
    limit: NaN,
    unit: "ms",
    limitName: "—",
    ratio: NaN,
    note: `median of edits ${from + 1}–${to}; the history keeps 200 entries`,
    growthWhy: "pruning the history reads its directory and stats each kept before-image, up to 200"
  }))
}
