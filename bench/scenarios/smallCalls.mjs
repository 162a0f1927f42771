// Cheap small calls (issue 18): the fixed cost of one short `run_shell_command` and of one 1 MB
// edit, each beside the bare job measured in the same process, interleaved call by call so that
// a change in load hits both sides alike.
//
// Shell: `echo N` through a yolo session on each backend (pipes, PTY) with the sandbox off and on
// (workspace-write, bubblewrap), beside a bare spawn of the same shell line: `bash --norc -c` on
// pipes (child_process.spawn) or on a bare node-pty, and, for the sandboxed rows, the same under
// `bwrap` with the arguments the session itself would use (process/sandbox.ts's bwrapArgs). Each
// session proves its backend (`data.backend`) and that the echo came back.
//
// Edit: a 1 MB file (the files scenario's lines), one exact-hit edit per round through a session
// (the edits swap two strings back and forth), beside the raw job: readFileSync, indexOf,
// replace, writeFileSync of a copy, fsync.
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { createRequire } from "node:module"
import { distDir, interleaved, median, repoRoot } from "../lib.mjs"

export const name = "small calls: shell echo and 1 MB edit fixed cost"

const importEffect = async () => ({
  Effect: await import("effect/Effect"),
  Layer: await import("effect/Layer"),
  ManagedRuntime: await import("effect/ManagedRuntime")
})

const session = async ({ pty, sandbox }) => {
  const { Effect, Layer, ManagedRuntime } = await importEffect()
  const tw = await import(path.join(distDir, "index.js"))
  const shell = await import(path.join(distDir, "shell", "index.js"))
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twbench-small-")))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-small-state-"))
  const layer = tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo", sandbox: { mode: sandbox ? "workspace-write" : "off" } }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" })),
    Layer.provide(Layer.succeed(shell.ShellConfig, { ...shell.DEFAULT_SHELL_SETTINGS, pty: pty ? "auto" : "off" }))
  )
  const rt = ManagedRuntime.make(layer)
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  const backend = pty ? "pty" : "child_process"
  let n = 0
  const call = async () => {
    const i = n++
    const r = await rt.runPromise(scheduler.runOne({ callId: String(i), name: "run_shell_command", args: { command: `echo ${i}` } }))
    if (r._tag !== "Success" || r.data?.backend !== backend || !r.llmContent?.[0]?.text?.includes(String(i))) {
      throw new Error(`echo failed: ${JSON.stringify(r).slice(0, 800)}`)
    }
  }
  return { call, root, stateDir, dispose: () => rt.dispose() }
}

/** The bwrap arguments a session over `root` would give `bash --norc -c line`. */
const sandboxedLine = async (root, stateDir, line) => {
  const proc = await import(path.join(distDir, "process", "index.js"))
  const settings = proc.sandboxSettingsOrDefault({ mode: "workspace-write" })
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-small-tmp-"))
  const confined = proc.confine(settings, { writable: [root, stateDir, root], tmpDir, cwd: root }, { file: "bash", args: ["--norc", "-c", line] })
  return { file: confined.file, args: confined.args, tmpDir }
}

const bareSpawn = (file, args) => () => new Promise((resolve, reject) => {
  const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] })
  child.stdout.on("data", () => {})
  child.stderr.on("data", () => {})
  child.on("error", reject)
  child.on("close", resolve)
})

const barePty = (file, args) => {
  const pty = createRequire(path.join(repoRoot, "package.json"))("node-pty")
  return () => new Promise((resolve) => {
    const p = pty.spawn(file, args, { cols: 120, rows: 30, encoding: null })
    p.onData(() => {})
    p.onExit(resolve)
  })
}

/** `fn` that also adds the CPU time it took in this process (user + system, ms) to `into`. */
const withCpu = (fn, into) => async () => {
  const before = process.cpuUsage()
  await fn()
  const used = process.cpuUsage(before)
  into.push((used.user + used.system) / 1000)
}

const line = (i) => `const value_${i} = "${"x".repeat(40)}";   \n`
const makeFile = (file, bytes) => {
  const chunks = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    chunks.push(line(i))
    size += chunks[i].length
  }
  fs.writeFileSync(file, chunks.join(""))
  return chunks.length
}

