// `toolwright serve --http`: the HTTP door against the stdio door, on the same machine in one run.
// - a new session to its first tools/list (HTTP: a running door; stdio: spawn, as a host does);
// - per-call overhead of a small read_file, one call at a time, HTTP session vs stdio session;
// - RSS per idle HTTP session (each initialized, its toolwright session built, one tools/list);
// - calls/s of read_file from 50 concurrent HTTP sessions vs 50 concurrent calls in one stdio session.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { median, repoRoot, tempDir } from "../lib.mjs"

const cli = path.join(repoRoot, "bin/toolwright.js")

const startDoor = (args) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "serve", "--http", "127.0.0.1:0", "--max-sessions", "500", ...args], { stdio: ["ignore", "ignore", "pipe"] })
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

const stdioClient = async (args) => {
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} })
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, "serve", ...args], stderr: "ignore" }))
  return client
}

const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))[1])

const settle = () => new Promise((resolve) => setTimeout(resolve, 500))

export const run = async ({ runs, smoke }) => {
  const root = tempDir()
  const state = tempDir()
  fs.writeFileSync(path.join(root, "small.txt"), "one line\n")
  const args = ["--root", root, "--state-dir", state]
  const door = await startDoor(args)
  const rows = []
  try {
    // 1. a new session to its first tools/list
    const httpFirst = []
    const stdioFirst = []
    for (let i = 0; i < runs + 1; i++) {
      let t0 = performance.now()
      const h = await httpClient(door.url)
      await h.listTools()
      const a = performance.now() - t0
      await h.close()
      t0 = performance.now()
      const s = await stdioClient(args)
      await s.listTools()
      const b = performance.now() - t0
      await s.close()
      if (i === 0) continue
      httpFirst.push(a)
      stdioFirst.push(b)
    }
    rows.push({
      scenario: "httpDoor: new session to first tools/list",
      size: "-",
      ours: median(httpFirst),
      limit: median(stdioFirst),
      unit: "ms",
      limitName: "stdio door (spawn to first tools/list)",
      ratio: median(httpFirst) / median(stdioFirst),
      note: "HTTP: a door already running"
    })

    // 2. per-call overhead, one call at a time
    const calls = smoke ? 20 : 100
    const perCall = async (client) => {
      for (let i = 0; i < 5; i++) await client.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
      const t0 = performance.now()
      for (let i = 0; i < calls; i++) await client.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
      return (performance.now() - t0) / calls
    }
    const h = await httpClient(door.url)
    const s = await stdioClient(args)
    const httpCall = []
    const stdioCall = []
    for (let i = 0; i < Math.min(runs, 3); i++) {
      httpCall.push(await perCall(h))
      stdioCall.push(await perCall(s))
    }
    rows.push({
      scenario: "httpDoor: per call (read_file, sequential)",
      size: calls,
      ours: median(httpCall),
      limit: median(stdioCall),
      unit: "ms",
      limitName: "stdio door",
      ratio: median(httpCall) / median(stdioCall),
      note: "same session reused"
    })

    // 3. calls/s, 50 sessions at once
    const n = 50
    const perSession = smoke ? 4 : 10
    const sessions = await Promise.all(Array.from({ length: n }, () => httpClient(door.url)))
    // warm: each session loads read_file once (a session's tools load on first use)
    await Promise.all(sessions.map((c) => c.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })))
    const burst = async (clients) => {
      const t0 = performance.now()
      await Promise.all(clients.map(async (c) => {
        for (let i = 0; i < perSession; i++) await c.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
      }))
      return (n * perSession) / ((performance.now() - t0) / 1000)
    }
    const httpRate = []
    const stdioRate = []
    for (let i = 0; i < Math.min(runs, 3); i++) {
      httpRate.push(await burst(sessions))
      stdioRate.push(await burst(Array.from({ length: n }, () => s)))
    }
    rows.push({
      scenario: "httpDoor: calls/s, 50 concurrent sessions",
      size: n * perSession,
      ours: median(httpRate),
      limit: median(stdioRate),
      unit: "calls/s",
      limitName: "one stdio session, 50 calls in flight",
      ratio: median(httpRate) / median(stdioRate),
      note: "read_file of a one-line file"
    })
    await h.close()
    await s.close()

    // 4. RSS per idle session: the door's RSS before and after opening more sessions
    const more = smoke ? 20 : 200
    await settle()
    const before = rssKiB(door.child.pid)
    const idle = []
    for (let i = 0; i < more; i += 20) {
      const batch = await Promise.all(Array.from({ length: Math.min(20, more - i) }, () => httpClient(door.url)))
      await Promise.all(batch.map((c) => c.listTools()))
      idle.push(...batch)
    }
    await settle()
    const after = rssKiB(door.child.pid)
    const perSessionKiB = (after - before) / more
    rows.push({
      scenario: "httpDoor: RSS per idle HTTP session",
      size: more,
      ours: perSessionKiB,
      limit: 1024,
      unit: "KiB",
      limitName: "goal (1 MiB)",
      ratio: perSessionKiB / 1024,
      note: `door RSS ${Math.round(before / 1024)} → ${Math.round(after / 1024)} MiB with ${n + more} sessions open`
    })
    await Promise.all([...sessions, ...idle].map((c) => c.close().catch(() => undefined)))
  } finally {
    door.child.kill("SIGTERM")
  }
  return rows
}
