/**
 * Check and use the same thing (issue 15): a process flips symbolic links inside the root between
 * a directory (or file) inside and one outside, as fast as it can, while read_file → write_file →
 * edit → write_file (a new file) run through the built serve door (`npm run build` first). Not one
 * round may touch the outside: its listing, bytes and mtimes are the same afterwards. Before the
 * descriptor walk, 400 rounds made 9 edits land outside the root and 42 write_file calls create
 * files there.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

const ROUNDS = 400
const TEXT = "same text\n"

/** Flips each `links[i]` between `inside[i]` and `outside[i]` (atomically, by rename) until killed. */
const SWAPPER = `
const fs = require("node:fs")
const [dir, ...pairs] = process.argv.slice(1)
const links = []
for (let i = 0; i < pairs.length; i += 3) links.push(pairs.slice(i, i + 3))
process.stdout.write("ready\\n")
for (let n = 0; ; n++) {
  for (const [name, inside, outside] of links) {
    const tmp = dir + "/.swap-" + name
    try { fs.unlinkSync(tmp) } catch {}
    fs.symlinkSync(n % 2 === 0 ? outside : inside, tmp)
    fs.renameSync(tmp, dir + "/" + name)
  }
}
`

const swapper = (dir: string, links: ReadonlyArray<readonly [string, string, string]>) =>
  Effect.acquireRelease(
    Effect.callback<ReturnType<typeof spawn>>((resume) => {
      const child = spawn(process.execPath, ["-e", SWAPPER, dir, ...links.flat()], { stdio: ["ignore", "pipe", "inherit"] })
      child.stdout!.once("data", () => resume(Effect.succeed(child)))
    }),
    (child) => Effect.sync(() => child.kill("SIGKILL"))
  )

/** Every entry under `dir` with its bytes and mtime: what "the outside did not change" compares. */
const snapshotTree = (dir: string): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const name of fs.readdirSync(dir, { recursive: true }) as Array<string>) {
    const full = path.join(dir, name)
    const st = fs.lstatSync(full)
    out[name] = st.isFile() ? `${st.mtimeMs}:${fs.readFileSync(full, "utf8")}` : `${st.mtimeMs}:dir`
  }
  return out
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(async () => {
    const result = await client.callTool({ name, arguments: args })
    const code = result._meta?.["toolwright/errorType"]
    return result.isError === true ? (typeof code === "string" ? code : "untyped") : "ok"
  })

describe("a symlink swapped during read_file → edit → write_file", () => {
  it.live(`${ROUNDS} rounds against a swapper: nothing outside the root is touched`, () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const outside = yield* tempDir("tw-outside-")
      const state = yield* tempDir("tw-state-")
      fs.mkdirSync(path.join(root, "real"))
      fs.writeFileSync(path.join(root, "real", "f.txt"), TEXT)
      fs.writeFileSync(path.join(outside, "f.txt"), TEXT) // same bytes: an edit planned through the link would match
      fs.utimesSync(path.join(outside, "f.txt"), 1_600_000_000, 1_600_000_000)
      fs.symlinkSync(path.join(root, "real"), path.join(root, "sub"))
      fs.symlinkSync(path.join(root, "real", "f.txt"), path.join(root, "lnk.txt"))
      const before = snapshotTree(outside)
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      yield* swapper(root, [
        ["sub", path.join(root, "real"), outside],
        ["lnk.txt", path.join(root, "real", "f.txt"), path.join(outside, "f.txt")]
      ])
      const outcomes = new Map<string, number>()
      const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
      for (let round = 0; round < ROUNDS; round++) {
        const file = round % 2 === 0 ? "sub/f.txt" : "lnk.txt"
        count(`read_file:${yield* call(client, "read_file", { file_path: file })}`)
        count(`write_file:${yield* call(client, "write_file", { file_path: file, content: TEXT })}`)
        count(`edit:${yield* call(client, "edit", { file_path: file, old_string: "same text", new_string: `edited ${round}` })}`)
        count(`create:${yield* call(client, "write_file", { file_path: `sub/new-${round}.txt`, content: `new ${round}\n` })}`)
      }
      const after = snapshotTree(outside)
      const summary = [...outcomes].map(([k, v]) => `${k}=${v}`).sort().join(" ")
      console.error(`symlink race, ${ROUNDS} rounds: ${summary}`)
      assert.deepStrictEqual(after, before, "the outside directory is untouched")
      for (const [key] of outcomes) assert.notInclude(key, "untyped", summary)
      // The race was real: calls landed inside, and calls were refused.
      assert.isAbove(outcomes.get("create:ok") ?? 0, 0, summary)
      assert.isAbove(outcomes.get("edit:ok") ?? 0, 0, summary)
      const inside = fs.readdirSync(path.join(root, "real")).filter((n) => n.startsWith("new-"))
      assert.strictEqual(inside.length, outcomes.get("create:ok"), "every reported creation is inside the root")
    }), 120_000)
})
