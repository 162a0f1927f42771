#!/usr/bin/env node
// The floors of src/: which room may import which, checked by test/architecture/floors.test.ts (part
// of `npm test`) and runnable by hand: `node scripts/floors.mjs` prints every violation and exits 1.
//
// This file is the ONE place the floors table lives; docs/architecture.md §3 points here.
//
// Rules (each violation names the file, the line, the rule and what to do):
//   upward-import    a room imports a room on a higher floor
//   sideways-import  a room imports another room on the same floor (siblings share through a lower floor)
//   tool-room-import a tool room imports another tool room (what both need moves down a floor)
//   room-cycle       rooms that import each other, directly or around a loop
//   file-cycle       source files whose static value imports form a loop (load order then depends on
//                    which file is imported first)
//   deep-import      a static import of `../room/file.js` where the room has an `index.ts`: import
//                    from `../room/index.js` (`node scripts/surfaces.mjs` rewrites these)
//   unknown-room     a folder under src/ that is not in the floors table
//
// A deep import may stay when the importing statement carries an exception comment, on its own
// lines or on the line above: `// floors: <why>`, e.g. `// floors: start-up — the room's index loads
// its tools`. A dynamic `import()` is always allowed to reach a single module (that is what lazy
// loading is for: routing it through an index would load the whole room), but it still obeys the
// floors. Type-only imports (`import type`) obey the floors but are not part of file cycles (they
// are erased at build time).
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

/**
 * The floors, lowest first. A room may import rooms on lower floors only. `src/index.ts` (the
 * package entry) is not a room: it may import any room.
 */
export const FLOORS = [
  ["disk"], // the one disk adapter: imports no other room
  ["tool"],
  ["session"],
  ["text", "process"],
  ["write"], // the mutation path shared by edit, write_file, notebook_edit and sed
  ["output"],
  ["registry"],
  ["files", "shell", "search", "plan", "mcp", "web"],
  ["run"],
  ["serve"],
  ["cluster"], // sessions as effect/cluster entities on runners, and the front (loaded only by `toolwright runner`)
  ["cli"],
  ["testing"] // toolwright/testing: generators and the landing oracle for users' tests; imports no room, none imports it
]

/** The rooms that hold tools; none of them may import another. */
export const TOOL_ROOMS = new Set(["files", "shell", "search", "plan", "mcp", "web"])

/** room → floor number. */
export const FLOOR_OF = new Map(FLOORS.flatMap((rooms, floor) => rooms.map((room) => [room, floor])))

const describeFloors = () => FLOORS.map((rooms) => (rooms.length === 1 ? rooms[0] : `(${rooms.join(", ")})`)).join(" ← ")

const EXCEPTION = /\/\/\s*floors:\s*(\S.*)$/

/**
 * The imports of one source file: every `import … from`, `export … from`, side-effect `import "…"`
 * and dynamic `import("…")` with a string literal, with 1-based lines, the names bound and the
 * exception comment if any.
 * @param {string} fileName
 * @param {string} source
 */
