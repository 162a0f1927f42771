// edit and read_file on 1/10/50 MB files, each measured in a fresh process (time and peak RSS),
// beside a raw indexOf+replace+write and an early-stopping line stream.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { median, repoRoot, tempDir } from "../lib.mjs"

const child = (args) => {
  const r = spawnSync(process.execPath, [path.join(repoRoot, "bench", "child.mjs"), ...args], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`child ${args[0]} failed: ${r.stderr.slice(-1500)}`)
  return JSON.parse(r.stdout.trim().split("\n").pop())
}

const makeFile = (file, mb, lineEnd = "") => {
  const line = (i) => `const value_${i} = "${"x".repeat(40)}";${lineEnd}\n`
  const chunks = []
  let size = 0
  for (let i = 0; size < mb * 1024 * 1024; i++) {
    const l = line(i)
    chunks.push(l)
    size += l.length
  }
  fs.writeFileSync(file, chunks.join(""))
  // Both sides start from a clean page cache: without this, writing back the file just made fell
  // on whichever run came next (the raw 50 MB limit swung between 150 and 330 ms).
  spawnSync("sync")
  return chunks.length
}

export const name = "files: edit and read_file"

export const run = async ({ runs, smoke }) => {
  // edit at 1/10/50 MB; read_file at 10/50/100 MB (a page at offset 100,000 needs 100,000 lines).
  const sizes = smoke ? [1] : [1, 10, 50, 100]
  const editSizes = new Set(smoke ? [1] : [1, 10, 50])
  const reps = smoke ? 1 : runs
  const rows = []
  for (const mb of sizes) {
    const root = tempDir()
    const state = tempDir()
    const file = path.join(root, "big.ts")
    const lines = editSizes.has(mb) ? makeFile(file, mb, "   ") : 0
    const mid = Math.floor(lines / 2)
    const cases = [
      ["exact hit", `const value_${mid} = "${"x".repeat(40)}";   `, `const value_${mid} = "y";   `],
      ["unicode-normalised hit", `const value_${mid} = “${"x".repeat(40)}”;   `, `const value_${mid} = "y";`],
      ["trim-end line hit", `const value_${mid} = "${"x".repeat(40)}";\nconst value_${mid + 1} = "${"x".repeat(40)}";`, `const value_${mid} = "y";\nconst value_${mid + 1} = "z";`],
      ["miss", `const value_${mid} = "not there";`, `x`]
    ]
    for (const [label, oldS, newS] of editSizes.has(mb) ? cases : []) {
      const ours = []
      const raws = []
      let peak = 0
      let growth = 0
      let note = ""
      const firstCalls = []
      const durable = []
      for (let i = 0; i < reps; i++) {
        makeFile(file, mb, "   ")
        const o = child(["edit", root, state, file, JSON.stringify(oldS), JSON.stringify(newS)])
        makeFile(file, mb, "   ")
        const rawArgs = [file, JSON.stringify(oldS.replace(/[“”]/g, '"')), JSON.stringify(newS)]
        const r = child(["raw-edit", ...rawArgs])
        // The same raw job with an fsync of the written file: edit makes its write durable. (The
        // raw job leaves the file as it was; only the page cache is flushed again.)
        spawnSync("sync")
        durable.push(child(["raw-edit-fsync", ...rawArgs]).ms)
        ours.push(o.ms)
        raws.push(r.ms)
        peak = Math.max(peak, o.peakKb)
        growth = Math.max(growth, o.peakKb - o.baseKb)
        note = o.note
        firstCalls.push(o.firstCallMs)
      }
      const o = median(ours)
      const l = median(raws)
      rows.push({ scenario: `edit: ${label}`, size: `${mb} MB`, ours: o, limit: l, unit: "ms", limitName: "indexOf + replace + writeFile", ratio: o / l, note: `${note}; peak RSS ${(peak / 1024).toFixed(0)} MiB, +${(growth / 1024).toFixed(0)} MiB during the edit (${(growth / 1024 / mb).toFixed(1)}× file); raw with an fsync ${median(durable).toFixed(1)} ms (${(o / median(durable)).toFixed(2)}×); best of ${reps}: ${Math.min(...ours).toFixed(1)} vs ${Math.min(...raws).toFixed(1)} ms (${(Math.min(...ours) / Math.min(...raws)).toFixed(2)}×)${mb === sizes[0] ? `; not in the figure: the process's first edit (a small file, loading the edit tool) took ${median(firstCalls).toFixed(0)} ms` : ""}` })
    }
    if (mb >= 10 || smoke) {
      makeFile(file, mb)
      for (const offset of smoke ? [0, 10_000] : [0, 100_000]) {
        const ours = []
        const raws = []
        let peak = 0
        for (let i = 0; i < reps; i++) {
          const o = child(["read", root, state, file, String(offset)])
          const r = child(["raw-read", file, String(offset)])
          ours.push(o.ms)
          raws.push(r.ms)
          peak = Math.max(peak, o.peakKb)
        }
        const o = median(ours)
        const l = median(raws)
        rows.push({ scenario: `read_file: page at offset ${offset}`, size: `${mb} MB`, ours: o, limit: l, unit: "ms", limitName: "line stream that stops early", ratio: o / l, note: `peak RSS ${(peak / 1024).toFixed(0)} MiB` })
      }
    }
    fs.rmSync(root, { recursive: true, force: true })
  }
  return rows
}
