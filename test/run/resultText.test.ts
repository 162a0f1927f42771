/**
 * Library results print as text: a success's `text` is its text parts joined (after the output
 * pipeline), and `resultText` formats any result for logs.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { resultText, Scheduler } from "../../src/index.js"
import { testSession } from "../support/session.js"
import { bigTool } from "../support/tools.js"

describe("result text", () => {
  it.effect("`${result.text}` prints what the model reads; failures and truncated output too", () => {
    const s = testSession([bigTool("big_out", { withImage: true })], { builtins: true })
    fs.writeFileSync(path.join(s.root, "a.txt"), "alpha\nbeta")
    return Effect.gen(function*() {
      const scheduler = yield* Scheduler
      const batch = yield* scheduler.runBatch([
        { callId: "1", name: "read_file", args: { file_path: "a.txt" } },
        { callId: "2", name: "read_file", args: { file_path: "missing.txt" } },
        { callId: "3", name: "big_out", args: { size: 200 } }
      ])
      const [read, missing, big] = batch.results
      assert.strictEqual(read?._tag, "Success")
      assert.strictEqual(`${read?._tag === "Success" ? read.text : ""}`, "alpha\nbeta")
      assert.strictEqual(resultText(read!), "alpha\nbeta")
      assert.strictEqual(missing?._tag, "Failure")
      assert.match(resultText(missing!), /^read_file failed \[file_not_found\]: /)
      assert.strictEqual(big?._tag, "Success")
      if (big?._tag === "Success") {
        assert.include(big.text, "[image/png]")
        assert.strictEqual(big.text, big.llmContent.map((p) => (p.type === "text" ? p.text : `[${p.mimeType}]`)).join(""))
      }
    }).pipe(Effect.provide(s.layer))
  })
})
