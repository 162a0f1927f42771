/**
 * The floors of src/ (docs/architecture.md §3; the table is in scripts/floors.mjs): the real tree has
 * no upward, sideways or tool-room-to-tool-room import, no cycle and no deep import past a room's
 * `index.ts` without a reason; and the check itself catches each of those when one is planted.
 */
import { describe, expect, it } from "vitest"
import * as path from "node:path"
import { checkFloors, loadSourceTree, type SourceFile } from "../../scripts/floors.mjs"

/** A small, clean tree: each room has an index; imports go downward, through the index. */
const cleanTree = (): Array<SourceFile> => [
  { path: "tool/index.ts", source: `export { Kind } from "./kind.js"\n` },
  { path: "tool/kind.ts", source: `export const Kind = { read: "read" } as const\n` },
  { path: "session/index.ts", source: `export { Workspace } from "./workspace.js"\n` },
  { path: "session/workspace.ts", source: `import { Kind } from "../tool/index.js"\nexport const Workspace = Kind\n` },
  { path: "files/index.ts", source: `export { readFile } from "./readFile.js"\n` },
  { path: "files/readFile.ts", source: `import { Workspace } from "../session/index.js"\nexport const readFile = Workspace\n` },
  { path: "search/index.ts", source: `export { grep } from "./grep.js"\n` },
  { path: "search/grep.ts", source: `export const grep = 1\n` },
  {
    path: "run/catalog.ts",
    source: `export const load = () => import("../files/readFile.js")\nexport const grep = () => import("../search/grep.js")\n`
  }
]

const withFile = (tree: Array<SourceFile>, file: SourceFile): Array<SourceFile> => [...tree.filter((f) => f.path !== file.path), file]

