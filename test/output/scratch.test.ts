// Scratch files (shell spills, background logs) share the session's output cap with saved outputs,
// and the store removes them, but not the saved outputs, when its scope closes.
import * as nodeFs from "node:fs"
import * as nodePath from "node:path"
import { NodeServices } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { OutputStore } from "../../src/output/store.js"
import { OutputCapture } from "../../src/shell/terminal/capture.js"
import { tempDir } from "../support/serve.js"

const storeIn = (dir: string, maxSessionBytes: number) =>
  OutputStore.layer({ dir, maxSessionBytes }).pipe(Layer.provide(NodeServices.layer))

describe("OutputStore scratch space", () => {
  it.live("claims share the session cap with saves, to the byte; scratch goes with the scope, saved outputs stay", () =>
    Effect.gen(function*() {
      const base = yield* tempDir()
      const dir = nodePath.join(base, "session")
      const saved = yield* Effect.gen(function*() {
        const store = yield* OutputStore
        const record = yield* store.persist("tool", "s".repeat(100))
        assert.strictEqual(store.scratch.claim(850), 850)
        assert.strictEqual(store.scratch.claim(100), 50) // 100 + 850 + 50 = the cap
        assert.strictEqual(store.scratch.claim(1), 0)
        const refused = yield* Effect.flip(store.persist("tool", "t"))
        assert.strictEqual(refused._tag, "SessionBudgetExhausted")
        store.scratch.release(10)
        assert.strictEqual((yield* store.usage).usedBytes, 990)
        nodeFs.writeFileSync(nodePath.join(store.scratch.dir, "run_shell_command_0000000000000000.output"), "spill")
        nodeFs.mkdirSync(nodePath.join(store.scratch.dir, "background-shells"))
        nodeFs.writeFileSync(nodePath.join(store.scratch.dir, "background-shells", "b1.log"), "log")
        return record
      }).pipe(Effect.provide(storeIn(dir, 1000)))
      assert.deepStrictEqual(nodeFs.readdirSync(dir), [nodePath.basename(saved.path)])
    }))

  it.live("a directory with no saved output is removed whole", () =>
    Effect.gen(function*() {
      const base = yield* tempDir()
      const dir = nodePath.join(base, "session")
      yield* Effect.gen(function*() {
        const store = yield* OutputStore
        nodeFs.mkdirSync(store.scratch.dir, { recursive: true })
        nodeFs.writeFileSync(nodePath.join(store.scratch.dir, "spill.output"), "spill")
      }).pipe(Effect.provide(storeIn(dir, 1000)))
      assert.isFalse(nodeFs.existsSync(dir))
    }))

  it.live("a capture spills only what the budget grants, and counts the rest as discarded", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      let used = 0
      const budget = {
        claim: (bytes: number) => {
          const granted = Math.min(bytes, 3002 - used)
          used += granted
          return granted
        },
        release: (bytes: number) => {
          used -= bytes
        }
      }
      const capture = new OutputCapture(
        { memoryChars: 1000, maxCapturedBytes: 1_000_000, headChars: 100, tailChars: 100 },
        () => nodePath.join(dir, "spill.output"),
        { budget }
      )
      // "é" is two bytes: the cut falls inside a character and moves back to its start.
      for (let i = 0; i < 10; i++) capture.push(Buffer.from("aé".repeat(250), "utf8"))
      const out = capture.finish()
      assert.strictEqual(out.kind, "text")
      const spill = out.kind === "text" ? out.spill! : undefined
      assert.strictEqual(spill!.bytes, 3001)
      assert.strictEqual(spill!.discardedBytes, 7500 - 3001)
      assert.strictEqual(used, 3001)
      assert.strictEqual(nodeFs.statSync(nodePath.join(dir, "spill.output")).size, 3001)
    }))
})
