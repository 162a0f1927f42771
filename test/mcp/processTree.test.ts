import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { isAlive, killProcessTree, listDescendantPids } from "../../src/process/tree.js"
import { tempDir } from "../support/serve.js"
import { eventually } from "./support.js"

describe("the shared process tree, as the MCP client uses it for stdio servers", () => {
  it.live("kills a real process tree (child and grandchild)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const pidFile = path.join(dir, "grandchild")
      const script = `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });` +
        `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000)`
      const child = spawn(process.execPath, ["-e", script], { stdio: "ignore", detached: true })
      const grandchild = yield* eventually(Effect.sync(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8")) : undefined)), "the grandchild")
      assert.deepStrictEqual(yield* listDescendantPids(child.pid!), [grandchild])
      const targeted = yield* killProcessTree(child.pid!, { group: true, graceMs: 2_000 })
      assert.includeMembers([...targeted], [child.pid!, grandchild])
      yield* eventually(Effect.sync(() => (!isAlive(child.pid!) && !isAlive(grandchild) ? true : undefined)), "the tree to die")
    }))
})
