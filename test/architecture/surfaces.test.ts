/**
 * The surfaces codemod (scripts/surfaces.mjs) on synthetic trees: deep imports become imports of the
 * room's index.ts, which gains the exports (and is created when missing); lazy `import()`s and
 * imports with a `// floors:` reason stay; a name clash is reported, not papered over; a second run
 * changes nothing; and the result passes the floor check.
 */
import { describe, expect, it } from "vitest"
import { checkFloors, type SourceFile } from "../../scripts/floors.mjs"
import { planSurfaces } from "../../scripts/surfaces.mjs"

const apply = (tree: ReadonlyArray<SourceFile>, changed: Map<string, string>): Array<SourceFile> => {
  const out = new Map(tree.map((f) => [f.path, f.source]))
  for (const [p, t] of changed) out.set(p, t)
  return [...out].map(([path, source]) => ({ path, source }))
}

const tree: ReadonlyArray<SourceFile> = [
  { path: "tool/index.ts", source: `/** the tool room */\nexport { Kind } from "./kind.js"\n` },
  { path: "tool/kind.ts", source: `export const Kind = 1\nexport interface KindInfo { readonly k: number }\n` },
  { path: "tool/errors.ts", source: `export class Oops {}\nexport type OopsCode = "oops"\n` },
  { path: "session/workspace.ts", source: `export const Workspace = 1\nexport const roots = 2\n` },
  { path: "session/paths.ts", source: `export const displayPath = 3\n` },
  {
    path: "files/readFile.ts",
    source: [
      `import * as path from "node:path"`,
      `import { Kind } from "../tool/index.js"`,
      `import { Oops, type OopsCode } from "../tool/errors.js"`,
      `import type { KindInfo } from "../tool/kind.js"`,
      `import { roots, Workspace } from "../session/workspace.js"`,
      `import { displayPath } from "../session/paths.js" // floors: start-up — measured`,
      `export const readFile = [path, Kind, Oops, roots, Workspace, displayPath] as const`,
      `export type Codes = OopsCode | KindInfo`,
      `export const later = () => import("../session/paths.js")`,
      ``
    ].join("\n")
  }
]

describe("scripts/surfaces.mjs", () => {
  it("routes deep imports through the room's index.ts, adding the exports and creating a missing index", () => {
    const { changed, clashes } = planSurfaces(tree)
    expect(clashes).toEqual([])
    expect(changed.get("tool/index.ts")).toBe(
      `/** the tool room */\nexport { Oops, type OopsCode } from "./errors.js"\nexport { Kind, type KindInfo } from "./kind.js"\n`
    )
    expect(changed.get("session/index.ts")).toContain(`export { roots, Workspace } from "./workspace.js"\n`)
    expect(changed.get("session/index.ts")).not.toContain("paths.js")
    expect(changed.get("files/readFile.ts")).toBe(
      [
        `import * as path from "node:path"`,
        `import { Kind, type KindInfo, Oops, type OopsCode } from "../tool/index.js"`,
        `import { roots, Workspace } from "../session/index.js"`,
        `import { displayPath } from "../session/paths.js" // floors: start-up — measured`,
        `export const readFile = [path, Kind, Oops, roots, Workspace, displayPath] as const`,
        `export type Codes = OopsCode | KindInfo`,
        `export const later = () => import("../session/paths.js")`,
        ``
      ].join("\n")
    )
    const after = apply(tree, changed)
    expect(checkFloors(after)).toEqual([])
    // idempotent
    expect(planSurfaces(after).changed.size).toBe(0)
  })

  it("reports a name the index already exports from another file, and leaves that import deep", () => {
    const clashing = [
      ...tree,
      { path: "tool/other.ts", source: `export const Kind = "other"\n` },
      { path: "plan/todo.ts", source: `import { Kind } from "../tool/other.js"\nexport const todo = Kind\n` }
    ]
    const { changed, clashes } = planSurfaces(clashing)
    expect(clashes).toHaveLength(1)
    expect(clashes[0]).toContain("src/plan/todo.ts:1: Kind from ../tool/other.js: src/tool/index.ts already exports a different Kind (from src/tool/kind.ts)")
    expect(changed.has("plan/todo.ts")).toBe(false)
    expect(checkFloors(apply(clashing, changed)).map((v) => v.rule)).toEqual(["deep-import"])
  })

  it("turns a namespace import into a namespace export of the index", () => {
    const ns = [
      { path: "run/sessionLayer.ts", source: `export const layer = 1\n` },
      { path: "serve/server.ts", source: `import * as SessionLayer from "../run/sessionLayer.js"\nexport const s = SessionLayer.layer\n` }
    ]
    const { changed } = planSurfaces(ns)
    expect(changed.get("run/index.ts")).toContain(`export * as SessionLayer from "./sessionLayer.js"\n`)
    expect(changed.get("serve/server.ts")).toBe(`import { SessionLayer } from "../run/index.js"\nexport const s = SessionLayer.layer\n`)
    expect(planSurfaces(apply(ns, changed)).changed.size).toBe(0)
  })
})
