// What one process launch costs the JS thread as the parent grows (issue 18): libuv's uv_spawn
// forks the whole Node process on the loop thread (Linux: fork(), not vfork/posix_spawn) and waits
// for the child's exec, so the call blocks longer the more memory the parent maps.
//
//   node --max-old-space-size=4096 bench/forkCost.mjs 100 1000     (heap sizes in MB)
//
// For each size: the heap is filled to that size with live arrays, then `true` is spawned 40
// times one after another; printed are the median and p90 time the synchronous spawn() call
// blocks, and the parent's CPU (user + system) per spawn, with the RSS.
import { spawn } from "node:child_process"
import * as os from "node:os"

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
const REPS = 40
const hold = []
const fill = (mb) => {
  while (process.memoryUsage().heapUsed < mb * 1024 * 1024) hold.push(new Array(1 << 17).fill(0).map((_, i) => i + 0.5))
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]
const once = () =>
  new Promise((resolve) => {
    const cpu0 = process.cpuUsage()
    const t0 = performance.now()
    const child = spawn("true", [], { stdio: "ignore" })
    const blocked = performance.now() - t0
    const cpu = process.cpuUsage(cpu0)
    child.on("close", () => resolve({ blocked, cpuMs: (cpu.user + cpu.system) / 1000 }))
  })

for (const mb of sizes.length > 0 ? sizes : [100, 1000]) {
  fill(mb)
  for (let i = 0; i < 3; i++) await once()
  const runs = []
  for (let i = 0; i < REPS; i++) runs.push(await once())
  const mem = process.memoryUsage()
  console.log(JSON.stringify({
    heapMb: Math.round(mem.heapUsed / 1048576),
    rssMb: Math.round(mem.rss / 1048576),
    spawnBlocksMs: { p50: +pct(runs.map((r) => r.blocked), 0.5).toFixed(2), p90: +pct(runs.map((r) => r.blocked), 0.9).toFixed(2) },
    parentCpuMsPerSpawn: +pct(runs.map((r) => r.cpuMs), 0.5).toFixed(2),
    load: +os.loadavg()[0].toFixed(1)
  }))
}
