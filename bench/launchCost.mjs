// CPU per process launch, child_process/node-pty against the posix_spawn addon (issue 18), as the
// parent grows: `node --max-old-space-size=4096 bench/launchCost.mjs 100 1000` (heap sizes in MB).
//
// For each size the heap is filled with live arrays, then `true` is started REPS times (default
// 40) one after another by each launcher: on pipes (stdout and stderr piped, as grep runs) and on a
// PTY (as the shell runs); printed is this process's CPU (all threads, user + system) from the
// launch to the end of the child's output, per launch, and the time the launch call blocks.
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { distDir } from "./lib.mjs"

const { childProcessLauncher, makeLauncher } = await import(path.join(distDir, "process", "launcher.js"))
const nodePty = createRequire(import.meta.url)("node-pty")
const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
const REPS = Number(process.env.REPS ?? 40)
const native = makeLauncher({})
if (native.name !== "posix_spawn") throw new Error(`the addon is not in use: ${native.fallbackReason}`)
const legacy = childProcessLauncher()
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" }

const hold = []
const fill = (mb) => {
  while (process.memoryUsage().heapUsed < mb * 1024 * 1024) hold.push(new Array(1 << 17).fill(0).map((_, i) => i + 0.5))
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]

const measure = (start) => new Promise((resolve) => {
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  let blocked = 0
  const done = () => {
    const cpu = process.cpuUsage(cpu0)
    resolve({ blocked, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - t0 })
  }
  start(done)
  blocked = performance.now() - t0
})

const ways = {
  "pipes child_process": (done) => legacy.launch("true", [], { env, stdio: ["ignore", "pipe", "pipe"] }).on("close", done),
  "pipes posix_spawn": (done) => native.launch("true", [], { env, stdio: ["ignore", "pipe", "pipe"] }).on("close", done),
  "pty node-pty": (done) => {
    const term = nodePty.spawn("/bin/true", [], { cols: 80, rows: 24, env, encoding: null })
    term.onExit(() => done())
  },
  "pty posix_spawn": (done) => {
    const pty = native.launchPty("true", [], { cwd: os.tmpdir(), env, cols: 80, rows: 24 })
    pty.onExit(() => {
      fs.closeSync(pty.slave.fd)
      pty.slave.fd = undefined
    })
    pty.master.on("close", done).resume()
  }
}

for (const mb of sizes.length > 0 ? sizes : [100, 1000]) {
  fill(mb)
  for (const [name, start] of Object.entries(ways)) {
    for (let i = 0; i < 3; i++) await measure(start)
    const runs = []
    for (let i = 0; i < REPS; i++) runs.push(await measure(start))
    const mem = process.memoryUsage()
    console.log(JSON.stringify({
      launch: name,
      heapMb: Math.round(mem.heapUsed / 1048576),
      rssMb: Math.round(mem.rss / 1048576),
      cpuMsPerLaunch: { p50: +pct(runs.map((r) => r.cpuMs), 0.5).toFixed(2), mean: +(runs.reduce((a, r) => a + r.cpuMs, 0) / runs.length).toFixed(2) },
      launchBlocksMs: +pct(runs.map((r) => r.blocked), 0.5).toFixed(2),
      wallMs: +pct(runs.map((r) => r.wallMs), 0.5).toFixed(2),
      load: +os.loadavg()[0].toFixed(1)
    }))
  }
}
