import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { Effect, Fiber, Option, Stream } from "effect"
import { ToolRegistry } from "../../src/registry/registry.js"
import { BackgroundShells, statusFilePathFor } from "../../src/shell/background/background.js"
import { readFileTail, taskNotification, utf8Tail } from "../../src/shell/background/notification.js"
import type { CallSuccess } from "../../src/tool/outcome.js"
import { call, codeOf, eventually, readPids, survivors, textOf, TREE_PIDS, TREE_SCRIPT, UNSANDBOXED, withSession } from "./helpers.js"

const startBackground = (command: string) =>
  Effect.gen(function*() {
    const r = yield* call("run_shell_command", { command, is_background: true })
    assert.strictEqual(r._tag, "Success", textOf(r))
    const data = (r as CallSuccess).data as { id: string; outputPath: string; statusPath: string; pid?: number }
    return { ...data, text: textOf(r), display: (r as CallSuccess).display }
  })

const status = (file: string) => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>

describe("background shells", () => {
  it.live("start: id, launch message, status and output files; completion: status, notification with the tail", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const shells = yield* BackgroundShells
        const bg = yield* startBackground("printf '\\033[32mgreen\\033[0m\\n'; printf 'progress 1\\rprogress 2\\n'; echo done")
        assert.match(bg.id, /^bg_[0-9a-f]{8}$/)
        assert.strictEqual(bg.statusPath, bg.outputPath.replace(/\.output$/, ".status"))
        assert.strictEqual(
          bg.text,
          [
            "Background shell started.",
            `id: ${bg.id}`,
            `pid: ${bg.pid}`,
            `output file: ${bg.outputPath}`,
            `status file: ${bg.statusPath}`,
            "To check whether this process is still running, Read the status file (status: running|completed|failed|cancelled). Do NOT infer liveness from the output file: programs often block-buffer stdout when not attached to a TTY, so an empty output file is normal while the process is alive (for live output, re-run with e.g. `python -u` or `stdbuf -oL`).",
            `To inspect: read the output file directly to view the captured output. To stop it, call task_stop with task_id "${bg.id}"; to answer a prompt or drive a REPL, call send_message with task_id "${bg.id}" (the message is written to its stdin followed by a newline). A <task-notification> arrives when it finishes.`
          ].join("\n")
        )
        assert.strictEqual(bg.display, `Background shell ${bg.id} started (pid ${bg.pid}).`)
        const settled = yield* shells.await(bg.id)
        assert.strictEqual(Option.getOrThrow(settled).status, "completed")
        assert.strictEqual(fs.readFileSync(bg.outputPath, "utf8"), "green\nprogress 1\nprogress 2\ndone\n")
        const st = status(bg.statusPath)
        assert.strictEqual(st["status"], "completed")
        assert.strictEqual(st["exitCode"], 0)
        assert.strictEqual(st["pid"], bg.pid)
        assert.match(String(st["endTime"]), /^\d{4}-\d\d-\d\dT/)
        assert.strictEqual(fs.statSync(bg.statusPath).mode & 0o777, 0o600)
        assert.strictEqual(fs.statSync(bg.outputPath).mode & 0o777, 0o600)
        const [note] = yield* shells.drainNotifications
        assert.strictEqual(note!.status, "completed")
        assert.include(note!.text, `<task-id>${bg.id}</task-id>\n<kind>shell</kind>\n<status>completed</status>`)
        assert.include(note!.text, "<exit-code>0</exit-code>")
        assert.include(note!.text, `<output-tail truncated="false">green\nprogress 1\nprogress 2\ndone\n</output-tail>`)
        assert.match(note!.display, /^Background shell ".*" completed\.$/)
        assert.deepStrictEqual(yield* shells.drainNotifications, [])
      })))

  it.live("a failing command settles as failed with the reason; notifications also arrive as a Stream", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const shells = yield* BackgroundShells
        const collected = yield* Effect.forkChild(shells.notifications.pipe(Stream.take(1), Stream.runCollect))
        yield* Effect.sleep("50 millis")
        const bg = yield* startBackground("echo oops >&2; exit 3")
        const [note] = yield* Fiber.join(collected)
        assert.strictEqual(note!.id, bg.id)
        assert.strictEqual(note!.status, "failed")
        assert.include(note!.text, "<exit-code>3</exit-code>\n<result>exited with code 3</result>")
        assert.strictEqual(status(bg.statusPath)["error"], "exited with code 3")
      })))

  it.live("task_stop kills the whole tree and reports; stopping again or an unknown id are errors", () =>
    withSession({ sandbox: UNSANDBOXED }, (s) =>
      Effect.gen(function*() {
        fs.writeFileSync(path.join(s.root, "tree.sh"), TREE_SCRIPT)
        const pidFile = path.join(s.root, "pids")
        const bg = yield* startBackground(`bash tree.sh ${pidFile}`)
        const pids = yield* readPids(pidFile, TREE_PIDS)
        const stop = yield* call("task_stop", { task_id: bg.id })
        assert.strictEqual(codeOf(stop), "Success")
        assert.strictEqual(
          textOf(stop),
          `Cancellation requested for background shell "${bg.id}". Final status: cancelled (also in its status file ${bg.statusPath}); captured output remains at ${bg.outputPath}.\nCommand: bash tree.sh ${pidFile}`
        )
        assert.deepStrictEqual(survivors(pids), [])
        assert.strictEqual(status(bg.statusPath)["status"], "cancelled")
        const again = yield* call("task_stop", { task_id: bg.id })
        assert.strictEqual(codeOf(again), "task_stop_not_running")
        assert.strictEqual(textOf(again), `Error: Background shell "${bg.id}" is not running (status: cancelled).`)
        const unknown = yield* call("task_stop", { task_id: "bg_00000000" })
        assert.strictEqual(codeOf(unknown), "task_stop_not_found")
        assert.strictEqual(textOf(unknown), "Error: No background task found with ID \"bg_00000000\".")
        const [note] = yield* (yield* BackgroundShells).drainNotifications
        assert.include(note!.text, "<status>cancelled</status>\n<summary>Shell command &quot;bash tree.sh")
        assert.include(note!.text, "&quot; was cancelled.</summary>")
      })), 20_000)

  it.live("send_message answers prompts and drives a REPL through stdin", () =>
    withSession({}, () =>
      Effect.gen(function*() {
        const shells = yield* BackgroundShells
        const bg = yield* startBackground(
          "echo 'name?'; read -r name; echo \"hello $name\"; while read -r line; do [ \"$line\" = quit ] && break; echo \"= $((line))\"; done; echo bye"
        )
        assert.isTrue(yield* eventually(() => fs.readFileSync(bg.outputPath, "utf8").includes("name?")))
        const sent = yield* call("send_message", { task_id: bg.id, message: "Ada" })
        assert.strictEqual(codeOf(sent), "Success")
        assert.strictEqual(textOf(sent), `Message written to the stdin of background task "${bg.id}" (4 bytes, newline included). Its response, if any, appears in its output file: ${bg.outputPath}.`)
        assert.isTrue(yield* eventually(() => fs.readFileSync(bg.outputPath, "utf8").includes("hello Ada")))
        yield* call("send_message", { task_id: bg.id, message: "6 * 7" })
        assert.isTrue(yield* eventually(() => fs.readFileSync(bg.outputPath, "utf8").includes("= 42")))
        yield* call("send_message", { task_id: bg.id, message: "quit" })
        assert.strictEqual(Option.getOrThrow(yield* shells.await(bg.id)).status, "completed")
        assert.strictEqual(fs.readFileSync(bg.outputPath, "utf8"), "name?\nhello Ada\n= 42\nbye\n")

        const late = yield* call("send_message", { task_id: bg.id, message: "anyone?" })
        assert.strictEqual(codeOf(late), "send_message_not_running")
        // the error, then the reminder of the shell's end that the session still owed the model
        const [error, reminder] = textOf(late).split("\n\n")
        assert.strictEqual(error, `Error: Background task "${bg.id}" is not running (status: completed). Cannot send messages to stopped tasks.`)
        assert.include(reminder, `<system-reminder>\nBackground task ${bg.id} ended: Shell command`)
        const unknown = yield* call("send_message", { task_id: "bg_deadbeef", message: "x" })
        assert.strictEqual(codeOf(unknown), "send_message_not_found")
        assert.strictEqual(textOf(unknown), "Error: No background task found with ID \"bg_deadbeef\".")
      })), 20_000)

  // Unsandboxed: in the sandbox, bubblewrap's own processes hold the stdin pipe too, so a command
  // that closes its stdin still "accepts" messages (they wait in the pipe until the sandbox ends).
  it.live("send_message to a command that closed its stdin is refused", () =>
    withSession({ sandbox: UNSANDBOXED }, () =>
      Effect.gen(function*() {
        const closed = yield* startBackground("exec 0<&-; sleep 5")
        yield* Effect.sleep("200 millis")
        const refused = yield* call("send_message", { task_id: closed.id, message: "x" })
        assert.strictEqual(codeOf(refused), "send_message_not_running")
        assert.include(textOf(refused), "is not accepting input")
        const tooLong = yield* call("send_message", { task_id: closed.id, message: "x".repeat(65_537) })
        assert.strictEqual(codeOf(tooLong), "invalid_tool_params")
        assert.strictEqual(codeOf(yield* call("send_message", { task_id: closed.id, message: "x".repeat(65_536) })), "send_message_not_running")
      })), 20_000)

  it.live("send_message asks first; task_stop does not; both are deferred", () =>
    withSession({ mode: "default" }, (s) =>
      Effect.gen(function*() {
        const registry = yield* ToolRegistry
        const send = yield* registry.ensure("send_message")
        const stop = yield* registry.ensure("task_stop")
        assert.isTrue(send.shouldDefer)
        assert.isTrue(stop.shouldDefer)
        const bg = yield* startBackground("read -r x; echo got $x")
        const before = (yield* s.requests).length
        yield* call("send_message", { task_id: bg.id, message: "hi" })
        const asked = (yield* s.requests).slice(before)
        assert.lengthOf(asked, 1)
        assert.deepStrictEqual(asked[0]!.details, { type: "info", title: "Confirm SendMessage", prompt: `Write to the stdin of background task ${bg.id} (read -r x; echo got $x):\nhi` })
        yield* (yield* BackgroundShells).await(bg.id)
        assert.strictEqual(codeOf(yield* call("task_stop", { task_id: bg.id })), "task_stop_not_running")
        assert.lengthOf((yield* s.requests).slice(before), 1) // task_stop did not ask
      })))

  it.live("keeps at most maxRetainedBackground finished entries", () =>
    withSession({ settings: { maxRetainedBackground: 2 } }, () =>
      Effect.gen(function*() {
        const shells = yield* BackgroundShells
        const ids: Array<string> = []
        for (let i = 0; i < 3; i++) {
          const bg = yield* startBackground(`echo ${i}`)
          yield* shells.await(bg.id)
          ids.push(bg.id)
        }
        assert.deepStrictEqual((yield* shells.list).map((s) => s.id), ids.slice(1))
        assert.strictEqual(codeOf(yield* call("task_stop", { task_id: ids[0]! })), "task_stop_not_found")
      })))

  it.live("caps the output file and says so", () =>
    withSession({ settings: { maxCapturedBytes: 1000 } }, () =>
      Effect.gen(function*() {
        const bg = yield* startBackground("seq 1 1000")
        yield* (yield* BackgroundShells).await(bg.id)
        const text = fs.readFileSync(bg.outputPath, "utf8")
        assert.isTrue(text.startsWith("1\n2\n3\n"))
        assert.isTrue(text.endsWith("\n[Output exceeded the maximum captured size of 1000 bytes; later output was discarded.]\n"))
        assert.strictEqual(Buffer.byteLength(text) - "\n[Output exceeded the maximum captured size of 1000 bytes; later output was discarded.]\n".length, 1000)
      })))

  it.live("closing the session kills every running background tree, and its log and status files go with the session", () =>
    Effect.gen(function*() {
      let pids: Array<number> = []
      let statusPath = ""
      yield* withSession({ sandbox: UNSANDBOXED }, (s) =>
        Effect.gen(function*() {
          fs.writeFileSync(path.join(s.root, "tree.sh"), TREE_SCRIPT)
          const pidFile = path.join(s.root, "pids")
          const bg = yield* startBackground(`bash tree.sh ${pidFile}`)
          statusPath = bg.statusPath
          pids = yield* readPids(pidFile, TREE_PIDS)
          assert.lengthOf(survivors(pids), TREE_PIDS)
        }))
      assert.deepStrictEqual(survivors(pids), [])
      // Scratch of the session (docs/output-budgets.md): removed when it ends.
      assert.isFalse(fs.existsSync(statusPath))
      assert.isFalse(fs.existsSync(statusPath.replace(/\.status$/, ".output")))
    }), 20_000)

  // On pipes: under a PTY the job would be hung up when the command's shell exits (see docs/tools-shell.md).
  // Unsandboxed: in the sandbox the leftover dies with the command itself (its pid namespace ends).
  it.live("a foreground command's leftover background process dies with the session", () =>
    Effect.gen(function*() {
      let pid = 0
      yield* withSession({ settings: { pty: "off" }, sandbox: UNSANDBOXED }, (s) =>
        Effect.gen(function*() {
          const r = yield* call("run_shell_command", { command: `nohup sleep 1000 >/dev/null 2>&1 & echo $! > ${path.join(s.root, "pid")}` })
          assert.strictEqual(codeOf(r), "Success")
          pid = Number(fs.readFileSync(path.join(s.root, "pid"), "utf8"))
          assert.lengthOf(survivors([pid]), 1)
        }))
      assert.deepStrictEqual(survivors([pid]), [])
    }))
})

