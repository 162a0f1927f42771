// Sessions as cluster entities (issue 17): the per-call overhead of going through a front and a
// runner process (PostgreSQL membership, socket transport) against the same call on a session in
// this process, the same through the HTTP front (`serve --http --cluster`) against `serve --http`,
// calls/s of the mixed round (read_file, edit, grep_search, glob, a short command) in N sessions at
// once through one runner and through two, and the heap per idle session on a runner (one built in
// this process, workspace group `heap`) whose sessions keep their record in PostgreSQL. Runner
// processes start from the measured build's bin/ (TOOLWRIGHT_BENCH_DIST).
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { distDir, median, repoRoot, tempDir } from "../lib.mjs"
import { freePort, startPg } from "../pg.mjs"

export const name = "cluster: per-call overhead through front + runner, mixed-round calls/s with 1 and 2 runners"

const percentile = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const startRunner = async (url, root, state) => {
  const port = await freePort()
  const child = spawn(process.execPath, [
    path.join(distDir, "..", "bin", "toolwright.js"), "runner", "--sql", url, "--host", "127.0.0.1", "--port", String(port),
    "--root", root, "--state-dir", state
  ], { cwd: root, stdio: ["ignore", "ignore", "pipe"] })
  let err = ""
  await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      err += d
      if (err.includes("toolwright runner ready")) resolve()
    })
    child.once("exit", (code) => reject(new Error(`runner exited ${code}: ${err}`)))
  })
  return {
    pid: child.pid,
    name: `127.0.0.1:${port}`,
    stop: () =>
      new Promise((r) => {
        if (child.exitCode !== null) return r()
        const timer = setTimeout(() => (console.error(`cluster bench: runner ${port} did not stop in 20 s: SIGKILL`), child.kill("SIGKILL")), 20_000)
        child.once("exit", () => (clearTimeout(timer), r()))
        child.kill("SIGTERM")
      })
  }
}

const startDoor = (args) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(repoRoot, "bin", "toolwright.js"), "serve", "--http", "127.0.0.1:0", ...args], {
      stdio: ["ignore", "ignore", "pipe"]
    })
    let text = ""
    child.stderr.on("data", (chunk) => {
      text += chunk
      const found = /listening on (\S+)/.exec(text)
      if (found) resolve({ child, url: new URL(found[1]) })
    })
    child.on("exit", (code) => reject(new Error(`serve --http exited ${code}: ${text}`)))
  })

const httpClient = async (url) => {
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} })
  await client.connect(new StreamableHTTPClientTransport(url))
  return client
}

// CPU time (ms) a process has used: utime + stime from /proc (clock ticks of 10 ms).
const procCpuMs = (pid) => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const selfCpuMs = () => {
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}

const workspace = (n) => {
  const root = tempDir("twbench-cluster-")
  fs.mkdirSync(path.join(root, "src"))
  fs.writeFileSync(path.join(root, "small.txt"), "hello\n")
  for (let i = 0; i < n; i++) {
    fs.writeFileSync(path.join(root, "src", `m${i}.ts`), Array.from({ length: 100 }, (_, j) => `export const v${j} = ${j} // line ${j} TODO`).join("\n") + "\n")
  }
  return root
}

// Open connections to the bench's PostgreSQL (psql of the same installation), if psql is found.
const pgConnections = (url) => {
  const base = "/usr/lib/postgresql"
  const major = fs.existsSync(base) ? fs.readdirSync(base).find((d) => fs.existsSync(path.join(base, d, "bin", "psql"))) : undefined
  if (major === undefined) return undefined
  try {
    return Number(execFileSync(path.join(base, major, "bin", "psql"), [url, "-At", "-c", "select count(*) from pg_stat_activity where backend_type = 'client backend'"], { encoding: "utf8" }).trim()) - 1
  } catch {
    return undefined
  }
}

