// Heap per idle session on a cluster runner whose sessions keep their record in PostgreSQL, for an
// A/B of builds: `[TOOLWRIGHT_BENCH_DIST=<dir>/dist] node --expose-gc bench/cluster-heap.mjs [N]`.
// One runner (group `default`, the only one) and a front, both in this process, on a private
// PostgreSQL; N sessions (default 100) each make one read_file (10 at a time); prints the heap
// growth per session after GC, the time to open them and the PostgreSQL connections before/after.
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { distDir, tempDir } from "./lib.mjs"
import { freePort, startPg } from "./pg.mjs"

const n = Number(process.argv[2] ?? 100)
const cluster = await import(path.join(distDir, "cluster", "index.js"))
const { Effect, ManagedRuntime } = await import("effect")
const root = tempDir("twbench-heap-root-"), state = tempDir("twbench-heap-state-")
fs.writeFileSync(path.join(root, "small.txt"), "hello\n")
const pg = await startPg()
const psql = (() => {
  const base = "/usr/lib/postgresql"
  const major = fs.readdirSync(base).find((d) => fs.existsSync(path.join(base, d, "bin", "psql")))
  return path.join(base, major, "bin", "psql")
})()
const connections = () => Number(execFileSync(psql, [pg.url, "-At", "-c", "select count(*) from pg_stat_activity where backend_type = 'client backend'"], { encoding: "utf8" }).trim()) - 1
const runner = ManagedRuntime.make(cluster.Runner.layer({ sqlUrl: pg.url, roots: [root], stateDir: state, mode: "yolo", host: "127.0.0.1", port: await freePort() }))
await runner.runPromise(Effect.void)
const front = ManagedRuntime.make(cluster.Front.layer({ sqlUrl: pg.url }))
const svc = await front.runPromise(Effect.gen(function*() { return yield* cluster.ClusterFront }))
const call = (id) => front.runPromise(svc.callBatch(id, [{ callId: id, name: "read_file", args: { file_path: "small.txt" } }]))
await call("warm")
const settle = async () => {
  for (let i = 0; i < 3; i++) (globalThis.gc?.(), await new Promise((r) => setTimeout(r, 300)))
  return process.memoryUsage().heapUsed
}
const c0 = connections(), h0 = await settle(), t0 = performance.now()
for (let i = 0; i < n; i += 10) await Promise.all(Array.from({ length: Math.min(10, n - i) }, (_, j) => call(`h${i + j}`)))
const openMs = performance.now() - t0
const h1 = await settle(), c1 = connections()
console.log(`${n} idle sessions: ${((h1 - h0) / n / 1024).toFixed(1)} KiB heap/session, opened in ${(openMs / n).toFixed(0)} ms/session, PostgreSQL connections ${c0} → ${c1}, load ${os.loadavg()[0].toFixed(1)}`)
await front.dispose()
await runner.dispose()
await pg.stop()
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
process.exit(0)
