import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { MAX_DESCENDANTS } from "../../src/mcp/constants.js"
import { descendantsFromTable, isAlive, killProcessTree, listDescendantPids, parsePsTable } from "../../src/mcp/processTree.js"
import { tempDir } from "../support/serve.js"
import { eventually } from "./support.js"

const table = (tree: Record<number, ReadonlyArray<number>>) =>
  Object.entries(tree).flatMap(([parent, children]) => children.map((child) => [child, Number(parent)] as const))

describe("process tree (reference §9.8)", () => {
  it("the reference vector: breadth first, children before grandchildren", () => {
    const t = table({ 1: [2, 3], 2: [4], 3: [5], 4: [6] })
    assert.deepStrictEqual(descendantsFromTable(t, 1), [2, 3, 4, 5, 6])
    assert.deepStrictEqual(descendantsFromTable(t, 2), [4, 6])
    assert.deepStrictEqual(descendantsFromTable(t, 99), [])
    assert.deepStrictEqual(descendantsFromTable(t, 0), [])
    assert.deepStrictEqual(descendantsFromTable(t, 1.5), [])
  })

  it("ignores cycles and stops at the depth and count limits", () => {
    assert.deepStrictEqual(descendantsFromTable([[2, 1], [1, 2]], 1), [2])
    const chain = Array.from({ length: 20 }, (_, i) => [i + 2, i + 1] as const)
    assert.strictEqual(descendantsFromTable(chain, 1).length, 8)
    const wide = Array.from({ length: 300 }, (_, i) => [i + 2, 1] as const)
    assert.strictEqual(descendantsFromTable(wide, 1).length, MAX_DESCENDANTS)
  })

  it("parses ps output", () => {
    assert.deepStrictEqual(parsePsTable("  1     0\n 42    1\ngarbage\n"), [[1, 0], [42, 1]])
  })

  it.live("kills a real process tree (child and grandchild)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const pidFile = path.join(dir, "grandchild")
      const script = `const c = require("child_process").spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });` +
        `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); setInterval(() => {}, 1000)`
      const child = spawn(process.execPath, ["-e", script], { stdio: "ignore", detached: true })
      const grandchild = yield* eventually(Effect.sync(() => (fs.existsSync(pidFile) ? Number(fs.readFileSync(pidFile, "utf8")) : undefined)), "the grandchild")
      assert.deepStrictEqual(yield* listDescendantPids(child.pid!), [grandchild])
      const signalled = yield* killProcessTree(child.pid!, { group: true })
      assert.strictEqual(signalled, 2)
      yield* eventually(Effect.sync(() => (!isAlive(child.pid!) && !isAlive(grandchild) ? true : undefined)), "the tree to die")
    }))
})