export const parseImports = (fileName, source) => {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const lines = source.split("\n")
  const lineOf = (pos) => sf.getLineAndCharacterOfPosition(pos).line + 1
  const exceptionFor = (startLine, endLine) => {
    for (let l = startLine; l <= endLine; l++) {
      const m = EXCEPTION.exec(lines[l - 1] ?? "")
      if (m) return m[1].trim()
    }
    const above = lines[startLine - 2] ?? ""
    const m = /^\s*\/\/\s*floors:\s*(\S.*)$/.exec(above)
    return m ? m[1].trim() : undefined
  }
  /** @type {Array<ImportRecord>} */
  const out = []
  for (const statement of sf.statements) {
    const isImport = ts.isImportDeclaration(statement)
    const isExport = ts.isExportDeclaration(statement)
    if (!isImport && !isExport) continue
    const spec = statement.moduleSpecifier
    if (!spec || !ts.isStringLiteral(spec)) continue
    const line = lineOf(statement.getStart(sf))
    const endLine = lineOf(statement.getEnd())
    /** @type {Array<{ name: string, alias: string, typeOnly: boolean }>} */
    const names = []
    let namespace
    let hasDefault = false
    let typeOnly = false
    let starExport = false
    if (isImport) {
      const clause = statement.importClause
      typeOnly = clause?.isTypeOnly ?? false
      if (clause?.name) hasDefault = true
      const bindings = clause?.namedBindings
      if (bindings && ts.isNamespaceImport(bindings)) namespace = bindings.name.text
      if (bindings && ts.isNamedImports(bindings)) {
        for (const el of bindings.elements) {
          names.push({ name: (el.propertyName ?? el.name).text, alias: el.name.text, typeOnly: typeOnly || el.isTypeOnly })
        }
      }
    } else {
      typeOnly = statement.isTypeOnly
      const clause = statement.exportClause
      if (!clause) starExport = true
      else if (ts.isNamespaceExport(clause)) namespace = clause.name.text
      else {
        for (const el of clause.elements) {
          names.push({ name: (el.propertyName ?? el.name).text, alias: el.name.text, typeOnly: typeOnly || el.isTypeOnly })
        }
      }
    }
    out.push({
      specifier: spec.text,
      line,
      endLine,
      start: statement.getStart(sf),
      end: statement.getEnd(),
      kind: isImport ? (statement.importClause ? "import" : "side-effect") : "export",
      dynamic: false,
      typeOnly,
      names,
      namespace,
      hasDefault,
      starExport,
      exception: exceptionFor(line, endLine)
    })
  }
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0]
      if (arg && ts.isStringLiteralLike(arg)) {
        const line = lineOf(node.getStart(sf))
        out.push({
          specifier: arg.text, line, endLine: line, start: node.getStart(sf), end: node.getEnd(), kind: "dynamic", dynamic: true,
          typeOnly: false, names: [], namespace: undefined, hasDefault: false, starExport: false, exception: exceptionFor(line, line)
        })
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

/**
 * @typedef {{ specifier: string, line: number, endLine: number, start: number, end: number,
 *   kind: "import" | "export" | "side-effect" | "dynamic", dynamic: boolean, typeOnly: boolean,
 *   names: Array<{ name: string, alias: string, typeOnly: boolean }>, namespace: string | undefined,
 *   hasDefault: boolean, starExport: boolean, exception: string | undefined }} ImportRecord
 * @typedef {{ file: string, line: number, rule: string, message: string }} Violation
 */

/** The room of a path relative to src/ (`files/edit.ts` → `files`); undefined for `index.ts` at the top. */
export const roomOf = (rel) => {
  const parts = rel.split("/")
  return parts.length > 1 ? parts[0] : undefined
}

/** `.js` specifier → the `.ts` file it names, relative to src/ (undefined when outside src/ or not relative). */
export const resolveSpecifier = (fromRel, specifier) => {
  if (!specifier.startsWith(".")) return undefined
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier))
  if (joined.startsWith("..")) return undefined
  return joined.replace(/\.js$/, ".ts")
}

/**
 * Checks a set of source files (paths relative to src/, with their text) against the floors.
 * Pure: the test feeds it synthetic trees.
 * @param {ReadonlyArray<{ path: string, source: string }>} files
 * @returns {Array<Violation>}
 */
