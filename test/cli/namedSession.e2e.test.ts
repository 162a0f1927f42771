/**
 * Named sessions at the CLI door (`--session NAME`, `--resume`), through the BUILT binary: a read
 * in one process is evidence for an edit in the next, a file changed in between must be read again,
 * and an unknown (with --resume), expired or damaged session is a typed usage error that loses nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { cliWorkspace } from "../support/cli.js"
import { connectServe } from "../support/serve.js"

const workspace = cliWorkspace("tw-named")

const readA = { file_path: "a.txt" }
const editA = { file_path: "a.txt", old_string: "hello", new_string: "bye" }

describe("toolwright call --session NAME", () => {
  it.live("a read in one process lets the next process edit; without the session the edit is refused", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const read = yield* w.call("read_file", readA, ["--session", "fix-1"])
      assert.strictEqual(read.code, 0, read.stderr)
      const unnamed = yield* w.call("edit", editA)
      assert.strictEqual(unnamed.code, 1)
      assert.match(unnamed.stderr, /\[edit_requires_prior_read\]/)
      const edit = yield* w.call("edit", editA, ["--session", "fix-1"])
      assert.strictEqual(edit.code, 0, edit.stderr)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
      // the edit is evidence too: a third process edits again without reading
      const again = yield* w.call("edit", { file_path: "a.txt", old_string: "second", new_string: "2nd" }, ["--session", "fix-1"])
      assert.strictEqual(again.code, 0, again.stderr)
      assert.strictEqual(w.read(), "bye world\n2nd line\n")
      const record = JSON.parse(fs.readFileSync(path.join(w.state, "sessions", "fix-1.json"), "utf8"))
      assert.deepStrictEqual(record.evidence.map((e: { path: string }) => e.path), ["a.txt"])
      assert.strictEqual((fs.statSync(path.join(w.state, "sessions", "fix-1.json")).mode & 0o777), 0o600)
    }), 60_000)

  it.live("a file changed between the processes must be read again (same size, new mtime and content)", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      assert.strictEqual((yield* w.call("read_file", readA, ["--session", "s"])).code, 0)
      fs.writeFileSync(path.join(w.root, "a.txt"), "HELLO world\nsecond line\n")
      const edit = yield* w.call("edit", { ...editA, old_string: "HELLO" }, ["--session", "s"])
      assert.strictEqual(edit.code, 1)
      assert.match(edit.stderr, /\[edit_requires_prior_read\]/)
      assert.strictEqual(w.read(), "HELLO world\nsecond line\n")
      // read again in the session: now the edit goes through
      const reread = yield* w.call("read_file", readA, ["--session", "s"])
      assert.strictEqual(reread.code, 0)
      assert.strictEqual((yield* w.call("edit", { ...editA, old_string: "HELLO" }, ["--session", "s"])).code, 0)
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
    }), 60_000)

  it.live("same size and mtime but other bytes: the hash refuses the old evidence", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      assert.strictEqual((yield* w.call("read_file", readA, ["--session", "h"])).code, 0)
      const file = path.join(w.root, "a.txt")
      const before = fs.statSync(file)
      fs.writeFileSync(file, "jello world\nsecond line\n")
      fs.utimesSync(file, before.atime, before.mtime)
      const edit = yield* w.call("edit", { ...editA, old_string: "jello" }, ["--session", "h"])
      assert.strictEqual(edit.code, 1)
      assert.match(edit.stderr, /\[edit_requires_prior_read\]/)
      assert.strictEqual(w.read(), "jello world\nsecond line\n")
    }), 60_000)

  it.live("--resume of an unknown name, an expired session and a damaged record are usage errors (exit 2)", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const unknown = yield* w.call("read_file", readA, ["--session", "nope", "--resume"])
      assert.strictEqual(unknown.code, 2)
      assert.match(unknown.stderr, /^error: session_not_found: There is no saved session "nope"/)
      assert.isFalse(fs.existsSync(path.join(w.state, "sessions", "nope.json")))
      const bare = yield* w.call("read_file", readA, ["--resume"])
      assert.strictEqual(bare.code, 2)
      assert.match(bare.stderr, /--resume continues a named session/)

      assert.strictEqual((yield* w.call("read_file", readA, ["--session", "old"])).code, 0)
      yield* Effect.sleep("50 millis")
      const expired = yield* w.call("edit", editA, ["--session", "old"], { TOOLWRIGHT_SESSION_TTL_HOURS: "0.000001" })
      assert.strictEqual(expired.code, 2)
      assert.match(expired.stderr, /^error: session_expired: Session "old" was last used/)
      assert.strictEqual(w.read(), "hello world\nsecond line\n")

      const damaged = path.join(w.state, "sessions", "bad.json")
      fs.writeFileSync(damaged, "{not json")
      const bad = yield* w.call("read_file", readA, ["--session", "bad"])
      assert.strictEqual(bad.code, 2)
      assert.match(bad.stderr, /^error: session_store_failed: The saved session .* is not a toolwright session record/)
      assert.strictEqual(fs.readFileSync(damaged, "utf8"), "{not json")

      const badName = yield* w.call("read_file", readA, ["--session", "../x"])
      assert.strictEqual(badName.code, 2)
      assert.match(badName.stderr, /is not a session name/)
    }), 60_000)
})

describe("toolwright serve --session NAME (one-shot MCP clients)", () => {
  it.live("a read over one serve process lets the next serve process edit", () =>
    Effect.gen(function*() {
      const w = yield* workspace
      const args = ["--root", w.root, "--state-dir", w.state, "--session", "mcp-1"]
      const first = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connectServe(args)
        return yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: readA }))
      }))
      assert.notStrictEqual(first.isError, true)
      const second = yield* Effect.scoped(Effect.gen(function*() {
        const client = yield* connectServe(args)
        return yield* Effect.promise(() => client.callTool({ name: "edit", arguments: editA }))
      }))
      assert.notStrictEqual(second.isError, true, JSON.stringify(second.content))
      assert.strictEqual(w.read(), "bye world\nsecond line\n")
    }), 60_000)
})
