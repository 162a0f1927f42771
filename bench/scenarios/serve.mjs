// `toolwright serve`: spawn to the first tools/list answer, against an empty SDK MCP server.
import * as path from "node:path"
import * as fs from "node:fs"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { median, repoRoot, tempDir } from "../lib.mjs"

export const name = "serve: spawn to first tools/list"

const firstList = async (command, args) => {
  const t0 = performance.now()
  const client = new Client({ name: "bench", version: "0" }, { capabilities: {} })
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }))
  await client.listTools()
  const ms = performance.now() - t0
  await client.close()
  return ms
}

export const run = async ({ runs }) => {
  const root = tempDir()
  const state = tempDir()
  const empty = path.join(tempDir(), "empty-server.mjs")
  fs.writeFileSync(empty, `
    import { Server } from ${JSON.stringify(path.join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/server/index.js"))}
    import { StdioServerTransport } from ${JSON.stringify(path.join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/server/stdio.js"))}
    import { ListToolsRequestSchema } from ${JSON.stringify(path.join(repoRoot, "node_modules/@modelcontextprotocol/sdk/dist/esm/types.js"))}
    const server = new Server({ name: "empty", version: "0" }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }))
    await server.connect(new StdioServerTransport())
  `)
  const ours = []
  const limit = []
  for (let i = 0; i < runs + 1; i++) {
    const a = await firstList(process.execPath, [path.join(repoRoot, "bin/toolwright.js"), "serve", "--root", root, "--state-dir", state])
    const b = await firstList(process.execPath, [empty])
    if (i === 0) continue
    ours.push(a)
    limit.push(b)
  }
  const o = median(ours)
  const l = median(limit)
  return [{ scenario: name, size: "-", ours: o, limit: l, unit: "ms", limitName: "empty SDK server", ratio: o / l, note: "target ≤ 1.1×" }]
}
