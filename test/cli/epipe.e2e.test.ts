/**
 * `toolwright … | head -1`: the reader closes the pipe early, and the CLI stops quietly with exit
 * code 0 instead of an EPIPE stack trace. Run `npm run build` first.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { cliPath, tempDir } from "../support/serve.js"

describe("the CLI piped into head", () => {
  it.live("toolwright run script.jsonl | head -1 prints one line, exits 0, writes nothing to stderr", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "big.txt"), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`).join("\n"))
      const call = JSON.stringify({ name: "read_file", args: { file_path: "big.txt", offset: 0, limit: 500 } })
      fs.writeFileSync(path.join(root, "script.jsonl"), Array.from({ length: 50 }, () => call).join("\n") + "\n")
      // PIPESTATUS[0] is toolwright's own exit code, not head's
      const shell = `"${process.execPath}" "${cliPath}" run script.jsonl --root . --state-dir "${state}" | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`
      const result = spawnSync("bash", ["-c", shell], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } })
      assert.strictEqual(result.stdout.split("\n").filter(Boolean).length, 1, result.stdout)
      assert.include(result.stdout, "read_file")
      assert.strictEqual(result.stderr.trim(), "exit=0")
    }), 60_000)
})
