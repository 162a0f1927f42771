// Heap per idle named session by store (issue 17): N named sessions open at once in one process,
// each having read one file, kept in memory, in files, or in PostgreSQL (one pool per session, as
// `sqlUrl` does, and one store shared by every session, as a server would). Reported: heap growth / N
// after a GC, and the time to open and close the N sessions. The limit is the memory store.
// PostgreSQL: TOOLWRIGHT_SQL_URL if set, else a private cluster started here (Debian's binaries, as
// test/support/postgres.ts does); without either the SQL rows are left out, said in the note.
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { distDir, tempDir } from "../lib.mjs"

export const name = "heap per idle named session: memory, file and SQL stores"

const binDir = () => {
  const base = "/usr/lib/postgresql"
  if (!fs.existsSync(base)) return undefined
  const major = fs.readdirSync(base).filter((d) => fs.existsSync(path.join(base, d, "bin", "initdb"))).sort((a, b) => b - a)[0]
  return major === undefined ? undefined : path.join(base, major, "bin")
}

const freePort = () =>
  new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })

/** A private cluster: { url, stop }, or undefined when PostgreSQL is not installed. */
const privatePostgres = async () => {
  const bin = binDir()
  if (bin === undefined) return undefined
  const root = process.getuid?.() === 0
  const as = (cmd, args) => (root ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args])
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-pg-"))
  const data = path.join(dir, "data")
  fs.mkdirSync(data)
  if (root) execFileSync("chown", ["-R", "postgres:postgres", dir])
  fs.chmodSync(dir, 0o755)
  execFileSync(...as(path.join(bin, "initdb"), ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "--locale=C.UTF-8"]), { stdio: "pipe" })
  const port = await freePort()
  const [cmd, args] = as(path.join(bin, "postgres"), ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=500"])
  const server = spawn(cmd, args, { stdio: "ignore" })
  const stop = () => {
    server.kill("SIGINT")
    fs.rmSync(dir, { recursive: true, force: true })
  }
  for (let i = 0; ; i++) {
    try {
      execFileSync(...as(path.join(bin, "createdb"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "toolwright"]), { stdio: "pipe" })
      break
    } catch (e) {
      if (i > 200) {
        stop()
        throw e
      }
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/toolwright`, stop }
}

export const run = async ({ smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const sqlStore = await import(path.join(distDir, "session", "sqlSessionStore.js"))
  const { Effect, Exit, Layer, ManagedRuntime, Scope } = await import("effect")
  const n = smoke ? 3 : 100
  const root = tempDir("twbench-sqlsess-")
  fs.writeFileSync(path.join(root, "a.txt"), "alpha\n".repeat(100))
  const env = process.env.TOOLWRIGHT_SQL_URL
  const pg = env ? { url: env, stop: () => {} } : await privatePostgres()
  const sharedScope = await Effect.runPromise(Scope.make())
  const shared = pg === undefined ? undefined : await Effect.runPromise(sqlStore.sqlSessionStore(pg.url).pipe(Effect.provideService(Scope.Scope, sharedScope)))
  const kinds = [
    ["memory", () => ({ sessionStore: tw.makeMemorySessionStore() })],
    ["file", () => ({})],
    ...(pg === undefined ? [] : [
      ["SQL, one pool per session (sqlUrl)", () => ({ sqlUrl: pg.url })],
      ["SQL, one store shared by the sessions", () => ({ sessionStore: shared })]
    ]),
    // the first measured row pays for caches that grow once per process: measured again last
    ["memory (again, last)", () => ({})]
  ]
  // warm-up: one session of each kind first, so module loading and JIT are not counted in the first row
  const openOne = async (state, sessionId, extra) => {
    const layer = tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo", sessionId, ...extra }).pipe(
      Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
    )
    const rt = ManagedRuntime.make(layer)
    await rt.runPromise(Effect.gen(function*() {
      const scheduler = yield* tw.Scheduler
      yield* scheduler.runOne({ callId: "r", name: "read_file", args: { file_path: "a.txt" } })
    }))
    return rt
  }
  const warmState = tempDir("twbench-sqlsess-warm-")
  for (const [, options] of kinds) await (await openOne(warmState, "warm", options())).dispose()
  fs.rmSync(warmState, { recursive: true, force: true })
  const results = []
  for (const [kind, options] of kinds) {
    const state = tempDir("twbench-sqlsess-state-")
    const memory = tw.makeMemorySessionStore()
    globalThis.gc?.()
    const heapBefore = process.memoryUsage().heapUsed
    const t0 = performance.now()
    const runtimes = []
    for (let s = 0; s < n; s++) {
      const extra = kind.startsWith("memory") ? { sessionStore: memory } : options()
      runtimes.push(await openOne(state, `bench-${s}`, extra))
    }
    const openMs = performance.now() - t0
    globalThis.gc?.()
    const heapIdle = process.memoryUsage().heapUsed - heapBefore
    const t1 = performance.now()
    for (const rt of runtimes) await rt.dispose()
    const closeMs = performance.now() - t1
    fs.rmSync(state, { recursive: true, force: true })
    results.push({ kind, perSession: heapIdle / n / 1024, openMs, closeMs })
  }
  await Effect.runPromise(Scope.close(sharedScope, Exit.void))
  pg?.stop()
  fs.rmSync(root, { recursive: true, force: true })
  const base = results[results.length - 1]
  return results.map((r) => ({
    scenario: "heap per idle named session (one read each)",
    size: `${n} sessions, ${r.kind}`,
    ours: r.perSession,
    limit: base.perSession,
    unit: "KiB",
    limitName: "memory store (measured last)",
    ratio: r.perSession / base.perSession,
    note: `open ${n} (with one read_file each) ${r.openMs.toFixed(0)} ms, close (save) ${r.closeMs.toFixed(0)} ms` +
      (pg === undefined ? "; no PostgreSQL here (set TOOLWRIGHT_SQL_URL or install postgresql): SQL rows left out" : "")
  }))
}
