/**
 * An agent loop with a real model: toolwright's tools over the current directory, driven by any
 * OpenAI-compatible endpoint (see ./openai-compatible.ts for the environment variables).
 *
 *   OPENAI_API_KEY=… npx tsx examples/agent-loop.ts "Find the TODOs in src and list them"
 *
 * Every tool call goes through the session's scheduler: validation, the permission policy, the
 * approver below, and the output budgets. The calls of one model step run as one batch.
 *
 * In your own project import from the package: `toolwright` and `toolwright/effect-ai`.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
import { Approver, type ApprovalRequest } from "../src/run/approver.js"
import * as SessionLayer from "../src/run/sessionLayer.js"
import { type AgentStep, runAgent, SessionToolkit } from "../src/serve/effectAi.js"
import * as OpenAiCompatible from "./openai-compatible.js"

const task = process.argv.slice(2).join(" ") || "Summarise what this project does, reading only what you need."

// Approvals: this example allows reads and searches (the policy does not ask for them) and refuses
// anything that would need a person. Plug in a UI, a prompt or a policy of your own here.
const approver = Approver.layerCallback((request: ApprovalRequest) =>
  Effect.as(
    Console.error(`(refused: ${request.details.title})`),
    { _tag: "cancel" as const, reason: "this example runs without a person to approve changes" }
  )
)

// One session: the workspace, the built-in tools, the registry, the scheduler; plus the toolkit door.
const session = SessionToolkit.layer.pipe(
  Layer.provideMerge(SessionLayer.layer({ roots: [process.cwd()], mode: "default" })),
  Layer.provide(approver)
)

const logStep = (step: AgentStep) =>
  Effect.forEach(step.results, (result) =>
    Console.error(
      result._tag === "Success"
        ? `  ✓ ${result.name}`
        : result._tag === "Failure"
        ? `  ✗ ${result.name} [${result.code}]`
        : `  ⊘ ${result.name}`
    ), { discard: true })

const program = Effect.gen(function*() {
  const result = yield* runAgent({
    prompt: [
      { role: "system", content: "You are a careful coding agent. Use the tools to inspect the workspace before answering." },
      { role: "user", content: task }
    ],
    maxSteps: 20,
    onStep: logStep
  })
  yield* Console.log(result.text)
  if (result.stoppedBy === "max-steps") yield* Console.error(`(stopped after ${result.steps.length} steps)`)
})

program.pipe(Effect.provide(Layer.merge(session, OpenAiCompatible.layer)), NodeRuntime.runMain)
