// Per-call cost of one door, for profiling: `node bench/profile-door.mjs http|stdio [CALLS] [PROFILE_DIR]`
// starts the built CLI's door (`serve --http` or `serve` over stdio), makes 20 warm-up calls, then
// CALLS sequential read_file calls of a one-line file, and prints ms per call. With PROFILE_DIR the
// door runs under `node --cpu-prof --cpu-prof-dir=PROFILE_DIR` (Node 20 refuses --cpu-prof in
// NODE_OPTIONS); the profile is written when the door exits and includes its start-up.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { repoRoot as repo } from "./lib.mjs"

const mode = process.argv[2] === "stdio" ? "stdio" : "http"
const n = Number(process.argv[3] ?? 300)
const root = fs.mkdtempSync(path.join(os.tmpdir(), "prof-root-")), state = fs.mkdtempSync(path.join(os.tmpdir(), "prof-state-"))
fs.writeFileSync(path.join(root, "small.txt"), "one line\n")
const cli = path.join(repo, "bin/toolwright.js")
const profDir = process.argv[4]
const env = { ...process.env }
const pre = profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : []
const client = new Client({ name: "prof", version: "0" }, { capabilities: {} })
let child
if (mode === "http") {
  child = spawn(process.execPath, [...pre, cli, "serve", "--http", "127.0.0.1:0", "--root", root, "--state-dir", state], { stdio: ["ignore", "ignore", "pipe"], env })
  const url = await new Promise((resolve) => { let t = ""; child.stderr.on("data", (c) => { t += c; const m = /listening on (\S+)/.exec(t); if (m) resolve(m[1]) }) })
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
} else {
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [...pre, cli, "serve", "--root", root, "--state-dir", state], env, stderr: "ignore" }))
}
for (let i = 0; i < 20; i++) await client.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
const t0 = performance.now()
for (let i = 0; i < n; i++) await client.callTool({ name: "read_file", arguments: { file_path: "small.txt" } })
const ms = (performance.now() - t0) / n
console.log(mode, ms.toFixed(2), "ms/call")
await client.close()
if (child) { child.kill("SIGINT"); await new Promise((r) => child.on("exit", r)) }
fs.rmSync(root, { recursive: true, force: true })
fs.rmSync(state, { recursive: true, force: true })
