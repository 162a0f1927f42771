/**
 * No escape through links (issue 15, hole 3): with `rootlink -> /` inside the root, glob,
 * grep_search and list_directory list nothing outside the root, whatever the pattern, through
 * `toolwright serve`. A link to a directory inside the root, named in the pattern's static part,
 * is still followed (as before). Run `npm run build` first.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { errorTypeOf, serveWithEnv, textOf } from "../robustness/searchServe.support.js"
import { tempDir } from "../support/serve.js"

describe("search tools and links that leave the root", () => {
  it.live("glob, grep_search and list_directory do not list through rootlink -> /", () =>
    Effect.gen(function*() {
      const root = yield* tempDir("tw-link-root-")
      const state = yield* tempDir("tw-link-state-")
      // the outside: a directory with a secret, reached through a link to / from inside the root
      const outside = yield* tempDir("tw-link-outside-")
      fs.mkdirSync(path.join(outside, "home", "alice", ".ssh"), { recursive: true })
      fs.writeFileSync(path.join(outside, "home", "alice", ".ssh", "id_rsa"), "SECRET-KEY-MATERIAL\n")
      fs.writeFileSync(path.join(outside, "notes.txt"), "SECRET-KEY-MATERIAL\n")
      fs.symlinkSync("/", path.join(root, "rootlink"))
      fs.symlinkSync(outside, path.join(root, "outlink"))
      fs.symlinkSync(path.join(outside, "notes.txt"), path.join(root, "notes-link.txt"))
      // inside: a real file, and a link to a directory inside the root
      fs.mkdirSync(path.join(root, "src", "deep"), { recursive: true })
      fs.writeFileSync(path.join(root, "src", "deep", "inside.ts"), "SECRET-KEY-MATERIAL is not here\n")
      fs.symlinkSync(path.join(root, "src"), path.join(root, "srclink"))
      const rel = outside.slice(1) // the outside dir as a path below /
      const client = yield* serveWithEnv(root, state)
      const call = (name: string, args: Record<string, unknown>) => Effect.promise(() => client.callTool({ name, arguments: args }))

      const patterns = [
        `rootlink/${rel}/**/*`,
        `rootlink/${rel}/home/alice/.ssh/id_rsa`,
        `rootlink/${rel}/*`,
        `rootlink/${rel}/**`,
        "rootlink/*",
        "rootlink/**/id_rsa",
        "outlink/**/*",
        "outlink/home/*/.ssh/*",
        "*/home/**/*",
        "**/id_rsa",
        "**/notes*"
      ]
      for (const pattern of patterns) {
        const result = yield* call("glob", { pattern })
        const text = textOf(result)
        const listed = text.split("\n---\n")[1] ?? "" // the header repeats the pattern
        assert.notMatch(listed, /id_rsa|home\/alice|outside|notes/, `${pattern}: ${text}`)
        if (errorTypeOf(result) === undefined) assert.match(text, /^No files found/, `${pattern}: ${text}`)
      }
      // the same directory as path is refused (as it was)
      const asPath = yield* call("glob", { pattern: "**/*", path: `rootlink/${rel}` })
      assert.strictEqual(errorTypeOf(asPath), "path_not_in_workspace")

      // a link to a directory inside the root, in the pattern's static part: followed, as before
      const insideLink = yield* call("glob", { pattern: "srclink/**/*.ts" })
      assert.include(textOf(insideLink), path.join(root, "srclink", "deep", "inside.ts"))

      // grep over the whole root: the secret is neither behind rootlink/outlink nor in the file link
      const grep = yield* call("grep_search", { pattern: "SECRET-KEY-MATERIAL" })
      assert.isUndefined(errorTypeOf(grep), textOf(grep))
      assert.match(textOf(grep), /^Found 1 match/, textOf(grep))
      assert.include(textOf(grep), "src/deep/inside.ts:1:")
      for (const glob of [`rootlink/${rel}/**`, "outlink/**", "**/id_rsa"]) {
        const filtered = yield* call("grep_search", { pattern: "SECRET", glob })
        assert.match(textOf(filtered), /^No matches found/, `${glob}: ${textOf(filtered)}`)
      }
      for (const target of [`rootlink/${rel}/home/alice/.ssh`, "outlink", "notes-link.txt"]) {
        const direct = yield* call("grep_search", { pattern: "SECRET", path: target })
        assert.strictEqual(errorTypeOf(direct), "path_not_in_workspace", `${target}: ${textOf(direct)}`)
      }

      // list_directory: the links are names in the root; their targets are not listed
      const list = yield* call("list_directory", { path: "." })
      assert.notInclude(textOf(list), "alice")
      for (const target of ["rootlink", `rootlink/${rel}/home`, "outlink"]) {
        const listed = yield* call("list_directory", { path: target })
        assert.strictEqual(errorTypeOf(listed), "path_not_in_workspace", `${target}: ${textOf(listed)}`)
      }
    }), 60_000)
})