const editRows = async ({ runs }) => {
  const { Effect, Layer, ManagedRuntime } = await importEffect()
  const tw = await import(path.join(distDir, "index.js"))
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "twbench-small-edit-")))
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), "twbench-small-edit-state-"))
  const rt = ManagedRuntime.make(tw.SessionLayer.layer({ roots: [root], stateDir, mode: "yolo" }).pipe(
    Layer.provide(tw.Approver.layerFixed({ _tag: "proceed_once" }))
  ))
  const scheduler = await rt.runPromise(Effect.gen(function*() { return yield* tw.Scheduler }))
  let n = 0
  const call = (name, args) => rt.runPromise(scheduler.runOne({ callId: String(n++), name, args }))
  const file = path.join(root, "big.ts")
  const lines = makeFile(file, 1024 * 1024)
  const rawFile = path.join(root, "raw.ts")
  fs.copyFileSync(file, rawFile)
  const mid = Math.floor(lines / 2)
  const a = `const value_${mid} = "${"x".repeat(40)}";   `
  const b = `const value_${mid} = "y";   `
  await call("read_file", { file_path: file, offset: 0, limit: 1 })
  let ours = 0
  const edit = async () => {
    const [from, to] = ours++ % 2 ? [b, a] : [a, b]
    const r = await call("edit", { file_path: file, old_string: from, new_string: to })
    if (r._tag !== "Success" || r.data?.match?.rung !== "exact") throw new Error(`edit failed: ${JSON.stringify(r).slice(0, 800)}`)
  }
  let raws = 0
  const raw = async () => {
    const [from, to] = raws++ % 2 ? [b, a] : [a, b]
    const text = fs.readFileSync(rawFile, "utf8")
    const at = text.indexOf(from)
    if (at < 0) throw new Error("raw edit missed")
    const fd = fs.openSync(rawFile, "w")
    fs.writeFileSync(fd, text.slice(0, at) + to + text.slice(at + from.length))
    fs.fsyncSync(fd)
    fs.closeSync(fd)
  }
  const cpu = [[], []]
  const [o, r] = await interleaved([withCpu(edit, cpu[0]), withCpu(raw, cpu[1])], { runs, warmup: 2 })
  const [oc, rc] = cpu.map((xs) => median(xs.slice(2)))
  await rt.dispose()
  fs.rmSync(root, { recursive: true, force: true })
  fs.rmSync(stateDir, { recursive: true, force: true })
  return [{
    scenario: "small calls: edit (exact hit)",
    size: "1 MB",
    ours: median(o),
    limit: median(r),
    unit: "ms",
    limitName: "readFileSync + indexOf + replace + writeFileSync + fsync",
    ratio: median(o) / median(r),
    note: `target ≤ 1.5×; median of ${runs}, interleaved; best ${Math.min(...o).toFixed(1)} vs ${Math.min(...r).toFixed(1)} ms; ` +
      `CPU per call ${oc.toFixed(1)} vs ${rc.toFixed(1)} ms`
  }]
}

export const run = async ({ runs, smoke }) => {
  const reps = smoke ? 2 : Math.max(runs, 20)
  const rows = []
  for (const pty of [false, true]) {
    for (const sandbox of [false, true]) {
      const s = await session({ pty, sandbox })
      const bashLine = ["--norc", "-c", "echo 0"]
      const bare = sandbox ? await sandboxedLine(s.root, s.stateDir, "echo 0") : { file: "bash", args: bashLine }
      const bareFn = pty ? barePty(bare.file, bare.args) : bareSpawn(bare.file, bare.args)
      const cpu = [[], []]
      const [o, b] = await interleaved([withCpu(s.call, cpu[0]), withCpu(bareFn, cpu[1])], { runs: reps, warmup: 2 })
      // The warm-up rounds' CPU is left out, as their times are.
      const [oc, bc] = cpu.map((xs) => median(xs.slice(2)))
      await s.dispose()
      if (bare.tmpDir) fs.rmSync(bare.tmpDir, { recursive: true, force: true })
      const backend = pty ? "PTY" : "pipes"
      rows.push({
        scenario: `small calls: shell echo (${backend}, sandbox ${sandbox ? "on" : "off"})`,
        size: "echo",
        ours: median(o),
        limit: median(b),
        unit: "ms",
        limitName: `${pty ? "bare node-pty" : "bare child_process.spawn"} of ${sandbox ? "bwrap (same arguments) " : ""}bash -c, to exit`,
        ratio: median(o) / median(b),
        note: `target ≤ 2×; median of ${reps}, interleaved; best ${Math.min(...o).toFixed(1)} vs ${Math.min(...b).toFixed(1)} ms; ` +
          `CPU in this process per call ${oc.toFixed(1)} vs ${bc.toFixed(1)} ms (the spawn's own included)`
      })
    }
  }
  rows.push(...(await editRows({ runs: smoke ? 2 : Math.max(runs, 20) })))
  return rows
}