describe("the floor check", () => {
  it("passes a clean tree, including lazy import()s that reach one module of a room", () => {
    expect(checkFloors(cleanTree())).toEqual([])
  })

  it("fails on a planted upward import, naming the file, the line, the rule and what to do", () => {
    const tree = withFile(cleanTree(), {
      path: "tool/kind.ts",
      source: `// a comment\nimport { Workspace } from "../session/index.js"\nexport const Kind = { read: Workspace } as const\n`
    })
    const violations = checkFloors(tree)
    const upward = violations.filter((v) => v.rule === "upward-import")
    expect(upward).toHaveLength(1)
    expect(upward[0]).toMatchObject({ file: "src/tool/kind.ts", line: 2 })
    expect(upward[0]!.message).toContain("src/tool/kind.ts:2: upward-import: tool/ imports session/")
    expect(upward[0]!.message).toContain("rooms depend downward only")
    expect(upward[0]!.message).toMatch(/Move what tool\/ needs down/)
    // the upward import also closes a loop tool → session → tool
    expect(violations.map((v) => v.rule)).toContain("room-cycle")
  })

  it("fails on an upward type-only import too, and on an upward lazy import()", () => {
    const typeOnly = withFile(cleanTree(), {
      path: "session/workspace.ts",
      source: `import { Kind } from "../tool/index.js"\nimport type { readFile } from "../files/index.js"\nexport const Workspace = Kind\n`
    })
    expect(checkFloors(typeOnly).filter((v) => v.rule === "upward-import").map((v) => v.line)).toEqual([2])
    const lazy = withFile(cleanTree(), {
      path: "session/workspace.ts",
      source: `import { Kind } from "../tool/index.js"\nexport const Workspace = Kind\nexport const later = () => import("../run/catalog.js")\n`
    })
    expect(checkFloors(lazy).filter((v) => v.rule === "upward-import").map((v) => v.line)).toEqual([3])
  })

  it("fails when a tool room imports another tool room", () => {
    const tree = withFile(cleanTree(), {
      path: "files/readFile.ts",
      source: `import { Workspace } from "../session/index.js"\nimport { grep } from "../search/index.js"\nexport const readFile = [Workspace, grep]\n`
    })
    const violations = checkFloors(tree)
    expect(violations).toHaveLength(1)
    expect(violations[0]).toMatchObject({ file: "src/files/readFile.ts", line: 2, rule: "tool-room-import" })
    expect(violations[0]!.message).toContain("A tool room never imports another tool room")
    expect(violations[0]!.message).toContain("move what both need down a floor")
  })

  it("fails on a cycle between rooms and on a cycle between files", () => {
    const roomCycle = withFile(cleanTree(), {
      path: "tool/kind.ts",
      source: `import { readFile } from "../files/index.js"\nexport const Kind = { read: readFile }\n`
    })
    const rooms = checkFloors(roomCycle).filter((v) => v.rule === "room-cycle")
    expect(rooms).toHaveLength(1)
    expect(rooms[0]!.message).toMatch(/room-cycle: (tool|session|files) → .* → (tool|session|files)/)
    expect(rooms[0]!.message).toContain("break the loop")

    const fileCycle = [
      ...cleanTree(),
      { path: "search/a.ts", source: `import { b } from "./b.js"\nexport const a = () => b\n` },
      { path: "search/b.ts", source: `import { c } from "./c.js"\nexport const b = () => c\n` },
      { path: "search/c.ts", source: `import { a } from "./a.js"\nexport const c = () => a\n` }
    ]
    const files = checkFloors(fileCycle)
    expect(files).toHaveLength(1)
    expect(files[0]).toMatchObject({ rule: "file-cycle", file: "src/search/a.ts" })
    expect(files[0]!.message).toContain("src/search/a.ts, src/search/b.ts, src/search/c.ts import each other")
    // a type-only import does not load anything: no cycle
    const typeOnly = [...fileCycle.slice(0, -1), { path: "search/c.ts", source: `import type { a } from "./a.js"\nexport const c = (x: typeof a) => x\n` }]
    expect(checkFloors(typeOnly)).toEqual([])
  })

  it("fails on a deep import past a room's index.ts unless the line gives a reason", () => {
    const deep = withFile(cleanTree(), {
      path: "files/readFile.ts",
      source: `import { Workspace } from "../session/workspace.js"\nexport const readFile = Workspace\n`
    })
    const violations = checkFloors(deep)
    expect(violations).toHaveLength(1)
    expect(violations[0]).toMatchObject({ file: "src/files/readFile.ts", line: 1, rule: "deep-import" })
    expect(violations[0]!.message).toContain(`reaches past src/session/index.ts. Import it from "../session/index.js"`)
    expect(violations[0]!.message).toContain("// floors: <why>")

    const excused = withFile(cleanTree(), {
      path: "files/readFile.ts",
      source: `import { Workspace } from "../session/workspace.js" // floors: start-up — the index loads every tool\nexport const readFile = Workspace\n`
    })
    expect(checkFloors(excused)).toEqual([])
    const excusedAbove = withFile(cleanTree(), {
      path: "files/readFile.ts",
      source: `// floors: start-up — the index loads every tool\nimport {\n  Workspace\n} from "../session/workspace.js"\nexport const readFile = Workspace\n`
    })
    expect(checkFloors(excusedAbove)).toEqual([])
    // a room without an index.ts has no surface yet: a deep import into it is not this rule's business
    const noIndex = withFile(cleanTree().filter((f) => f.path !== "session/index.ts"), {
      path: "files/readFile.ts",
      source: `import { Workspace } from "../session/workspace.js"\nexport const readFile = Workspace\n`
    })
    expect(checkFloors(noIndex)).toEqual([])
  })

  it("fails on a room missing from the floors table", () => {
    const violations = checkFloors([...cleanTree(), { path: "attic/junk.ts", source: `export const junk = 1\n` }])
    expect(violations).toHaveLength(1)
    expect(violations[0]!.rule).toBe("unknown-room")
    expect(violations[0]!.message).toContain("Add it to FLOORS in scripts/floors.mjs")
  })
})

describe("the floors of src/", () => {
  it("hold: no upward, sideways or tool-room import, no cycle, no deep import without a reason", () => {
    const violations = checkFloors(loadSourceTree(path.resolve(__dirname, "../../src")))
    // the messages say what to do; `node scripts/surfaces.mjs` fixes every deep-import
    expect(violations.map((v) => v.message)).toEqual([])
  })

  it("keep the serve door out of the shell room: background shells reach it through SessionEvents", () => {
    const serve = loadSourceTree(path.resolve(__dirname, "../../src")).filter((f) => f.path.startsWith("serve/"))
    expect(serve.length).toBeGreaterThan(0)
    expect(serve.filter((f) => /from "\.\.\/shell\//.test(f.source)).map((f) => f.path)).toEqual([])
  })
})
