#!/usr/bin/env node
// `node scripts/surfaces.mjs [--check]`: makes every room's index.ts its real surface.
//
// For every static cross-room import that reaches past a room's index.ts (`../room/file.js`), it
// makes sure the room's index.ts exports the imported names (`export { X } from "./file.js"`, types
// as `type X`, one statement per file, names sorted; a namespace import becomes `export * as Name`),
// then rewrites the import to `../room/index.js`, merged with any import of that index already in the
// file. It creates index.ts for rooms that have none. Idempotent: a second run changes nothing.
//
// Left alone: dynamic `import()` (lazy loading must reach one module, not the whole room), imports
// whose statement carries `// floors: <why>` (see scripts/floors.mjs), side-effect and default
// imports, and src/index.ts (the package entry). A name the index already exports from another file
// is a clash: reported, and that import stays deep (the floor check then fails until a person
// decides which name to use).
//
// --check: change nothing, exit 1 if anything would change.
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { FLOOR_OF, loadSourceTree, parseImports, repoRoot, resolveSpecifier, roomOf } from "./floors.mjs"

const MAX_LINE = 120

const byName = (a, b) => a.localeCompare(b, "en", { sensitivity: "base" }) || (a < b ? -1 : a > b ? 1 : 0)

/** `{ a, type B }` rendered as one statement, wrapped past MAX_LINE. */
export const renderNamed = (keyword, names, specifier) => {
  const sorted = [...names].sort((a, b) => byName(a.alias ?? a.name, b.alias ?? b.name))
  const allTypes = sorted.every((n) => n.typeOnly)
  const item = (n) => `${!allTypes && n.typeOnly ? "type " : ""}${n.name}${n.alias && n.alias !== n.name ? ` as ${n.alias}` : ""}`
  const head = `${keyword}${allTypes ? " type" : ""}`
  const oneLine = `${head} { ${sorted.map(item).join(", ")} } from "${specifier}"`
  if (oneLine.length <= MAX_LINE) return oneLine
  return `${head} {\n${sorted.map((n) => `  ${item(n)}`).join(",\n")}\n} from "${specifier}"`
}

/**
 * Every name a module exports, each traced to where it is declared: name → { file, name, typeOnly }.
 * Follows `export … from` and `export *`; files are paths relative to src/.
 */
const makeExportsResolver = (sources) => {
  const cache = new Map()
  const resolve = (file, seen = new Set()) => {
    if (cache.has(file)) return cache.get(file)
    /** @type {Map<string, { file: string, name: string, typeOnly: boolean }>} */
    const out = new Map()
    const source = sources.get(file)
    if (source === undefined || seen.has(file)) return out
    seen.add(file)
    const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
    const local = (name, typeOnly) => out.set(name, { file, name, typeOnly })
    const exported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export
    for (const st of sf.statements) {
      if (ts.isExportDeclaration(st)) {
        const spec = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? st.moduleSpecifier.text : undefined
        const target = spec ? resolveSpecifier(file, spec) : undefined
        if (!st.exportClause) {
          if (target) for (const [name, origin] of resolve(target, seen)) if (!out.has(name) && name !== "default") out.set(name, { ...origin, typeOnly: origin.typeOnly || st.isTypeOnly })
        } else if (ts.isNamespaceExport(st.exportClause)) {
          out.set(st.exportClause.name.text, { file: target ?? file, name: "*", typeOnly: st.isTypeOnly })
        } else {
          for (const el of st.exportClause.elements) {
            const from = (el.propertyName ?? el.name).text
            const typeOnly = st.isTypeOnly || el.isTypeOnly
            if (target) {
              const origin = resolve(target, seen).get(from)
              out.set(el.name.text, origin ? { ...origin, typeOnly: origin.typeOnly || typeOnly } : { file: target, name: from, typeOnly })
            } else local(el.name.text, typeOnly)
          }
        }
      } else if ((ts.isVariableStatement(st)) && exported(st)) {
        for (const d of st.declarationList.declarations) if (ts.isIdentifier(d.name)) local(d.name.text, false)
      } else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name && exported(st)) {
        local(st.name.text, false)
      } else if ((ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) && exported(st)) {
        // a type and a value may share a name (`export type X = …` beside `export const X`): the value wins
        if (!out.has(st.name.text)) local(st.name.text, true)
      } else if (ts.isModuleDeclaration(st) && exported(st) && ts.isIdentifier(st.name)) {
        const declared = (ts.getCombinedModifierFlags(st) & ts.ModifierFlags.Ambient) !== 0
        if (!out.has(st.name.text)) local(st.name.text, declared)
      }
    }
    cache.set(file, out)
    return out
  }
  return resolve
}

