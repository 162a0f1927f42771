/**
 * The bundled CLI (dist/bundle, `npm run build` first) recognises every tool error by its wire code.
 * esbuild renames classes whose names clash across modules (`Unknown` becomes `Unknown3`), so a guard
 * keyed by class name misses them there and the error reaches the model as `unhandled_exception`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { TOOL_ERROR_CLASSES } from "../../src/tool/errors.js"

const bundleDir = path.resolve(import.meta.dirname, "../../dist/bundle")

/** The bundle chunk that defines the tool errors (chunk names carry content hashes). */
const errorsChunk = (): string => {
  const chunks = fs.readdirSync(bundleDir).filter((name) => name.endsWith(".js"))
  const found = chunks.find((name) => fs.readFileSync(path.join(bundleDir, name), "utf8").includes("var TOOL_ERROR_CLASSES = ["))
  if (found === undefined) throw new Error(`no chunk of ${bundleDir} defines TOOL_ERROR_CLASSES; run npm run build`)
  return path.join(bundleDir, found)
}

describe("tool errors in the bundled CLI", () => {
  it("the bundle's isToolError recognises every code, renamed classes included", async () => {
    const file = errorsChunk()
    const chunk = (await import(pathToFileURL(file).href)) as { readonly isToolError?: (u: unknown) => boolean }
    assert.isFunction(chunk.isToolError, "the chunk no longer exports isToolError")
    for (const cls of TOOL_ERROR_CLASSES) {
      const error = new cls({ message: "x" })
      assert.isTrue(chunk.isToolError!(error), `the bundle does not recognise ${error._tag} (${error.code})`)
    }
  })
})
