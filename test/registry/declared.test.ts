// Factories that carry their declaration: listed and searched without loading, loaded on first call.
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Registry from "../../src/registry/registry.js"
import { type BuiltinTool, builtinCatalog, builtinFactories, readBuiltinDeclarations } from "../../src/run/catalog.js"
import { Approver } from "../../src/run/approver.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { infoOf, type ToolInfo } from "../../src/tool/tool.js"
import { repoRoot } from "../support/serve.js"
import { echoTool } from "../support/tools.js"

/** Each built-in's typed declaration (its module imported). */
const builtinDeclarations = Effect.forEach(builtinCatalog as ReadonlyArray<BuiltinTool>, (tool) => tool.declaration)

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-declared-")))

/** A declared factory of an echo tool that counts its loads (and can fail its first `failures` loads). */
const declared = (name: string, loads: Ref.Ref<number>, options: { readonly deferred?: boolean; readonly failures?: number } = {}) => {
  const tool = echoTool(name, { deferred: options.deferred ?? false })
  return {
    name,
    info: infoOf(tool),
    load: Effect.gen(function*() {
      const n = yield* Ref.updateAndGet(loads, (k) => k + 1)
      if (n <= (options.failures ?? 0)) return yield* Effect.fail(new Error(`load ${n} fails`))
      return tool
    })
  }
}

describe("declared factories", () => {
  it.effect("are listed, searched, named and summarised without loading", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("shown", loads), declared("hidden", loads, { deferred: true })])
      const list = yield* registry.declarations
      assert.deepStrictEqual(list.map((t) => t.name), ["shown"])
      assert.deepStrictEqual(infoOf(list[0]!), infoOf(echoTool("shown", { deferred: false })))
      assert.deepStrictEqual((yield* registry.hiddenTools).map((t) => t.name), ["hidden"])
      assert.deepStrictEqual((yield* registry.deferredSummary).map((t) => t.name), ["hidden"])
      assert.deepStrictEqual(yield* registry.names, ["hidden", "shown"])
      assert.strictEqual(yield* registry.canonicalName("SHOWN"), "shown")
      assert.strictEqual(yield* Ref.get(loads), 0)
    }))

  it.live("load once on the first call, also with 50 concurrent first calls through the listed stand-in", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("shown", loads)])
      const [standIn] = yield* registry.tools
      const results = yield* Effect.forEach(
        Array.from({ length: 50 }, (_, i) => i),
        (i) => standIn!.call({ message: `m${i}` }),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(results.map((r) => r.data), Array.from({ length: 50 }, (_, i) => ({ echoed: `m${i}` })))
      assert.strictEqual(yield* Ref.get(loads), 1)
      // The registry now holds the real tool: ensure returns it, and lists still show the same declaration.
      const real = yield* registry.ensure("shown")
      assert.notStrictEqual(real, standIn)
      assert.strictEqual(real.toAutoClassifierInput({ message: "x" }), standIn!.toAutoClassifierInput({ message: "x" }))
      assert.deepStrictEqual((yield* registry.declarations).map(infoOf), [infoOf(standIn!)])
      assert.strictEqual(yield* Ref.get(loads), 1)
    }))

  it.effect("a stand-in validates through the real tool: bad params are rejected after the load", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("shown", loads)])
      const [standIn] = yield* registry.tools
      const error = yield* Effect.flip(standIn!.build({ message: 42 }))
      assert.strictEqual((error as { code?: string }).code, "invalid_tool_params")
      assert.strictEqual(yield* Ref.get(loads), 1)
    }))

  it.effect("a failing load is an execution_failed call, and the next call retries", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("flaky", loads, { failures: 1 })])
      const [standIn] = yield* registry.tools
      const error = yield* Effect.flip(standIn!.call({ message: "a" }))
      assert.strictEqual((error as { code?: string }).code, "execution_failed")
      assert.include((error as { message: string }).message, "load 1 fails")
      assert.deepStrictEqual((yield* registry.declarations).map((t) => t.name), ["flaky"])
      const ok = yield* standIn!.call({ message: "b" })
      assert.deepStrictEqual(ok.data, { echoed: "b" })
      assert.strictEqual(yield* Ref.get(loads), 2)
    }))

  it.effect("disabled names are neither declared nor loadable", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("off", loads)], { disabled: ["off"] })
      assert.deepStrictEqual(yield* registry.declarations, [])
      assert.strictEqual((yield* Effect.flip(registry.ensure("off"))).code, "tool_not_registered")
      assert.strictEqual(yield* Ref.get(loads), 0)
    }))

  it.effect("a registry's initial factories commit as one change: one version, every listed name, the later of two with one name", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const later = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("a", loads), declared("b", loads), declared("a", later)])
      // nothing loaded to list them; one commit for all three registrations
      assert.strictEqual((yield* registry.toolSet).version, 1)
      assert.deepStrictEqual(yield* registry.names, ["a", "b"])
      assert.strictEqual(yield* Ref.get(loads), 0)
      // "a" was registered twice: the later factory is the one that loads
      yield* registry.ensure("a")
      assert.deepStrictEqual([yield* Ref.get(loads), yield* Ref.get(later)], [0, 1])
      // later changes still count one version each
      yield* registry.register(echoTool("c", { deferred: false }))
      assert.strictEqual((yield* registry.toolSet).version, 2)
      // an undeclared factory among them is not listed until it loads (listing loads it)
      const mixed = yield* Registry.make([declared("d", loads), { name: "plain", load: Effect.succeed(echoTool("plain", { deferred: false })) }])
      assert.deepStrictEqual(yield* mixed.names, ["d", "plain"])
      assert.deepStrictEqual((yield* mixed.declarations).map((t) => t.name), ["d", "plain"])
      assert.strictEqual((yield* mixed.toolSet).version, 2)
    }))

  it.effect("a revealed deferred stand-in is declared, still unloaded", () =>
    Effect.gen(function*() {
      const loads = yield* Ref.make(0)
      const registry = yield* Registry.make([declared("later", loads, { deferred: true })])
      assert.deepStrictEqual(yield* registry.declarations, [])
      assert.deepStrictEqual(yield* registry.reveal(["later"]), ["later"])
      assert.deepStrictEqual((yield* registry.declarations).map((t) => t.name), ["later"])
      assert.strictEqual(yield* Ref.get(loads), 0)
    }))
})

