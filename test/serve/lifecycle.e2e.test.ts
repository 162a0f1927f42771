import { assert, describe, it } from "@effect/vitest"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { eventually, processesWith } from "../support/httpServe.js"
import { cliUnderTest, repoRoot, tempDir } from "../support/serve.js"

const hostScript = path.join(repoRoot, "test", "fixtures", "serve", "host.mjs")

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** A JSON-RPC peer on a child's stdin/stdout, one message per line. */
const rpc = (child: ChildProcess) => {
  const waiting = new Map<number, (value: any) => void>()
  let buffered = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8")
    for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
      const message = JSON.parse(buffered.slice(0, newline))
      buffered = buffered.slice(newline + 1)
      if (typeof message.id === "number" && waiting.has(message.id)) waiting.get(message.id)!(message)
    }
  })
  let next = 0
  const send = (message: object) => child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n")
  const request = (method: string, params: object) =>
    Effect.promise(() => {
      const id = ++next
      const answer = new Promise<any>((resolve) => waiting.set(id, resolve))
      send({ id, method, params })
      return answer
    })
  return {
    request,
    initialize: Effect.gen(function*() {
      yield* request("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "lifecycle-test", version: "0" } })
      send({ method: "notifications/initialized" })
    })
  }
}

/** Starts a background command whose processes all carry `marker` in their command line; waits until they run. */
const startMarkedBackground = (peer: ReturnType<typeof rpc>, marker: string) =>
  Effect.gen(function*() {
    const result = yield* peer.request("tools/call", {
      name: "run_shell_command",
      arguments: { command: `(exec -a ${marker} sleep 300) & exec -a ${marker} sleep 301`, is_background: true, description: "sleep" }
    })
    assert.isUndefined(result.result?.isError, JSON.stringify(result))
    assert.isTrue(yield* eventually(() => processesWith(marker).length >= 2), "the background processes started")
  })

describe("toolwright serve lifecycle (stdio, the built CLI)", () => {
  it.live("exits when stdin closes and leaves no process of its session behind", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const marker = `tw-life-${process.pid}-${Date.now()}`
      const serve = spawn(process.execPath, [cliUnderTest, "serve", "--root", root, "--state-dir", state], {
        stdio: ["pipe", "pipe", "ignore"]
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => serve.kill("SIGKILL")))
      const peer = rpc(serve)
      yield* peer.initialize
      yield* startMarkedBackground(peer, marker)

      const exited = new Promise<number | null>((resolve) => serve.on("exit", (code) => resolve(code)))
      serve.stdin!.end()
      const code = yield* Effect.promise(() => exited)
      assert.strictEqual(code, 0)
      assert.isTrue(yield* eventually(() => processesWith(marker).length === 0), `survivors: ${processesWith(marker).join(", ")}`)
    }), 60_000)

  it.live("exits when its host is SIGKILLed while stdin stays open, killing its background processes", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const marker = `tw-orphan-${process.pid}-${Date.now()}`
      const pidFile = path.join(state, "serve.pid")
      // The host passes its stdin/stdout down: after the host dies, this test still holds them open.
      const host = spawn(process.execPath, [hostScript, pidFile, cliUnderTest, "serve", "--root", root, "--state-dir", state], {
        stdio: ["pipe", "pipe", "ignore"]
      })
      yield* Effect.addFinalizer(() => Effect.sync(() => host.kill("SIGKILL")))
      const peer = rpc(host)
      yield* peer.initialize
      yield* startMarkedBackground(peer, marker)
      const servePid = Number(fs.readFileSync(pidFile, "utf8"))
      assert.isTrue(alive(servePid))

      // The test still holds serve's stdin open: only the parent watch can end it.
      host.kill("SIGKILL")
      assert.isTrue(yield* eventually(() => !alive(servePid)), "serve exited after its host died")
      assert.isTrue(yield* eventually(() => processesWith(marker).length === 0), `survivors: ${processesWith(marker).join(", ")}`)
    }), 60_000)
})
