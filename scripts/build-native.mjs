#!/usr/bin/env node
// Builds the posix_spawn addon (native/spawn.c → build/Release/toolwright_spawn.node) with the
// node-gyp that npm bundles, against Node's own headers. It never fails the install: without the
// addon, processes start through node:child_process and node-pty as before (src/process/launcher.ts).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const say = (text) => process.stderr.write(`toolwright: ${text}\n`)

const nodeGyp = () => {
  const candidates = [
    process.env.npm_config_node_gyp,
    path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "node_modules", "node-gyp", "bin", "node-gyp.js")
  ]
  return candidates.find((file) => file !== undefined && file !== "" && fs.existsSync(file))
}

const main = () => {
  if (process.platform !== "linux") return say(`the posix_spawn addon is for Linux; ${process.platform} uses child_process`)
  const gyp = nodeGyp()
  if (gyp === undefined) return say("node-gyp not found: the posix_spawn addon is not built (child_process is used)")
  const args = [gyp, "rebuild"]
  // Node's own headers, where they are installed beside it, so that node-gyp downloads nothing.
  const prefix = path.resolve(path.dirname(process.execPath), "..")
  if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, "include", "node", "node_api.h"))) {
    args.push(`--nodedir=${prefix}`)
  }
  const run = spawnSync(process.execPath, args, { cwd: root, stdio: ["ignore", "inherit", "inherit"], timeout: 300_000 })
  if (run.status !== 0) {
    say(`the posix_spawn addon could not be built (${run.error?.message ?? `node-gyp exited ${run.status ?? run.signal}`}); child_process is used`)
  }
}

main()
