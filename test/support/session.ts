/**
 * Builds a real session (temp workspace and state dir) for scheduler and tool tests.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Layer } from "effect"
import type { ToolFactory } from "../../src/registry/registry.js"
import { Approver } from "../../src/run/approver.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import type { AnyTool } from "../../src/tool/tool.js"

/** Factories that hand out ready tools. */
export const factoriesOf = (tools: ReadonlyArray<AnyTool>): ReadonlyArray<ToolFactory> =>
  tools.map((tool) => ({ name: tool.name, load: Effect.succeed(tool) }))

/** A fresh temp dir (not removed: vitest's tmp is cleaned by the OS; tests that create much use tempDir()). */
export const makeTempDir = (prefix = "tw-") => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)))

/** A session layer over a new temp root, with the given tools and approver. */
export const testSession = (
  tools: ReadonlyArray<AnyTool>,
  options: Partial<SessionLayer.SessionOptions> & { readonly approver?: Layer.Layer<Approver>; readonly root?: string } = {}
) => {
  const root = options.root ?? makeTempDir("tw-root-")
  const stateDir = options.stateDir ?? makeTempDir("tw-state-")
  const { approver, ...rest } = options
  return {
    root,
    stateDir,
    layer: SessionLayer.layer({ builtins: false, ...rest, roots: [root], stateDir, tools: factoriesOf(tools) }).pipe(
      Layer.provide(approver ?? Approver.layerFixed({ _tag: "proceed_once" }))
    )
  }
}
