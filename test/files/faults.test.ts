/**
 * Faults from the outside, with real processes: a writer killed mid-write (old file or new file,
 * never a mix), a write refused by the OS for lack of permission (a process without the DAC
 * override capabilities) and for lack of space (a 64 KiB tmpfs in a private mount namespace).
 */
import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { repoRoot } from "../support/serve.js"
import { tempDir } from "./helpers.js"

const fixtures = path.join(repoRoot, "test", "fixtures", "files")

/** Spawns `command args…` in the repo root. */
const spawnChild = (command: string, args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => spawn(command, args, { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] })),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

/**
 * Resolves with everything the child printed once it exits. Listeners are attached at once (the
 * child may exit before the result is awaited), and an already-exited child resolves immediately.
 */
const finished = (child: ChildProcess) => {
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (d) => (stdout += d))
  child.stderr!.on("data", (d) => (stderr += d))
  const exited = new Promise<{ stdout: string; stderr: string; code: number | null; signal: string | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ stdout, stderr, code: child.exitCode, signal: child.signalCode })
    else child.on("exit", (code, signal) => resolve({ stdout, stderr, code, signal }))
  })
  return Effect.promise(() => exited)
}

const nodeTs = (script: string, args: ReadonlyArray<string>) => [process.execPath, path.join(fixtures, script), ...args]

const MIB = 1024 * 1024
const OLD_SIZE = 8 * MIB
const NEW_SIZE = 16 * MIB

/** "old", "new", or "mix" for anything else. */
const classify = (file: string): "old" | "new" | "mix" => {
  const bytes = fs.readFileSync(file)
  if (bytes.equals(Buffer.alloc(OLD_SIZE, "O"))) return "old"
  if (bytes.equals(Buffer.alloc(NEW_SIZE, "N"))) return "new"
  return "mix"
}

describe("a killed writer leaves the old file or the new one, never a mix", () => {
  it.live("SIGKILL as soon as the temp file appears, after chosen delays, and never", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir()
      const target = path.join(dir, "target.bin")
      const seen: Array<string> = []
      for (const plan of ["at-temp", 0, 50, "never"] as const) {
        fs.writeFileSync(target, Buffer.alloc(OLD_SIZE, "O"))
        const [cmd, ...args] = nodeTs("write-big.mjs", [target, String(NEW_SIZE / MIB), "N"])
        const child = yield* spawnChild(cmd!, args)
        const exit = finished(child)
        const running = () => child.exitCode === null && child.signalCode === null
        yield* Effect.callback<void>((resume) => {
          if (child.stdout!.readableLength > 0 || !running()) resume(Effect.void)
          else child.stdout!.once("readable", () => resume(Effect.void))
        })
        const hasTemp = () => fs.readdirSync(dir).some((n) => n.endsWith(".tmp"))
        if (plan === "at-temp") {
          // Poll until the temp file exists beside the target (or the writer is already done), then kill.
          while (running() && !hasTemp()) yield* Effect.sleep("1 millis")
          child.kill("SIGKILL")
        } else if (plan !== "never") {
          yield* Effect.sleep(`${plan} millis`)
          child.kill("SIGKILL")
        }
        const result = yield* exit
        const state = classify(target)
        seen.push(`${plan}:${state}`)
        assert.notStrictEqual(state, "mix", `plan ${plan}: the target is a mix`)
        // A temp file left behind means the kill came before the rename: the old file must be intact.
        if (result.signal === "SIGKILL" && hasTemp()) assert.strictEqual(state, "old", "killed before the rename: the old file is intact")
        if (plan === "never") {
          assert.strictEqual(result.code, 0, result.stderr)
          assert.strictEqual(state, "new")
        }
        for (const leftover of fs.readdirSync(dir).filter((n) => n.endsWith(".tmp"))) fs.rmSync(path.join(dir, leftover))
      }
      assert.strictEqual(seen.length, 4)
    }), 120_000)
})

describe("the OS refuses: permission_denied and no_space_left through write_file", () => {
  it.live("EACCES: a read-only file in a writable directory stays refused (no rename around it)", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const file = path.join(root, "readonly.txt")
      fs.writeFileSync(file, "do not touch\n")
      fs.chmodSync(file, 0o444)
      // A root process without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH / CAP_FOWNER obeys file modes.
      const child = yield* spawnChild("setpriv", [
        "--bounding-set=-dac_override,-dac_read_search,-fowner",
        ...nodeTs("write-file-tool.mjs", [root, state, "readonly.txt", "5"])
      ])
      const out = yield* finished(child)
      const result = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}")
      assert.strictEqual(result.code, "permission_denied", out.stderr)
      assert.isTrue(result.message.startsWith(`Permission denied writing to file: ${file} (EACCES). `), result.message)
      assert.include(result.message, "Do not retry")
      assert.deepStrictEqual(result.listing, ["readonly.txt"], "no temp file left")
      assert.strictEqual(fs.readFileSync(file, "utf8"), "do not touch\n")
    }), 60_000)

  it.live("ENOSPC: a full disk → no_space_left, and no partial file is left", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir("tw-state-")
      const script = `mount -t tmpfs -o size=64k tmpfs "$0" && exec "$@"`
      const child = yield* spawnChild("unshare", [
        "-m",
        "sh",
        "-c",
        script,
        root,
        ...nodeTs("write-file-tool.mjs", [root, state, "big.txt", String(1024 * 1024)])
      ])
      const out = yield* finished(child)
      const result = JSON.parse(out.stdout.trim().split("\n").pop() ?? "{}")
      assert.strictEqual(result.code, "no_space_left", out.stderr)
      assert.isTrue(result.message.startsWith(`No space left on device: ${path.join(root, "big.txt")} (ENOSPC). `), result.message)
      assert.include(result.message, "nothing was written")
      assert.deepStrictEqual(result.listing, [], "neither the target nor a temp file remains")
    }), 60_000)
})