export const run = async ({ smoke }) => {
  const tw = await import(path.join(distDir, "index.js"))
  const cluster = await import(path.join(distDir, "cluster", "index.js"))
  const { Effect, Layer, ManagedRuntime } = await import("effect")
  const sessions = smoke ? 2 : Number(process.env.TOOLWRIGHT_CLUSTER_SESSIONS ?? 20)
  const rounds = smoke ? 1 : 3
  const idleSessions = smoke ? 5 : 100
  const calls = smoke ? 20 : 300
  const root = workspace(sessions * 2)
  const state = tempDir("twbench-cluster-state-")
  const pg = await startPg()
  const runners = []
  const rows = []
  try {
    // Direct: one session in this process.
    const direct = ManagedRuntime.make(tw.SessionLayer.layer({ roots: [root], stateDir: state, mode: "yolo" }).pipe(
      Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
    ))
    const scheduler = await direct.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
    const directMs = []
    let directCpu = 0
    for (let i = 0; i < calls + 20; i++) {
      if (i === 20) directCpu = selfCpuMs()
      const t0 = performance.now()
      await direct.runPromise(scheduler.runOne({ callId: `d${i}`, name: "read_file", args: { file_path: "small.txt" } }))
      if (i >= 20) directMs.push(performance.now() - t0)
    }
    directCpu = (selfCpuMs() - directCpu) / calls
    await direct.dispose()

    console.error("cluster bench: direct done")
    runners.push(await startRunner(pg.url, root, state))
    console.error("cluster bench: runner 1 ready")
    const front = ManagedRuntime.make(cluster.Front.layer({ sqlUrl: pg.url }))
    const svc = await front.runPromise(Effect.gen(function*() { return yield* cluster.ClusterFront }))
    const call = (session, callId, name, args) => front.runPromise(svc.callBatch(session, [{ callId, name, args }]))

    const clusterMs = []
    let frontCpu = 0
    let runnerCpu = 0
    for (let i = 0; i < calls + 20; i++) {
      if (i === 20) (frontCpu = selfCpuMs(), runnerCpu = procCpuMs(runners[0].pid))
      const t0 = performance.now()
      await call("overhead", `o${i}`, "read_file", { file_path: "small.txt" })
      if (i >= 20) clusterMs.push(performance.now() - t0)
    }
    frontCpu = (selfCpuMs() - frontCpu) / calls
    runnerCpu = (procCpuMs(runners[0].pid) - runnerCpu) / calls
    console.error("cluster bench: overhead done")
    const d50 = median(directMs)
    const c50 = median(clusterMs)
    rows.push({
      scenario: "cluster: read_file of a small file, per call (front → runner) vs in-process session",
      size: `${calls} calls`, ours: c50, limit: d50, unit: "ms p50", limitName: "same call, session in this process",
      ratio: c50 / d50, note: `+${(c50 - d50).toFixed(2)} ms p50; p99 ${percentile(clusterMs, 99).toFixed(1)} vs ${percentile(directMs, 99).toFixed(1)} ms; load average ${os.loadavg()[0].toFixed(1)}`
    })
    rows.push({
      scenario: "cluster: CPU per read_file call, front + runner processes vs in-process session",
      size: `${calls} calls`, ours: frontCpu + runnerCpu, limit: directCpu, unit: "CPU ms/call", limitName: "same call, session in this process",
      ratio: (frontCpu + runnerCpu) / directCpu, note: `front ${frontCpu.toFixed(2)} + runner ${runnerCpu.toFixed(2)} ms (PostgreSQL not counted)`
    })

    // The HTTP front (`serve --http --cluster`) against `serve --http` with the session in the door,
    // one read_file per call over Streamable HTTP, alternating so both see the same load.
    const frontDoor = await startDoor(["--cluster", "--sql", pg.url])
    const localDoor = await startDoor(["--root", root, "--state-dir", state])
    try {
      const viaFront = await httpClient(frontDoor.url)
      const viaLocal = await httpClient(localDoor.url)
      const frontMs = []
      const localMs = []
      for (let i = 0; i < calls + 20; i++) {
        for (const [client, out] of [[viaFront, frontMs], [viaLocal, localMs]]) {
          const t0 = performance.now()
          const r = await client.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
          if (r.isError) throw new Error(`cluster bench: read_file failed over HTTP: ${JSON.stringify(r.content)}`)
          if (i >= 20) out.push(performance.now() - t0)
        }
      }
      await viaFront.close()
      await viaLocal.close()
      const f50 = median(frontMs)
      const l50 = median(localMs)
      rows.push({
        scenario: "cluster: read_file of a small file over MCP HTTP, serve --http --cluster (front → runner) vs serve --http",
        size: `${calls} calls`, ours: f50, limit: l50, unit: "ms p50", limitName: "same call, session in the HTTP door",
        ratio: f50 / l50, note: `+${(f50 - l50).toFixed(2)} ms p50; p99 ${percentile(frontMs, 99).toFixed(1)} vs ${percentile(localMs, 99).toFixed(1)} ms; load average ${os.loadavg()[0].toFixed(1)}`
      })
    } finally {
      frontDoor.child.kill("SIGTERM")
      localDoor.child.kill("SIGTERM")
    }
    console.error("cluster bench: HTTP front done")

    const mixed = async (prefix, offset) => {
      const errors = []
      const t0 = performance.now()
      let count = 0
      await Promise.all(Array.from({ length: sessions }, async (_, s) => {
        const id = `${prefix}${s}`
        const file = `src/m${offset + s}.ts`
        for (let r = 0; r < rounds; r++) {
          const batch = [
            ["read_file", { file_path: file }],
            ["edit", { file_path: file, old_string: `v${r} = ${r} //`, new_string: `v${r} = ${r} /* */ //` }],
            ["grep_search", { pattern: "v1[0-9] =", path: "src" }],
            ["glob", { pattern: "src/*.ts" }],
            ["run_shell_command", { command: "echo hi" }]
          ]
          for (const [name, args] of batch) {
            if (process.env.TW_BENCH_DEBUG) console.error(`→ ${id} ${name}`)
            const res = await call(id, `${id}-${r}-${name}`, name, args)
            if (process.env.TW_BENCH_DEBUG) console.error(`← ${id} ${name} ${res.runner}`)
            count++
            if (res.results[0].result.isError) errors.push(`${name}: ${res.results[0].result.content[0]?.text?.slice(0, 80)}`)
          }
        }
      }))
      return { perSec: count / ((performance.now() - t0) / 1000), errors }
    }
    const one = await mixed("one-", 0)
    console.error("cluster bench: mixed with 1 runner done")
    runners.push(await startRunner(pg.url, root, state))
    // wait until the front routes to both runners
    for (let round = 0; round < 60; round++) {
      const seen = new Set()
      for (let i = 0; i < 8; i++) seen.add((await front.runPromise(svc.listTools(`probe-${round}-${i}`))).runner)
      console.error(`cluster bench: probe round ${round}: ${[...seen].join(" ")}`)
      if (seen.size >= 2) break
      await new Promise((r) => setTimeout(r, 1000))
    }
    console.error("cluster bench: spread")
    const two = await mixed("two-", sessions)
    rows.push({
      scenario: "cluster: mixed round (read, edit, grep, glob, echo) through the front, 2 runners vs 1",
      size: `${sessions} sessions × ${rounds} rounds`, ours: two.perSec, limit: one.perSec, unit: "calls/s",
      limitName: "same round, 1 runner", ratio: two.perSec / one.perSec,
      note: `failed calls: ${one.errors.length} (1 runner), ${two.errors.length} (2 runners)${[...one.errors, ...two.errors].slice(0, 2).map((e) => `; ${e}`).join("")}`
    })
    console.error("cluster bench: measured")

    // Heap per idle session on a runner in this process (group `heap`, so only it hosts them).
    const heapPort = await freePort()
    const heapState = tempDir("twbench-cluster-heap-")
    const heapRunner = ManagedRuntime.make(cluster.Runner.layer({
      sqlUrl: pg.url, roots: [root], stateDir: heapState, mode: "yolo", host: "127.0.0.1", port: heapPort, groups: ["heap"]
    }))
    await heapRunner.runPromise(Effect.void)
    await call("warm@heap", "hw", "read_file", { file_path: "small.txt" })
    const settle = async () => {
      for (let i = 0; i < 3; i++) (globalThis.gc?.(), await new Promise((r) => setTimeout(r, 200)))
      return process.memoryUsage().heapUsed
    }
    const connections = pgConnections(pg.url)
    const heap0 = await settle()
    const t0 = performance.now()
    for (let i = 0; i < idleSessions; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, idleSessions - i) }, (_, j) => call(`h${i + j}@heap`, `h${i + j}`, "read_file", { file_path: "small.txt" })))
    }
    const openMs = performance.now() - t0
    const heap1 = await settle()
    const connectionsAfter = pgConnections(pg.url)
    rows.push({
      scenario: "cluster: heap per idle session on a runner (SQL store), after one read_file each",
      size: `${idleSessions} sessions`, ours: (heap1 - heap0) / idleSessions / 1024, limit: NaN, unit: "KiB/session", limitName: "—", ratio: NaN,
      note: `front and runner in one process, heap after GC; opening them took ${(openMs / idleSessions).toFixed(0)} ms/session (10 at a time)` +
        (connections !== undefined ? `; PostgreSQL connections ${connections} → ${connectionsAfter}` : "") + (globalThis.gc ? "" : "; no --expose-gc")
    })
    await heapRunner.dispose()
    fs.rmSync(heapState, { recursive: true, force: true })
    console.error("cluster bench: heap measured")
    await front.dispose()
    console.error("cluster bench: front closed")
  } finally {
    for (const r of runners) await r.stop()
    console.error("cluster bench: runners stopped")
    await pg.stop()
    console.error("cluster bench: postgres stopped")
    fs.rmSync(root, { recursive: true, force: true })
    fs.rmSync(state, { recursive: true, force: true })
  }
  return rows
}