const relFrom = (fromDir, toFile) => {
  let rel = path.posix.relative(fromDir, toFile).replace(/\.ts$/, ".js")
  if (!rel.startsWith(".")) rel = `./${rel}`
  return rel
}

/**
 * Plans the rewrite of a source tree ({ path, source } relative to src/): new texts of the files that
 * change, and the clashes found. Pure.
 */
export const planSurfaces = (files) => {
  const sources = new Map(files.map((f) => [f.path, f.source]))
  const exportsOf = makeExportsResolver(sources)
  const clashes = []
  const skipped = []
  /** room → Map<specifier, Map<exportedName, { name, alias?, typeOnly, namespace? }>> */
  const additions = new Map()
  /** file → Array<{ imp, room, names }> */
  const rewrites = new Map()

  const addExport = (room, fromFile, exportedName, originName, typeOnly) => {
    const spec = relFrom(room, fromFile)
    const bySpec = additions.get(room) ?? new Map()
    additions.set(room, bySpec)
    const names = bySpec.get(spec) ?? new Map()
    bySpec.set(spec, names)
    const prev = names.get(exportedName)
    names.set(exportedName, {
      name: originName,
      alias: exportedName,
      typeOnly: prev ? prev.typeOnly && typeOnly : typeOnly,
      namespace: originName === "*"
    })
  }
  /** name → origin claimed by additions so far, per room (to catch two files wanting one name) */
  const claimed = new Map()

  for (const file of files) {
    const from = roomOf(file.path)
    if (from === undefined || !FLOOR_OF.has(from)) continue
    for (const imp of parseImports(file.path, file.source)) {
      const target = resolveSpecifier(file.path, imp.specifier)
      if (target === undefined || imp.dynamic || imp.exception !== undefined) continue
      const to = roomOf(target)
      if (to === undefined || to === from || !FLOOR_OF.has(to) || target === `${to}/index.ts`) continue
      if (imp.kind === "side-effect" || imp.hasDefault || imp.starExport) {
        skipped.push(`src/${file.path}:${imp.line}: ${imp.kind === "side-effect" ? "side-effect" : imp.hasDefault ? "default" : "export *"} import of ${imp.specifier} left as it is`)
        continue
      }
      const index = `${to}/index.ts`
      const surface = exportsOf(index)
      const roomClaims = claimed.get(to) ?? new Map()
      claimed.set(to, roomClaims)
      const targetExports = exportsOf(target)
      /** the names as they will be imported from the index */
      const routed = []
      let clash = false
      const wanted = imp.namespace !== undefined
        ? [{ exported: imp.namespace, origin: { file: target, name: "*", typeOnly: imp.typeOnly }, alias: imp.namespace, typeOnly: imp.typeOnly }]
        : imp.names.map((n) => {
          const origin = targetExports.get(n.name) ?? { file: target, name: n.name, typeOnly: n.typeOnly }
          return { exported: n.name, origin, alias: n.alias, typeOnly: n.typeOnly }
        })
      for (const w of wanted) {
        // what the index exports under this name now, or what this run already added under it
        const existing = surface.get(w.exported) ?? roomClaims.get(w.exported)
        const same = existing && existing.file === w.origin.file && existing.name === w.origin.name
        if (existing && !same) {
          // a namespace export of the same module under another name: import it by that name
          const other = w.origin.name === "*" && [...surface].find(([, o]) => o.file === w.origin.file && o.name === "*")
          if (other) {
            routed.push({ name: other[0], alias: w.alias, typeOnly: w.typeOnly })
            continue
          }
          clashes.push(`src/${file.path}:${imp.line}: ${w.exported} from ${imp.specifier}: src/${index} already exports a different ${w.exported} (from src/${existing.file}); import stays deep`)
          clash = true
          continue
        }
        if (!existing) {
          // a declared type (interface, type alias) is exported as a type whatever the importer wrote
          const typeOnly = w.typeOnly || (w.origin.name !== "*" && w.origin.typeOnly)
          roomClaims.set(w.exported, { file: w.origin.file, name: w.origin.name, typeOnly })
          addExport(to, target, w.exported, w.origin.name === "*" ? "*" : w.exported, typeOnly)
        } else if (surface.get(w.exported) === undefined && !w.typeOnly) {
          // claimed earlier in this run as a type; this importer needs the value
          addExport(to, target, w.exported, w.origin.name === "*" ? "*" : w.exported, w.origin.name !== "*" && w.origin.typeOnly)
        }
        routed.push({ name: w.exported, alias: w.alias, typeOnly: w.typeOnly })
      }
      if (clash) continue
      const list = rewrites.get(file.path) ?? []
      list.push({ imp, room: to, names: routed })
      rewrites.set(file.path, list)
    }
  }

  /** @type {Map<string, string>} */
  const changed = new Map()
  // 1. the indexes
  for (const [room, bySpec] of additions) {
    const indexPath = `${room}/index.ts`
    let text = sources.get(indexPath)
    if (text === undefined) {
      text = `/**\n * The ${room} room's surface: what other rooms import from it (kept by \`node scripts/surfaces.mjs\`).\n *\n * @since 0.1.0\n */\n`
    }
    const sf = ts.createSourceFile(indexPath, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
    const edits = [] // { start, end, text }
    const exportDecls = sf.statements.filter((st) => ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier))
    for (const [spec, names] of [...bySpec].sort(([a], [b]) => byName(a, b))) {
      const namespaces = [...names.values()].filter((n) => n.namespace)
      const named = [...names.values()].filter((n) => !n.namespace)
      for (const ns of namespaces) {
        insertSorted(edits, exportDecls, text, spec, `export * as ${ns.alias} from "${spec}"`)
      }
      if (named.length === 0) continue
      // merge into an existing `export { … } from "<spec>"`
      const existing = exportDecls.find((st) => st.moduleSpecifier.text === spec && st.exportClause && ts.isNamedExports(st.exportClause))
      if (existing) {
        const current = existing.exportClause.elements.map((el) => ({
          name: (el.propertyName ?? el.name).text,
          alias: el.name.text,
          typeOnly: existing.isTypeOnly || el.isTypeOnly
        }))
        for (const n of named) {
          const same = current.find((c) => c.alias === n.alias)
          if (same) same.typeOnly = same.typeOnly && n.typeOnly
          else current.push({ name: n.name, alias: n.alias, typeOnly: n.typeOnly })
        }
        edits.push({ start: existing.getStart(sf), end: existing.getEnd(), text: renderNamed("export", current, spec) })
      } else {
        insertSorted(edits, exportDecls, text, spec, renderNamed("export", named.map((n) => ({ name: n.name, alias: n.alias, typeOnly: n.typeOnly })), spec))
      }
    }
    changed.set(indexPath, applyEdits(text, edits))
  }
  // 2. the importers
  for (const [filePath, list] of rewrites) {
    const text = sources.get(filePath)
    const edits = []
    const byRoom = new Map()
    for (const r of list) {
      const group = byRoom.get(r.room) ?? []
      group.push(r)
      byRoom.set(r.room, group)
    }
    const fileImports = parseImports(filePath, text)
    for (const [room, group] of byRoom) {
      const first = group[0].imp
      const indexSpec = first.specifier.slice(0, first.specifier.indexOf(`${room}/`)) + `${room}/index.js`
      const exportsGroup = group.filter((r) => r.imp.kind === "export")
      const importsGroup = group.filter((r) => r.imp.kind === "import")
      for (const r of exportsGroup) {
        edits.push({ start: r.imp.start, end: r.imp.end, text: renderNamed("export", r.names.map((n) => ({ name: n.name, alias: n.alias, typeOnly: n.typeOnly })), indexSpec) })
      }
      if (importsGroup.length === 0) continue
      // an import of the index already there joins the group
      const already = fileImports.find((i) => i.kind === "import" && i.specifier === indexSpec && !i.namespace && !i.hasDefault && i.exception === undefined)
      const merged = new Map()
      const add = (n) => {
        const key = `${n.name} as ${n.alias}`
        const prev = merged.get(key)
        merged.set(key, { name: n.name, alias: n.alias, typeOnly: prev ? prev.typeOnly && n.typeOnly : n.typeOnly })
      }
      if (already) for (const n of already.names) add(n)
      for (const r of importsGroup) for (const n of r.names) add(n)
      const statement = renderNamed("import", [...merged.values()], indexSpec)
      const anchor = already ?? importsGroup[0].imp
      edits.push({ start: anchor.start, end: anchor.end, text: statement })
      for (const r of importsGroup) {
        if (r.imp === anchor) continue
        // drop the statement and the line break before it
        const start = text.lastIndexOf("\n", r.imp.start - 1)
        edits.push({ start: start < 0 ? r.imp.start : start, end: r.imp.end, text: "" })
      }
    }
    changed.set(filePath, applyEdits(text, edits))
  }
  for (const [p, t] of changed) if (sources.get(p) === t) changed.delete(p)
  return { changed, clashes, skipped }
}

