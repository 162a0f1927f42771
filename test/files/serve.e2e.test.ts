/**
 * The file tools through `toolwright serve` (the built CLI) and the MCP SDK client: what an MCP
 * host really sees. Run `npm run build` first.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

type Content = Array<{ type: string; text?: string; data?: string; mimeType?: string }>

describe("file tools over toolwright serve", () => {
  it.live("read_file, then an edit whose old_string has curly quotes and no trailing spaces lands on the right bytes", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const file = path.join(root, "greet.ts")
      fs.writeFileSync(file, "// header\r\nfunction hi() {   \r\n  return \"hi\";  \r\n}\r\nexport { hi }\r\n")
      const client = yield* connectServe(["--root", root, "--state-dir", state])

      const names = (yield* Effect.promise(() => client.listTools())).tools.map((t) => t.name)
      for (const name of ["read_file", "edit", "write_file", "notebook_edit"]) assert.include(names, name)

      const read = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "greet.ts" } }))
      assert.isUndefined(read.isError)
      const shown = (read.content as Content)[0]!.text!
      assert.strictEqual(shown, "// header\nfunction hi() {\n  return \"hi\";\n}\nexport { hi }")

      // What a model typically sends back: curly quotes, trailing spaces gone, LF line breaks.
      const edit = yield* Effect.promise(() =>
        client.callTool({
          name: "edit",
          arguments: {
            file_path: file,
            old_string: "function hi() {\n  return \u201chi\u201d;\n}",
            new_string: "function hi() {\n  return \"hello\";\n}"
          }
        })
      )
      assert.isUndefined(edit.isError, JSON.stringify(edit.content))
      const text = (edit.content as Content)[0]!.text!
      assert.include(text, `The file: ${file} has been updated.`)
      assert.include(text, "(rung: normalized_trim_end_lines)")
      assert.strictEqual(
        fs.readFileSync(file, "utf8"),
        "// header\r\nfunction hi() {\r\n  return \"hello\";\r\n}\r\nexport { hi }\r\n",
        "the matched lines are replaced, CRLF kept, everything else byte-identical"
      )

      const miss = yield* Effect.promise(() =>
        client.callTool({ name: "edit", arguments: { file_path: file, old_string: "return \"hullo\";", new_string: "x" } })
      )
      assert.isTrue(miss.isError)
      assert.strictEqual(miss._meta?.["toolwright/errorType"], "edit_no_occurrence_found")
      assert.include((miss.content as Content)[0]!.text!, "The closest text in the file is at line 3")
    }), 60_000)

  it.live("write_file needs a prior read; images come back as image content", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      fs.writeFileSync(path.join(root, "keep.txt"), "precious\n")
      const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")
      fs.writeFileSync(path.join(root, "dot.png"), png)
      const client = yield* connectServe(["--root", root, "--state-dir", state])
      const blind = yield* Effect.promise(() => client.callTool({ name: "write_file", arguments: { file_path: "keep.txt", content: "gone" } }))
      assert.isTrue(blind.isError)
      assert.strictEqual(blind._meta?.["toolwright/errorType"], "edit_requires_prior_read")
      assert.strictEqual(fs.readFileSync(path.join(root, "keep.txt"), "utf8"), "precious\n")
      const image = yield* Effect.promise(() => client.callTool({ name: "read_file", arguments: { file_path: "dot.png" } }))
      const part = (image.content as Content).find((c) => c.type === "image")
      assert.deepStrictEqual(part, { type: "image", data: png.toString("base64"), mimeType: "image/png" })
    }), 60_000)
})
