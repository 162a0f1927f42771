// Built-in tools as a service: an embedder replaces one tool's implementation through a Layer,
// the declaration list stays the same, and calls reach the replacement (the real module is never
// imported, nothing is spawned).
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Registry from "../../src/registry/registry.js"
import { Approver } from "../../src/run/approver.js"
import { BuiltinTools } from "../../src/run/builtinTools.js"
import { Scheduler } from "../../src/run/scheduler.js"
import * as SessionLayer from "../../src/run/sessionLayer.js"
import { runShellCommandDeclaration } from "../../src/shell/command/runShellCommand.decl.js"
import { defineTool, infoOf, Kind, textResult, type ToolInfo } from "../../src/tool/index.js"
import { declareTool } from "../../src/tool/toolDeclaration.js"
import { repoRoot } from "../support/serve.js"

const tempDir = () => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "tw-builtins-")))

/** A session (yolo: calls run without asking), with `builtins` provided when given. */
const sessionLayer = (builtins?: Layer.Layer<BuiltinTools>) => {
  const session = SessionLayer.layer({ roots: [tempDir()], stateDir: tempDir(), mode: "yolo" }).pipe(
    Layer.provide(Approver.layerFixed({ _tag: "cancel" }))
  )
  return builtins === undefined ? session : session.pipe(Layer.provide(builtins))
}

const declarationsOf = (layer: ReturnType<typeof sessionLayer>) =>
  Effect.gen(function*() {
    const registry = yield* Registry.ToolRegistry
    return (yield* registry.declarations).map(infoOf)
  }).pipe(Effect.provide(layer))

/** A stand-in shell that records the commands it is given and runs none of them. */
const recordingShell = (seen: Ref.Ref<ReadonlyArray<string>>) =>
  BuiltinTools.override({
    run_shell_command: {
      make: (declaration) =>
        Effect.succeed(defineTool({
          ...declaration,
          invoke: (params) =>
            Effect.succeed({
              description: `remote: ${params.command}`,
              execute: () =>
                Effect.as(Ref.update(seen, (all) => [...all, params.command]), textResult(`ran remotely: ${params.command}`))
            })
        }))
    }
  })

