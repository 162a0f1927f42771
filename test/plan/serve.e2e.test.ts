import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { type ElicitRequest, ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { connectServe, tempDir } from "../support/serve.js"

const text = (result: object) =>
  ((result as { readonly content?: ReadonlyArray<{ readonly text?: string }> }).content ?? []).map((c) => c.text ?? "").join("\n")

const QUESTIONS = [
  {
    question: "Which date library should we use?",
    header: "Library",
    options: [{ label: "dayjs", description: "Small, immutable" }, { label: "luxon", description: "Time zones built in" }]
  },
  {
    question: "Which sign-in methods do you need?",
    header: "Auth",
    options: [
      { label: "OAuth", description: "Google and GitHub" },
      { label: "SAML", description: "Enterprise SSO" },
      { label: "Password", description: "Email and password" }
    ],
    multiSelect: true
  }
]

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  Effect.promise(() => client.callTool({ name, arguments: args }))

describe("toolwright serve: planning tools (the built CLI)", () => {
  it.live("ask_user_question goes to the user through elicitation in the default yolo mode, and the answers come back", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const client = yield* connectServe(["--root", root, "--state-dir", state], { elicitation: {} })
      const requests: Array<ElicitRequest["params"]> = []
      const replies: Array<ElicitResult> = [
        { action: "accept", content: { "0": "dayjs", "1": ["OAuth", "SAML"] } },
        { action: "decline" }
      ]
      client.setRequestHandler(ElicitRequestSchema, (request) => {
        requests.push(request.params)
        return replies.shift()!
      })

      const answered = yield* call(client, "ask_user_question", { questions: QUESTIONS })
      assert.isUndefined(answered.isError)
      assert.strictEqual(text(answered), "User has provided the following answers:\n\n**Library**: dayjs\n**Auth**: OAuth, SAML")

      const form = requests[0] as { message: string; requestedSchema: { properties: Record<string, any>; required: Array<string> } }
      assert.strictEqual(
        form.message,
        "Please answer the following question(s):\n\n1. Library: Which date library should we use?\n2. Auth: Which sign-in methods do you need?"
      )
      assert.deepStrictEqual(form.requestedSchema.required, ["0", "1"])
      assert.deepStrictEqual(form.requestedSchema.properties["0"].enum, ["dayjs", "luxon"])
      assert.strictEqual(form.requestedSchema.properties["1"].type, "array")
      assert.deepStrictEqual(form.requestedSchema.properties["1"].items.enum, ["OAuth", "SAML", "Password"])

      const declined = yield* call(client, "ask_user_question", { questions: QUESTIONS.slice(0, 1) })
      assert.isUndefined(declined.isError)
      assert.strictEqual(text(declined), "User declined to answer the questions.")
      assert.lengthOf(requests, 2)
    }), 60_000)

  it.live("two serve processes on one workspace write the task board at once without losing a task; without elicitation, questions get the non-interactive text", () =>
    Effect.gen(function*() {
      const root = yield* tempDir()
      const state = yield* tempDir()
      const args = ["--root", root, "--state-dir", state]
      const [a, b] = yield* Effect.all([connectServe(args), connectServe(args)], { concurrency: 2 })

      const names = (yield* Effect.promise(() => a.listTools())).tools.map((t) => t.name)
      for (const name of ["ask_user_question", "task_create", "task_list", "task_update", "todo_write"]) assert.include(names, name)
      const asked = yield* call(a, "ask_user_question", { questions: QUESTIONS })
      assert.isUndefined(asked.isError)
      assert.strictEqual(
        text(asked),
        "Cannot ask user questions in non-interactive mode without ACP support. Please run in interactive mode or enable ACP mode to use this tool."
      )
      const todos = yield* call(b, "todo_write", { todos: [{ id: "1", content: "Ship it", status: "in_progress" }] })
      assert.isTrue(text(todos).startsWith("Todos have been modified successfully."))
      const invalid = yield* call(b, "todo_write", { todos: [{ id: "1", content: "", status: "pending" }] })
      assert.isTrue(invalid.isError)
      assert.strictEqual(invalid._meta?.["toolwright/errorType"], "invalid_tool_params")
      assert.include(text(invalid), `Each todo must have a non-empty "content" string.`)

      const n = 12
      const creates = Array.from({ length: n }, (_, i) => [
        call(a, "task_create", { subject: `from A ${i}`, description: "written by process A" }),
        call(b, "task_create", { subject: `from B ${i}`, description: "written by process B" })
      ]).flat()
      const results = yield* Effect.all(creates, { concurrency: "unbounded" })
      assert.isTrue(results.every((r) => r.isError === undefined), results.map(text).join("\n"))
      const ids = results.map((r) => Number(/^Task #(\d+) created/.exec(text(r))![1]))
      assert.deepStrictEqual(ids.slice().sort((x, y) => x - y), Array.from({ length: 2 * n }, (_, i) => i + 1))

      const listed = text(yield* call(a, "task_list", {})).split("\n")
      assert.lengthOf(listed, 2 * n)
      assert.strictEqual(listed.filter((l) => l.includes("from A")).length, n)
      assert.strictEqual(listed.filter((l) => l.includes("from B")).length, n)
      const board = JSON.parse(fs.readFileSync(path.join(state, "tasks", "board.json"), "utf8"))
      assert.strictEqual(board.nextId, 2 * n + 1)
      assert.deepStrictEqual(fs.readdirSync(path.join(state, "tasks")), ["board.json"])
    }), 60_000)
})
