/**
 * A real agent host, Qwen Code (pinned, installed from npm by the test), run headless against the
 * built `toolwright serve` and driven by a scripted model on 127.0.0.1: read → edit → shell →
 * tool_search → a revealed deferred tool (through the `call_tool` proxy, since Qwen Code never
 * re-lists after `list_changed`) → a background command whose completion reaches the model as a
 * `<system-reminder>` on a later result. Assertions are on the file on disk and on what the model
 * was shown.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect } from "effect"
import { HOSTS, installHost } from "../support/hosts.js"
import { type ModelStep, scriptedModel, type SeenRequest } from "../support/scriptedModel.js"
import { cliPath, tempDir } from "../support/serve.js"

const MCP = "mcp__toolwright__"

/** Tool results the model has been shown so far, in order. */
const toolResults = (request: SeenRequest) => request.messages.filter((m) => m.role === "tool").map((m) => m.text)

/** The script, as a function of what the model has seen: one step per tool result so far. */
const script = (request: SeenRequest): ModelStep => {
  const results = toolResults(request)
  // Qwen Code defers MCP tools behind its own tool_search: fetch ours first.
  if (!request.tools.includes(`${MCP}read_file`)) {
    return { tool: "tool_search", args: { query: `select:${["read_file", "edit", "run_shell_command", "tool_search", "call_tool"].map((n) => MCP + n).join(",")}` } }
  }
  const done = results.length - 1 // the host's own tool_search was the first result
  const longTask = results.map((r) => /id: (bg_[0-9a-f]+)/.exec(r)?.[1]).filter((id) => id !== undefined)[1]
  const steps: ReadonlyArray<() => ModelStep> = [
    () => ({ tool: `${MCP}read_file`, args: { file_path: "notes.txt" } }),
    () => ({ tool: `${MCP}edit`, args: { file_path: "notes.txt", old_string: "hello", new_string: "goodbye" } }),
    () => ({ tool: `${MCP}run_shell_command`, args: { command: "echo shell-ran" } }),
    () => ({ tool: `${MCP}run_shell_command`, args: { command: "echo bg-finished", is_background: true } }),
    () => ({ tool: `${MCP}run_shell_command`, args: { command: "sleep 60", is_background: true } }),
    () => ({ tool: `${MCP}tool_search`, args: { query: "select:task_stop" } }),
    () => ({ tool: `${MCP}call_tool`, args: { name: "task_stop", arguments: { task_id: longTask ?? "missing" } } }),
    () => ({ tool: `${MCP}read_file`, args: { file_path: "notes.txt" } })
  ]
  return steps[done]?.() ?? { text: "All done." }
}

const runQwen = (qwen: string, cwd: string, home: string, baseUrl: string) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(
      process.execPath,
      [qwen, "--auth-type", "openai", "--openai-api-key", "sk-scripted", "--openai-base-url", baseUrl, "-m", "scripted", "--yolo", "do the task"],
      { cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, HOME: home, NO_COLOR: "1" } },
      (error, stdout, stderr) => resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
    )
  })

describe("Qwen Code 0.15 headless against toolwright serve", () => {
  it.live("read → edit → shell → tool_search → revealed tool via call_tool → background completion as a reminder", () =>
    Effect.gen(function*() {
      const qwen = yield* installHost(HOSTS.qwenCode)
      const root = yield* tempDir("tw-qwen-")
      const home = yield* tempDir("tw-qwen-home-")
      const state = yield* tempDir("tw-qwen-state-")
      fs.writeFileSync(path.join(root, "notes.txt"), "hello notes\n")
      fs.mkdirSync(path.join(root, ".qwen"))
      fs.writeFileSync(
        path.join(root, ".qwen", "settings.json"),
        JSON.stringify({
          mcpServers: {
            toolwright: { command: process.execPath, args: [cliPath, "serve", "--root", root, "--state-dir", state], trust: true }
          }
        })
      )
      const model = yield* scriptedModel(script)
      const run = yield* runQwen(qwen, root, home, model.baseUrl)
      assert.strictEqual(run.code, 0, `${run.stdout}\n${run.stderr}`)
      assert.include(run.stdout, "All done.")
      assert.strictEqual(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "goodbye notes\n")

      const results = toolResults(model.requests.at(-1)!)
      const [, read, edit, shell, background, long, search, stop, reread] = results
      assert.include(read, "hello notes")
      assert.notMatch(edit!, /error/i)
      assert.include(shell, "shell-ran")
      assert.match(background!, /id: bg_[0-9a-f]+/)
      assert.match(long!, /id: bg_[0-9a-f]+/)
      assert.include(search, "task_stop")
      assert.include(stop, `Cancellation requested for background shell "${/id: (bg_[0-9a-f]+)/.exec(long!)![1]}"`)
      assert.include(reread, "goodbye notes")
      // the first background command finished meanwhile: its completion (exit code, output file) rides
      // on one later result, once
      const firstId = /id: (bg_[0-9a-f]+)/.exec(background!)![1]!
      const reminded = results.filter((r) => r.includes("<system-reminder>") && r.includes(firstId))
      assert.strictEqual(reminded.length, 1, results.join("\n---\n"))
      assert.match(reminded[0]!, /exit code:? 0|exited with (code )?0/i)
      assert.match(reminded[0]!, /\.output/)
    }), 300_000)
})