describe("BuiltinTools", () => {
  it.live("a replaced run_shell_command keeps the declaration list, and its calls reach the replacement", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const shipped = yield* declarationsOf(sessionLayer())
      const layer = sessionLayer(recordingShell(seen))
      const marker = path.join(tempDir(), "created-by-a-real-shell")
      const { before, result, after } = yield* Effect.gen(function*() {
        const registry = yield* Registry.ToolRegistry
        const before = (yield* registry.declarations).map(infoOf)
        const result = yield* (yield* Scheduler).runOne({ callId: "c1", name: "run_shell_command", args: { command: `touch ${marker}` } })
        const after = (yield* registry.declarations).map(infoOf)
        return { before, result, after }
      }).pipe(Effect.provide(layer))
      assert.deepStrictEqual(before, shipped)
      assert.deepStrictEqual(after, shipped)
      assert.strictEqual(result._tag, "Success", JSON.stringify(result))
      assert.deepStrictEqual(result._tag === "Success" ? result.llmContent : [], [{ type: "text", text: `ran remotely: touch ${marker}` }])
      assert.deepStrictEqual(yield* Ref.get(seen), [`touch ${marker}`])
      assert.isFalse(fs.existsSync(marker), "no real shell ran")
    }))

  it.live("a replacement with its own declaration is listed under it", () =>
    Effect.gen(function*() {
      const remote = declareTool({
        name: "run_shell_command",
        displayName: "RemoteShell",
        description: "Runs a command on the build farm.",
        kind: Kind.Execute,
        params: runShellCommandDeclaration.params
      })
      const layer = sessionLayer(BuiltinTools.override({
        run_shell_command: {
          declaration: remote,
          make: (declaration) =>
            Effect.succeed(defineTool({ ...declaration, invoke: () => Effect.die("not called") }))
        }
      }))
      const listed = yield* declarationsOf(layer)
      const shell = listed.find((t) => t.name === "run_shell_command")
      assert.deepStrictEqual(shell, remote.info)
      assert.strictEqual(shell?.description, "Runs a command on the build farm.")
      // The other built-ins are untouched.
      const shipped = yield* declarationsOf(sessionLayer())
      const others = (list: ReadonlyArray<ToolInfo>) => list.filter((t) => t.name !== "run_shell_command")
      assert.deepStrictEqual(others(listed), others(shipped))
    }))

  it.live("overrides stack: one provided to another keeps the other's replacement", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const quiet = BuiltinTools.override({
        task_stop: { make: (declaration) => Effect.succeed(defineTool({ ...declaration, invoke: () => Effect.die("x") })) }
      })
      const layer = sessionLayer(quiet.pipe(Layer.provide(recordingShell(seen))))
      const result = yield* Effect.gen(function*() {
        return yield* (yield* Scheduler).runOne({ callId: "c1", name: "run_shell_command", args: { command: "echo stacked" } })
      }).pipe(Effect.provide(layer))
      assert.strictEqual(result._tag, "Success")
      assert.deepStrictEqual(yield* Ref.get(seen), ["echo stacked"])
    }))

  it.live("a replacement declared under another name is refused when the session is built", () =>
    Effect.gen(function*() {
      const other = declareTool({ name: "remote_shell", displayName: "Remote", description: "x", kind: Kind.Execute, params: runShellCommandDeclaration.params })
      const layer = sessionLayer(BuiltinTools.override({
        // The types refuse another name; a JavaScript caller meets the check when the session is built.
        run_shell_command: { declaration: other as unknown as typeof runShellCommandDeclaration, make: () => Effect.die("not built") }
      }))
      const exit = yield* Effect.exit(declarationsOf(layer))
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "a replacement keeps the built-in's name")
    }))

  it("through the built library, the replaced shell's module is never imported", () => {
    // A child process with a loader hook that records every module it loads.
    const dir = tempDir()
    const marker = path.join(dir, "created-by-a-real-shell")
    const url = (file: string) => JSON.stringify(pathToFileURL(file).href)
    fs.writeFileSync(path.join(dir, "hooks.mjs"), `export async function load(url, context, next) {
      process.stderr.write("LOADED " + url + "\\n")
      return next(url, context)
    }`)
    fs.writeFileSync(path.join(dir, "main.mjs"), `
      import { register } from "node:module"
      register(${url(path.join(dir, "hooks.mjs"))})
      const tw = await import(${url(path.join(repoRoot, "dist", "index.js"))})
      const Effect = await import(${url(path.join(repoRoot, "node_modules", "effect", "dist", "Effect.js"))})
      const Layer = await import(${url(path.join(repoRoot, "node_modules", "effect", "dist", "Layer.js"))})
      const remote = tw.BuiltinTools.override({
        run_shell_command: {
          make: (declaration) => Effect.succeed(tw.defineTool({ ...declaration, invoke: (p) => Effect.succeed({
            description: p.command, execute: () => Effect.succeed(tw.textResult("remote " + p.command))
          }) }))
        }
      })
      const layer = tw.SessionLayer.layer({ roots: [${JSON.stringify(dir)}], stateDir: ${JSON.stringify(tempDir())}, mode: "yolo" })
        .pipe(Layer.provide(tw.Approver.layerFixed({ _tag: "cancel" })), Layer.provide(remote))
      const result = await Effect.runPromise(Effect.gen(function*() {
        return yield* (yield* tw.Scheduler).runOne({ callId: "c1", name: "run_shell_command", args: { command: "touch ${marker}" } })
      }).pipe(Effect.provide(layer)))
      console.log(JSON.stringify(result))
    `)
    const run = spawnSync(process.execPath, [path.join(dir, "main.mjs")], { cwd: repoRoot, encoding: "utf8" })
    assert.strictEqual(run.status, 0, run.stderr)
    const result = JSON.parse(run.stdout.trim().split("\n").pop()!)
    assert.strictEqual(result._tag, "Success", run.stdout)
    assert.deepStrictEqual(result.llmContent, [{ type: "text", text: `remote touch ${marker}` }])
    assert.isFalse(fs.existsSync(marker), "no real shell ran")
    const loaded = run.stderr.split("\n").filter((l) => l.startsWith("LOADED ")).map((l) => l.slice(7))
    const ours = loaded.filter((url) => url.includes("/dist/"))
    assert.isTrue(ours.some((url) => url.endsWith("/runShellCommand.decl.js")), "the declaration was loaded")
    // The session's process host (shell/host.js) loads with the session; the tool and what only it uses do not.
    assert.deepStrictEqual(ours.filter((url) => /\/(runShellCommand|foreground|sedEdit|selfKill|sleep)\.js$/.test(url)), [])
    assert.deepStrictEqual(loaded.filter((url) => /node_modules\/node-pty\//.test(url)), [])
  })
})
