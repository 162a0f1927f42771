/**
 * The trust boundary through the real serve door (the built dist/, `npm run build` first): a deny
 * or ask rule holds for every spelling of the path it names, because the policy decides on the
 * locations the tool itself resolved; and read evidence does not pass to a file that reuses a read
 * file's inode.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { MAX_ATTEMPTS, replaceAndReuseInode } from "../support/recycleInode.js"
import { connectServe, tempDir } from "../support/serve.js"

const SECRET = "secret file.txt"
const CONTENT = "top secret\n"

type CallResult = { readonly isError?: boolean; readonly content: unknown; readonly _meta?: Record<string, unknown> }

const textOf = (result: CallResult): string => (result.content as Array<{ text?: string }>).map((c) => c.text ?? "").join("\n")

/** The wire code of a failed call (the serve door puts it in `_meta`), or "ok". */
const codeOf = (result: CallResult): string =>
  result.isError === true ? String(result._meta?.["toolwright/errorType"]) : "ok"

const seed = (root: string) => {
  fs.writeFileSync(path.join(root, SECRET), CONTENT)
  fs.symlinkSync(SECRET, path.join(root, "alias.txt"))
  fs.mkdirSync(path.join(root, "sub"))
}

/** Spellings of the secret file a model might send. */
const spellings = (root: string) => [SECRET, "secret\\ file.txt", `./secret\\ file.txt`, `sub/../${SECRET}`, path.join(root, SECRET), "alias.txt"]

describe("deny and ask rules hold for every spelling (serve door)", () => {
  it.live("--approval auto-edit --deny edit(secret file.txt): no spelling edits the file", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      seed(root)
      const client = yield* connectServe(["--approval", "auto-edit", "--deny", `edit(${SECRET})`, "--root", root, "--state-dir", state])
      const read = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: SECRET } })) as Effect.Effect<CallResult>
      assert.notStrictEqual(read.isError, true, textOf(read))
      for (const spelling of spellings(root)) {
        const result = yield* Effect.promise(() =>
          client.callTool({ name: "edit", arguments: { file_path: spelling, old_string: "top", new_string: "no" } })
        ) as Effect.Effect<CallResult>
        assert.isTrue(result.isError, `${JSON.stringify(spelling)} was not refused: ${textOf(result)}`)
        assert.include(textOf(result), `"edit(${SECRET})" denies it`, JSON.stringify(spelling))
      }
      assert.strictEqual(fs.readFileSync(path.join(root, SECRET), "utf8"), CONTENT)
    }), 60_000)

  it.live("--approval default --ask read_file(secret file.txt): every spelling is put to the person", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      seed(root)
      const client = yield* connectServe(["--approval", "default", "--ask", `read_file(${SECRET})`, "--root", root, "--state-dir", state], {
        elicitation: {}
      })
      const asked: Array<string> = []
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        asked.push(request.params.message)
        return { action: "decline" }
      })
      for (const spelling of spellings(root)) {
        const result = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: spelling } })) as Effect.Effect<CallResult>
        assert.isTrue(result.isError, `${JSON.stringify(spelling)} was read without asking: ${textOf(result)}`)
        assert.strictEqual(result._meta?.["toolwright/cancelled"], true, JSON.stringify(spelling))
        assert.notInclude(textOf(result), "top secret")
      }
      assert.strictEqual(asked.length, spellings(root).length)
      // the prompt names the file that would be read, whatever the spelling
      for (const message of asked) assert.include(message, path.join(root, SECRET))
    }), 60_000)
})

describe("read evidence on a recycled inode (serve door)", () => {
  it.live("a never-read file that got a read file's inode cannot be edited: edit_requires_prior_read", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--approval", "yolo", "--root", root, "--state-dir", state])
      let reused: string | undefined
      for (let attempt = 0; attempt < MAX_ATTEMPTS && reused === undefined; attempt++) {
        const name = `a${attempt}.txt`
        fs.writeFileSync(path.join(root, name), "alpha\nbeta\n")
        const read = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: name } })) as Effect.Effect<CallResult>
        assert.notStrictEqual(read.isError, true, textOf(read))
        // replaced atomically: the read inode is freed, and a new file gets its number
        reused = replaceAndReuseInode(path.join(root, name), "alpha\ngamma\n", "alpha\nbeta\n")
      }
      assert.isDefined(reused, `no new file reused a freed inode in ${MAX_ATTEMPTS} attempts on ${root}`)
      const edit = yield* Effect.promise(() =>
        client.callTool({ name: "edit", arguments: { file_path: path.basename(reused!), old_string: "beta", new_string: "delta" } })
      ) as Effect.Effect<CallResult>
      assert.isTrue(edit.isError)
      assert.strictEqual(codeOf(edit), "edit_requires_prior_read", textOf(edit))
      assert.strictEqual(fs.readFileSync(reused!, "utf8"), "alpha\nbeta\n")
    }), 60_000)
})