describe("notification texts", () => {
  it("formats the task notification with escaping, truncation and optional fields", () => {
    const long = `echo ${"x".repeat(600)}`
    assert.strictEqual(
      taskNotification({
        id: "bg_12345678",
        status: "failed",
        command: "grep '<a>' && echo \"b\" \x07",
        cwd: "/w",
        pid: 42,
        exitCode: 2,
        error: "exited with code 2",
        outputPath: "/o/shell-bg_12345678.output",
        tail: { text: "line & <tag>\x1b[0m", truncated: true }
      }),
      [
        "<task-notification>",
        "<task-id>bg_12345678</task-id>",
        "<kind>shell</kind>",
        "<status>failed</status>",
        "<summary>Shell command &quot;grep &#39;&lt;a&gt;&#39; &amp;&amp; echo &quot;b&quot; &quot; failed.</summary>".replace(/&#39;/g, "'"),
        "<command>grep '&lt;a&gt;' &amp;&amp; echo &quot;b&quot; </command>",
        "<cwd>/w</cwd>",
        "<pid>42</pid>",
        "<exit-code>2</exit-code>",
        "<result>exited with code 2</result>",
        "<output-tail truncated=\"true\">line &amp; &lt;tag&gt;[0m</output-tail>",
        "<output-file>/o/shell-bg_12345678.output</output-file>",
        "</task-notification>"
      ].join("\n")
    )
    const truncated = taskNotification({ id: "bg_1", status: "completed", command: long, cwd: "/", outputPath: "/o", tail: undefined })
    assert.include(truncated, `<command truncated="true">${long.slice(0, 500)}</command>`)
    assert.include(truncated, `<summary>Shell command &quot;${long.slice(0, 77)}...&quot; completed.</summary>`)
    assert.include(truncated, "<output-tail error=\"unreadable\" />")
    assert.notInclude(truncated, "<pid>")
  })

  it("cuts the tail on a UTF-8 boundary and reads it from a file", () => {
    const bytes = Buffer.from("ab€cd", "utf8") // € is 3 bytes
    assert.deepStrictEqual(utf8Tail(bytes, 4), { text: "cd", truncated: true })
    assert.deepStrictEqual(utf8Tail(bytes, 5), { text: "€cd", truncated: true })
    assert.deepStrictEqual(utf8Tail(bytes, 7), { text: "ab€cd", truncated: false })
    const file = path.join(fs.mkdtempSync("/tmp/tw-tail-"), "x.output")
    fs.writeFileSync(file, `${"é".repeat(5000)}end`)
    const tail = readFileTail(file)!
    assert.isTrue(tail.truncated)
    assert.isTrue(tail.text.endsWith("end"))
    assert.isAtMost(Buffer.byteLength(tail.text), 8192)
    assert.notInclude(tail.text, "\ufffd")
    assert.isUndefined(readFileTail(path.join(file, "missing")))
  })

  it("derives the status file path", () => {
    assert.strictEqual(statusFilePathFor("/a/x.output"), "/a/x.status")
    assert.strictEqual(statusFilePathFor("/a/x.log"), "/a/x.log.status")
  })
})
