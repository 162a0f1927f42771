/**
 * Real MCP hosts for end-to-end tests, installed from npm at pinned versions into a cache under the
 * system temp dir (never into the project's node_modules): the first test run installs, later runs
 * reuse. An install that fails fails the test with npm's output: CI has the registry.
 */
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"

/** The hosts the suite drives, pinned. */
export const HOSTS = {
  qwenCode: { pkg: "@qwen-code/qwen-code", version: "0.15.10", entry: "node_modules/@qwen-code/qwen-code/cli.js" },
  inspector: { pkg: "@modelcontextprotocol/inspector", version: "0.15.0", entry: "node_modules/@modelcontextprotocol/inspector-cli/build/index.js" }
} as const

/** Installs `host` if it is not in the cache yet; the absolute path of its entry script. */
export const installHost = (host: (typeof HOSTS)[keyof typeof HOSTS]) =>
  Effect.callback<string, Error>((resume) => {
    const dir = path.join(os.tmpdir(), "toolwright-test-hosts", `${host.pkg.replace(/[@/]/g, "_")}-${host.version}`)
    const entry = path.join(dir, host.entry)
    if (fs.existsSync(entry)) return resume(Effect.succeed(entry))
    fs.mkdirSync(dir, { recursive: true })
    execFile(
      "npm",
      ["install", "--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--prefix", dir, `${host.pkg}@${host.version}`],
      { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error === null && fs.existsSync(entry)) return resume(Effect.succeed(entry))
        resume(Effect.fail(new Error(`installing ${host.pkg}@${host.version} failed: ${error?.message ?? "entry missing"}\n${stdout}${stderr}`)))
      }
    )
  })