describe("built-in declarations (a *.decl.ts module and a .md beside each tool)", () => {
  it.live("equal what each loaded tool builds: name, kind, flags, params JSON Schema and description", () =>
    Effect.gen(function*() {
      const declarations = yield* builtinDeclarations
      const names = declarations.map((declaration) => declaration.name)
      assert.strictEqual(new Set(names).size, names.length, "names are unique")
      assert.deepStrictEqual(builtinCatalog.map((tool) => tool.name), names)
      assert.deepStrictEqual(builtinFactories.map((f) => f.name), names)
      const loaded = yield* Effect.gen(function*() {
        const registry = yield* Registry.ToolRegistry
        const warmed = yield* registry.warmAll
        assert.deepStrictEqual(warmed.failed, [])
        return new Map((yield* registry.tools).map((tool) => [tool.name, infoOf(tool)]))
      }).pipe(
        Effect.provide(SessionLayer.layer({ roots: [tempDir()], stateDir: tempDir() }).pipe(
          Layer.provide(Approver.layerFixed({ _tag: "cancel" }))
        ))
      )
      for (const declaration of declarations) {
        const info = infoOf(declaration.info)
        assert.isAbove(info.description.length, 0, `${declaration.name}: a description`)
        assert.notMatch(info.description, /\n$/, `${declaration.name}: the .md's final newline is not part of it`)
        assert.deepStrictEqual(loaded.get(declaration.name), info, `${declaration.name}: declaration and tool differ`)
      }
    }))

  it.effect("the build's builtinDeclarations.json (dist/run and dist/bundle) equals the declaration modules", () =>
    Effect.gen(function*() {
      const declarations = yield* builtinDeclarations
      for (const dir of ["run", "bundle"]) {
        const file = pathToFileURL(path.join(repoRoot, "dist", dir, "builtinDeclarations.json"))
        const built = readBuiltinDeclarations(file)
        assert.isDefined(built, `dist/${dir}/builtinDeclarations.json: run npm run build`)
        assert.deepStrictEqual([...built!.keys()], declarations.map((d) => d.name), `dist/${dir}: names in catalog order`)
        for (const declaration of declarations) {
          assert.deepStrictEqual(built!.get(declaration.name), infoOf(declaration.info), `dist/${dir}: ${declaration.name}`)
        }
      }
      // Running from src/ there is no file: the catalog read the declaration modules.
      assert.isUndefined(readBuiltinDeclarations(pathToFileURL(path.join(repoRoot, "src", "run", "builtinDeclarations.json"))))
      assert.deepStrictEqual(builtinCatalog.map((tool) => tool.info), declarations.map((d) => d.info))
    }))

  it("each description is a .md under src/, and the file names are unique (dist/bundle holds them flat)", async () => {
    const declarations = await Effect.runPromise(builtinDeclarations)
    const src = path.join(repoRoot, "src")
    const markdown = fs.readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md"))
    const basenames = markdown.map((f) => path.basename(f))
    assert.strictEqual(new Set(basenames).size, basenames.length)
    const texts = new Set(markdown.map((f) => fs.readFileSync(path.join(src, f), "utf8").replace(/\r?\n$/, "")))
    for (const declaration of declarations) {
      assert.isTrue(texts.has(declaration.description), `${declaration.name}: its description is a .md under src/`)
    }
  })

  it("a session's first declaration list, through the built library, imports no tool module, no declaration module and no MCP client", async () => {
    const declarations = await Effect.runPromise(builtinDeclarations)
    // A child process with a loader hook that records every module it loads.
    const dir = tempDir()
    fs.writeFileSync(path.join(dir, "hooks.mjs"), `export async function load(url, context, next) {
      const result = await next(url, context)
      process.stderr.write("LOADED " + url + "\\n")
      return result
    }`)
    fs.writeFileSync(path.join(dir, "main.mjs"), `
      import { register } from "node:module"
      register(${JSON.stringify(pathToFileURL(path.join(dir, "hooks.mjs")).href)})
      const tw = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "dist", "index.js")).href)})
      const Effect = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "node_modules", "effect", "dist", "Effect.js")).href)})
      const Layer = await import(${JSON.stringify(pathToFileURL(path.join(repoRoot, "node_modules", "effect", "dist", "Layer.js")).href)})
      const layer = tw.SessionLayer.layer({ roots: [${JSON.stringify(tempDir())}], stateDir: ${JSON.stringify(tempDir())} })
        .pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "cancel" })))
      const list = await Effect.runPromise(Effect.gen(function*() { return yield* (yield* tw.Registry.ToolRegistry).declarations }).pipe(Effect.provide(layer)))
      console.log(JSON.stringify(list.map(tw.infoOf)))
    `)
    const run = spawnSync(process.execPath, [path.join(dir, "main.mjs")], { cwd: repoRoot, encoding: "utf8" })
    assert.strictEqual(run.status, 0, run.stderr)
    const listed: Array<ToolInfo> = JSON.parse(run.stdout.trim())
    assert.includeMembers(listed.map((t) => t.name), ["edit", "glob", "grep_search", "read_file", "run_shell_command", "tool_search", "write_file"])
    // The built library reads the descriptions copied into dist/ by the build.
    for (const declaration of declarations) {
      const shown = listed.find((t) => t.name === declaration.name)
      if (shown !== undefined) assert.strictEqual(shown.description, declaration.description, declaration.name)
    }
    const loaded = run.stderr.split("\n").filter((l) => l.startsWith("LOADED ")).map((l) => l.slice(7))
    const ours = loaded.filter((url) => url.includes("/dist/")).map((url) => url.slice(url.indexOf("/dist/") + 6))
    // No implementation loads (nor the declaration modules: the list comes from builtinDeclarations.json).
    // text/fileIo.js is the one leaf the output store shares (SHA-256 of bytes; it imports only node:crypto).
    const declarationLeaves = new Set(["text/fileIo.js", "plan/board.js", "plan/taskParams.js", "plan/todos.js", "search/constants.js"])
    for (const room of ["files/", "search/", "plan/", "text/", "shell/runShellCommand", "mcp/gateway", "mcp/client", "serve/"]) {
      const implementations = ours.filter((m) => m.startsWith(room) && !m.endsWith(".decl.js") && !declarationLeaves.has(m))
      assert.deepStrictEqual(implementations, [], `loaded ${room}`)
    }
    // Wherever the shell's modules live (rooms may split into wings), the shell tool is not loaded.
    assert.deepStrictEqual(ours.filter((m) => /(^|\/)(runShellCommand|foreground|sedEdit)\.js$/.test(m)), [])
    assert.deepStrictEqual(ours.filter((m) => m.endsWith(".decl.js")), [])
    assert.deepStrictEqual(loaded.filter((url) => /node_modules\/(@modelcontextprotocol|zod|diff|iconv-lite|node-pty)\//.test(url)), [])
  })
})
