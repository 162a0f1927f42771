import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import {
  childrenMap,
  findTaggedPids,
  killProcessTree,
  listDescendantPids,
  MAX_DEPTH,
  MAX_DESCENDANTS,
  parsePsOutput,
  PROCESS_TAG_VARIABLE,
  treePids,
  walkDescendants
} from "../../src/process/tree.js"
import { makeDir, readPids, survivors, TREE_PIDS, TREE_SCRIPT } from "../shell/helpers.js"

const tree = new Map<number, Array<number>>([[1, [2, 3]], [2, [4]], [3, [5]], [4, [6]]])

describe("walkDescendants (reference §9.8 vectors)", () => {
  it("walks breadth-first", () => {
    assert.deepStrictEqual(walkDescendants(tree, 1), [2, 3, 4, 5, 6])
    assert.deepStrictEqual(walkDescendants(tree, 2), [4, 6])
    assert.deepStrictEqual(walkDescendants(tree, 99), [])
  })
  it("rejects invalid roots and ignores cycles", () => {
    assert.deepStrictEqual(walkDescendants(tree, 0), [])
    assert.deepStrictEqual(walkDescendants(tree, -3), [])
    assert.deepStrictEqual(walkDescendants(tree, 1.5), [])
    assert.deepStrictEqual(walkDescendants(new Map([[1, [2]], [2, [3]], [3, [1, 2]]]), 1), [2, 3])
  })
  it("stops at 256 descendants and 8 levels", () => {
    const wide = new Map([[1, Array.from({ length: 300 }, (_, i) => i + 2)]])
    assert.lengthOf(walkDescendants(wide, 1), MAX_DESCENDANTS)
    assert.deepStrictEqual(walkDescendants(wide, 1).slice(0, 3), [2, 3, 4])
    const chain = new Map(Array.from({ length: 12 }, (_, i) => [i + 1, [i + 2]] as [number, Array<number>]))
    assert.deepStrictEqual(walkDescendants(chain, 1), [2, 3, 4, 5, 6, 7, 8, 9])
    assert.lengthOf(walkDescendants(chain, 1), MAX_DEPTH)
  })
  it("parses a ps snapshot", () => {
    assert.deepStrictEqual(parsePsOutput("  1     0\n 20    1\nbad line\n 21 20 \n"), [[1, 0], [20, 1], [21, 20]])
    assert.deepStrictEqual(childrenMap([[3, 1], [2, 1], [4, 2]]).get(1), [2, 3])
  })
})

describe("process trees of real processes", () => {
  for (const source of ["auto", "ps", "pgrep"] as const) {
    it.live(`lists the descendants of a live tree (${source})`, () =>
      Effect.gen(function*() {
        const dir = makeDir()
        fs.writeFileSync(path.join(dir, "tree.sh"), TREE_SCRIPT)
        const pidFile = path.join(dir, "pids")
        const child = spawn("bash", ["tree.sh", pidFile], { cwd: dir, detached: true, stdio: "ignore", env: { ...process.env, [PROCESS_TAG_VARIABLE]: `twtest${process.pid}.1` } })
        const pids = yield* readPids(pidFile, TREE_PIDS)
        const listed = yield* listDescendantPids(child.pid!, source)
        // everything but the root and the re-parented daemon
        assert.strictEqual(pids.filter((p) => listed.includes(p)).length, TREE_PIDS - 2)
        assert.notInclude(listed, child.pid!)
        yield* killProcessTree(child.pid!, { tag: `twtest${process.pid}.1` })
        assert.deepStrictEqual(survivors(pids), [])
      }), 20_000)
  }

  it.live("without the environment tag, the double-forked daemon survives the tree kill; the tag finds it", () =>
    Effect.gen(function*() {
      const dir = makeDir()
      fs.writeFileSync(path.join(dir, "tree.sh"), TREE_SCRIPT)
      const pidFile = path.join(dir, "pids")
      const tag = `twtest${process.pid}.2`
      const child = spawn("bash", ["tree.sh", pidFile], { cwd: dir, detached: true, stdio: "ignore", env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag } })
      const pids = yield* readPids(pidFile, TREE_PIDS)
      yield* killProcessTree(child.pid!, { graceMs: 100 })
      const left = survivors(pids)
      assert.lengthOf(left, 1)
      assert.includeMembers(findTaggedPids(tag), left)
      assert.includeMembers(findTaggedPids(`twtest${process.pid}`, { prefix: true }), left)
      assert.deepStrictEqual(findTaggedPids(`twtest${process.pid}.`), [])
      yield* killProcessTree(0, { tag })
      assert.deepStrictEqual(survivors(pids), [])
    }), 20_000)

  it.live("treePids reads the tree from its own /proc files: the root and its descendants, nothing else, whatever else runs", () =>
    Effect.gen(function*() {
      const dir = makeDir()
      fs.writeFileSync(path.join(dir, "tree.sh"), TREE_SCRIPT)
      const pidFile = path.join(dir, "pids")
      const tag = `twtest${process.pid}.3`
      // 60 unrelated processes carrying the same tag: a scan by tag finds them all; the tree walk none of them
      const others = Array.from({ length: 60 }, () => spawn("sleep", ["1000"], { stdio: "ignore", env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag } }))
      const child = spawn("bash", ["tree.sh", pidFile], { cwd: dir, detached: true, stdio: "ignore", env: { ...process.env, [PROCESS_TAG_VARIABLE]: tag } })
      const pids = yield* readPids(pidFile, TREE_PIDS)
      const walked = treePids(child.pid!)!
      const listed = yield* listDescendantPids(child.pid!)
      assert.strictEqual(walked[0], child.pid)
      assert.sameMembers(walked.slice(1), listed)
      assert.strictEqual(pids.filter((p) => walked.includes(p)).length, TREE_PIDS - 1) // all but the re-parented daemon
      assert.isAtMost(walked.length, TREE_PIDS + 4) // the subshells' `sleep`s are exec'd: a handful of processes
      assert.isAtLeast(findTaggedPids(tag).length, 60)
      for (const other of others) assert.notInclude(walked, other.pid)
      yield* killProcessTree(child.pid!, { tag })
      for (const other of others) other.kill("SIGKILL")
      assert.deepStrictEqual(treePids(child.pid!), [])
      assert.isUndefined(treePids(0))
    }), 30_000)

  it.live("an invalid or finished root lists nothing", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* listDescendantPids(0), [])
      assert.deepStrictEqual(yield* listDescendantPids(2 ** 22 + 12345), [])
    }))
})