const insertSorted = (edits, exportDecls, text, spec, statement) => {
  const next = exportDecls.find((st) => byName(st.moduleSpecifier.text, spec) > 0)
  if (next) {
    const at = attachedStart(text, next.getStart())
    edits.push({ start: at, end: at, text: `${statement}\n` })
  } else {
    const end = text.endsWith("\n") ? text.length - 1 : text.length
    edits.push({ start: end, end, text: `\n${statement}` })
  }
}

/**
 * Where a statement's own comment lines begin (the lines right above it that are comments, up to a
 * blank line); a comment that starts the file is the file's header, not the statement's.
 */
const attachedStart = (text, statementStart) => {
  let lineStart = text.lastIndexOf("\n", statementStart - 1) + 1
  for (;;) {
    if (lineStart === 0) break
    const prevStart = text.lastIndexOf("\n", lineStart - 2) + 1
    const prev = text.slice(prevStart, lineStart - 1).trim()
    if (!(prev.startsWith("//") || prev.startsWith("/*") || prev.startsWith("*"))) break
    lineStart = prevStart
  }
  if (lineStart === 0 && /^\s*\/\*/.test(text)) {
    // the block reaches the top: the first comment is the file header; insert right after it
    const headerEnd = text.indexOf("*/")
    return text.indexOf("\n", headerEnd) + 1
  }
  return lineStart
}

const applyEdits = (text, edits) => {
  // from the end backwards; two insertions at one place keep the order they were planned in
  const sorted = edits.map((e, seq) => ({ ...e, seq })).sort((a, b) => b.start - a.start || b.end - a.end || b.seq - a.seq)
  let out = text
  for (const e of sorted) out = out.slice(0, e.start) + e.text + out.slice(e.end)
  if (!out.endsWith("\n")) out += "\n"
  return out
}

const main = () => {
  const check = process.argv.includes("--check")
  const srcDir = path.join(repoRoot, "src")
  const { changed, clashes, skipped } = planSurfaces(loadSourceTree(srcDir))
  for (const line of skipped) console.log(`skipped: ${line}`)
  for (const line of clashes) console.log(`clash: ${line}`)
  if (!check) for (const [p, t] of changed) fs.writeFileSync(path.join(srcDir, p), t)
  console.log(`surfaces: ${changed.size} file(s) ${check ? "would change" : "changed"}${clashes.length ? `, ${clashes.length} clash(es)` : ""}`)
  if (check && changed.size > 0) process.exit(1)
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main()