export const checkFloors = (files) => {
  /** @type {Array<Violation>} */
  const violations = []
  const known = new Set(files.map((f) => f.path))
  const roomsWithIndex = new Set(files.filter((f) => /^[^/]+\/index\.ts$/.test(f.path)).map((f) => f.path.split("/")[0]))
  /** room → room → first import seen (for cycle messages) */
  const roomEdges = new Map()
  /** file → files imported statically by value */
  const fileEdges = new Map()
  const where = (file, imp) => `src/${file}:${imp.line}`
  const reportedUnknown = new Set()

  for (const file of files) {
    const from = roomOf(file.path)
    if (from !== undefined && !FLOOR_OF.has(from) && !reportedUnknown.has(from)) {
      reportedUnknown.add(from)
      violations.push({
        file: `src/${file.path}`, line: 1, rule: "unknown-room",
        message: `src/${from}/ is not in the floors table. Add it to FLOORS in scripts/floors.mjs on the floor it belongs to (${describeFloors()}) and say so in docs/architecture.md §3.`
      })
    }
    for (const imp of parseImports(file.path, file.source)) {
      const target = resolveSpecifier(file.path, imp.specifier)
      if (target === undefined) continue
      const to = roomOf(target)
      if (!imp.dynamic && !imp.typeOnly && known.has(target)) {
        const set = fileEdges.get(file.path) ?? new Set()
        set.add(target)
        fileEdges.set(file.path, set)
      }
      if (from === undefined || to === undefined || from === to) continue
      if (!FLOOR_OF.has(from) || !FLOOR_OF.has(to)) continue
      const edges = roomEdges.get(from) ?? new Map()
      if (!edges.has(to)) edges.set(to, { file: file.path, imp })
      roomEdges.set(from, edges)
      const ff = FLOOR_OF.get(from)
      const ft = FLOOR_OF.get(to)
      const what = `${from}/ imports ${to}/ (${imp.specifier})`
      if (TOOL_ROOMS.has(from) && TOOL_ROOMS.has(to)) {
        violations.push({
          file: `src/${file.path}`, line: imp.line, rule: "tool-room-import",
          message: `${where(file.path, imp)}: tool-room-import: ${what}. A tool room never imports another tool room: move what both need down a floor (registry/ or lower) and import it from there.`
        })
      } else if (ft > ff) {
        violations.push({
          file: `src/${file.path}`, line: imp.line, rule: "upward-import",
          message: `${where(file.path, imp)}: upward-import: ${what}, but ${from}/ is on floor ${ff} and ${to}/ on floor ${ft}; rooms depend downward only (${describeFloors()}). Move what ${from}/ needs down to ${from}/ or lower, or let ${to}/ provide it through a service defined below.`
        })
      } else if (ft === ff) {
        violations.push({
          file: `src/${file.path}`, line: imp.line, rule: "sideways-import",
          message: `${where(file.path, imp)}: sideways-import: ${what}, two rooms on the same floor (${ff}). Move what both need to a lower floor.`
        })
      }
      if (!imp.dynamic && imp.exception === undefined && roomsWithIndex.has(to) && target !== `${to}/index.ts`) {
        violations.push({
          file: `src/${file.path}`, line: imp.line, rule: "deep-import",
          message: `${where(file.path, imp)}: deep-import: ${what} reaches past src/${to}/index.ts. Import it from "${imp.specifier.slice(0, imp.specifier.indexOf(`${to}/`))}${to}/index.js" (export it there if it is missing; \`node scripts/surfaces.mjs\` does both), or keep the deep import with a reason on the line: \`// floors: <why>\`.`
        })
      }
    }
  }

  // room cycles: strongly connected components of the room graph
  for (const component of stronglyConnected([...FLOOR_OF.keys()], (r) => [...(roomEdges.get(r)?.keys() ?? [])])) {
    if (component.length < 2) continue
    const loop = component.join(" → ") + " → " + component[0]
    const first = roomEdges.get(component[0])?.get(component[1]) ?? [...(roomEdges.get(component[0])?.values() ?? [])][0]
    violations.push({
      file: first ? `src/${first.file}` : `src/${component[0]}`, line: first?.imp.line ?? 1, rule: "room-cycle",
      message: `room-cycle: ${loop}${first ? ` (e.g. src/${first.file}:${first.imp.line})` : ""}. Rooms must not import each other: break the loop by moving the shared piece to the lowest of these rooms or below.`
    })
  }
  // file cycles: static value imports only
  for (const component of stronglyConnected([...known], (f) => [...(fileEdges.get(f) ?? [])])) {
    if (component.length < 2) continue
    const sorted = [...component].sort()
    violations.push({
      file: `src/${sorted[0]}`, line: 1, rule: "file-cycle",
      message: `file-cycle: ${sorted.map((f) => `src/${f}`).join(", ")} import each other (by value). Move what they share into a file both import, or make one of the imports \`import type\`.`
    })
  }
  return violations
}

/** Tarjan's algorithm; components come out in reverse topological order. */
const stronglyConnected = (nodes, next) => {
  let index = 0
  const indices = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const out = []
  const strong = (v) => {
    indices.set(v, index)
    low.set(v, index)
    index++
    stack.push(v)
    onStack.add(v)
    for (const w of next(v)) {
      if (!indices.has(w)) {
        strong(w)
        low.set(v, Math.min(low.get(v), low.get(w)))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)))
    }
    if (low.get(v) === indices.get(v)) {
      const component = []
      let w
      do {
        w = stack.pop()
        onStack.delete(w)
        component.push(w)
      } while (w !== v)
      out.push(component.reverse())
    }
  }
  for (const v of nodes) if (!indices.has(v)) strong(v)
  return out
}

/** Every `.ts` file under a src/ directory, as `{ path, source }` with paths relative to it. */
export const loadSourceTree = (srcDir) => {
  const walk = (dir) =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
      const full = path.join(dir, e.name)
      if (e.isDirectory()) return walk(full)
      return e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [full] : []
    })
  return walk(srcDir)
    .sort()
    .map((full) => ({ path: path.relative(srcDir, full).split(path.sep).join("/"), source: fs.readFileSync(full, "utf8") }))
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const violations = checkFloors(loadSourceTree(path.join(repoRoot, "src")))
  for (const v of violations) console.log(v.message)
  const byRule = new Map()
  for (const v of violations) byRule.set(v.rule, (byRule.get(v.rule) ?? 0) + 1)
  console.log(violations.length === 0 ? "floors: ok" : `floors: ${violations.length} violation(s): ${[...byRule].map(([r, n]) => `${r} ${n}`).join(", ")}`)
  process.exit(violations.length === 0 ? 0 : 1)
}
