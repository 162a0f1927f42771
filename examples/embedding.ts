/**
 * The code of docs/embedding.md, type-checked in CI (`npm run check`). A test checks that every
 * code block of the doc appears here verbatim (import lines aside: the doc imports from the
 * package, `toolwright` and `toolwright/effect-ai`; this file from ../src).
 */
import { Console, Duration, Effect, Layer, ManagedRuntime, Schema, Stream } from "effect"
import {
  Approver,
  BuiltinTools,
  defineTool,
  ExecutionFailed,
  Kind,
  makeRecordingApprover,
  Output,
  PathParam,
  progress,
  Registry,
  Scheduler,
  SessionLayer,
  streamResult,
  textResult,
  ToolHooks
} from "../src/index.js"
import { runAgent, SessionToolkit } from "../src/serve/effectAi.js"

// --- a session ---
const session = SessionLayer.layer({
  roots: ["/home/me/src/app"],          // relative paths in calls resolve against the first root
  mode: "default",                       // plan | default | auto-edit | yolo
  rules: [
    { decision: "allow", pattern: "run_shell_command(npm test*)" },
    { decision: "deny", pattern: "edit(secrets/**)" }
  ]
}).pipe(Layer.provide(Approver.layerFixed({ _tag: "cancel", reason: "no one to ask" })))

// --- run calls ---
const readThenEdit = Effect.gen(function*() {
  const scheduler = yield* Scheduler
  const read = yield* scheduler.runBatch([
    { callId: "1", name: "read_file", args: { file_path: "src/app.ts" } },
    { callId: "2", name: "grep_search", args: { pattern: "TODO" } }
  ])
  for (const result of read.results) {
    if (result._tag === "Success") yield* Console.log(result.text)
    else if (result._tag === "Failure") yield* Console.log(`${result.name} failed [${result.code}]: ${result.message}`)
  }
  const edit = yield* scheduler.runOne({
    callId: "3",
    name: "edit",
    args: { file_path: "src/app.ts", old_string: "'hello'", new_string: "'hi'" }
  })
  return edit
})

export const main = readThenEdit.pipe(Effect.provide(session))

// --- from code that is not Effect ---
export const fromPromises = async () => {
  const runtime = ManagedRuntime.make(session)
  const batch = await runtime.runPromise(
    Scheduler.use((scheduler) => scheduler.runBatch([{ callId: "1", name: "glob", args: { pattern: "**/*.md" } }]))
  )
  await runtime.dispose()   // kills the session's processes, closes its MCP connections
  return batch.results
}

// --- approvers ---
export const askTheUi = (show: (title: string, body: string) => Promise<"once" | "always" | "no">) =>
  Approver.layerCallback((request) =>
    Effect.promise(() =>
      show(request.details.title, request.details.type === "edit" ? request.details.fileDiff : request.description)
    ).pipe(
      Effect.map((answer) =>
        answer === "once"
          ? { _tag: "proceed_once" as const }
          : answer === "always"
          ? { _tag: "proceed_always" as const }
          : { _tag: "cancel" as const, reason: "declined in the UI" }
      )
    )
  )

export const approvalsAreRecorded = Effect.gen(function*() {
  const recording = yield* makeRecordingApprover([{ _tag: "proceed_once" }, { _tag: "cancel", reason: "no" }])
  const layer = SessionLayer.layer({ roots: ["/tmp/work"] }).pipe(Layer.provide(Layer.succeed(Approver, recording.approver)))
  yield* Effect.provide(readThenEdit, layer)
  return (yield* recording.requests).map((r) => r.details.type)
})

// --- hooks ---
const hooks = ToolHooks.layer({
  beforeCall: (invocation) =>
    Effect.succeed(
      invocation.tool.name === "run_shell_command" && invocation.description.includes("deploy")
        ? { _tag: "Block" as const, reason: "deploys go through CI" }
        : { _tag: "Continue" as const }
    ),
  afterCall: ({ invocation, outcome }) => Effect.logInfo(`${invocation.tool.name}: ${outcome}`)
})
export const withHooks = SessionLayer.layer({ roots: ["/home/me/src/app"], hooks })

// --- your own tool ---
export const wordCount = defineTool({
  name: "word_count",
  displayName: "WordCount",
  description: "Counts the words of a text file in the workspace. Use it instead of reading a large file just to count.",
  kind: Kind.Read,
  params: Schema.Struct({ file_path: PathParam("The file to count, absolute or relative to the workspace root") }),
  invoke: (params) =>
    Effect.succeed({
      description: `Count words in ${params.file_path}`,
      execute: () =>
        Effect.gen(function*() {
          const text = yield* Effect.tryPromise({
            try: () => import("node:fs/promises").then((fs) => fs.readFile(params.file_path, "utf8")),
            catch: () => new ExecutionFailed({ message: `Could not read ${params.file_path}; check the path with glob.` })
          })
          const words = text.split(/\s+/).filter(Boolean).length
          return textResult(`${words} words`, { data: { words } })
        })
    })
})

export const withMyTool = SessionLayer.layer({
  roots: ["/home/me/src/app"],
  tools: [{ name: "word_count", load: Effect.succeed(wordCount) }]
})

// called directly: typed params, typed success, typed errors, no policy or budget
export const direct = Effect.map(wordCount.call({ file_path: "README.md" }), (result) => result.data.words)

// --- a tool that holds a resource ---
const scopedWordCount: Registry.ToolFactory = {
  name: "word_count",
  idleTimeToLive: "10 minutes",   // optional: without it, kept until disabled, replaced or the session closes
  load: Effect.gen(function*() {
    // e.g. open a connection or start a server the tool talks to
    yield* Effect.acquireRelease(Effect.logInfo("word_count: opened"), () => Effect.logInfo("word_count: closed"))
    return wordCount
  })
}

export const withScopedTool = SessionLayer.layer({ roots: ["/home/me/src/app"], tools: [scopedWordCount] })

// --- observing tool-set changes ---
export const logToolSetChanges = Effect.gen(function*() {
  const registry = yield* Registry.ToolRegistry
  const changes = yield* registry.subscribe   // no change committed after this line is missed
  yield* changes.pipe(
    Stream.runForEach((change) =>
      Effect.flatMap(registry.toolSet, (now) =>
        Console.log(`v${change.version} ${change.reason} ${change.names.join(", ")}; v${now.version} has ${now.declarations.length} tools`)
      )
    ),
    Effect.forkScoped
  )
})

// --- replacing a built-in tool ---
// run_shell_command on a build machine: the same declaration (the model sees no difference),
// another implementation; the shell module is never imported and no local process runs
export const remoteShell = (run: (command: string) => Promise<string>) =>
  BuiltinTools.override({
    run_shell_command: {
      make: (declaration) =>
        Effect.succeed(defineTool({
          ...declaration,
          invoke: (params) =>
            Effect.succeed({
              description: `Run on the build machine: ${params.command}`,
              execute: () => Effect.map(Effect.promise(() => run(params.command)), (output) => textResult(output))
            })
        }))
    }
  })

export const withRemoteShell = (run: (command: string) => Promise<string>) =>
  SessionLayer.layer({ roots: ["/home/me/src/app"] }).pipe(Layer.provide(remoteShell(run)))

// --- consume a tool's output stream ---

const countTo = defineTool({
  name: "count_to",
  displayName: "CountTo",
  description: "Prints the numbers from 1 to n, one a line.",
  kind: Kind.Read,
  params: Schema.Struct({ n: Schema.Int }),
  invoke: (params) =>
    Effect.succeed({
      description: `Count to ${params.n}`,
      execute: () =>
        Effect.succeed(streamResult(
          Stream.range(1, params.n).pipe(Stream.map((i) => ({ type: "text" as const, text: `${i}\n` })))
        ))
    })
})

export const liveCount = Effect.gen(function*() {
  const scheduler = yield* Scheduler
  const batch = yield* scheduler.runBatch([{ callId: "c1", name: "count_to", args: { n: 1_000_000 } }], {
    // the live tap: every part, in order, as the pipeline takes it
    onPart: (callId, part) => (part.type === "text" && part.text === "500000\n" ? Console.log(`${callId} is half way`) : Effect.void)
  })
  return batch.results[0] // a <persisted-output> stub naming the saved file (6.9 MB, SHA-256)
}).pipe(Effect.provide(SessionLayer.layer({ roots: ["."], tools: [{ name: "count_to", load: Effect.succeed(countTo) }] })))

// --- live parts ---
const migrate = defineTool({
  name: "migrate",
  displayName: "Migrate",
  description: "Runs the migrations one by one.",
  kind: Kind.Other,
  params: Schema.Struct({ count: Schema.Int }),
  invoke: (params) =>
    Effect.succeed({
      description: `Run ${params.count} migrations`,
      execute: ({ emit }) =>
        Effect.gen(function*() {
          for (let i = 1; i <= params.count; i++) {
            yield* Effect.sleep(Duration.millis(100)) // the real work
            if (emit) yield* emit(progress(`migration ${i} applied`, { progress: i, total: params.count }))
          }
          return textResult(`${params.count} migrations applied`)
        })
    })
})

export const watchMigrations = Effect.gen(function*() {
  const scheduler = yield* Scheduler
  return yield* scheduler.runOne({ callId: "m1", name: "migrate", args: { count: 5 } }, {
    onPart: (callId, part, origin) =>
      part.type === "progress" ? Console.log(`${callId} [${origin}] ${part.message} (${part.progress}/${part.total})`) : Effect.void
  })
}).pipe(Effect.provide(SessionLayer.layer({ roots: ["."], tools: [{ name: "migrate", load: Effect.succeed(migrate) }] })))

// --- saved outputs ---
export const savedOutputs = Effect.gen(function*() {
  const store = yield* Output.OutputStore
  for (const saved of yield* store.list) {
    const page = yield* store.read(saved.id, { offsetLine: 0, limitLines: 200 })
    yield* Console.log(`${saved.toolName}: ${page.totalLines} lines, first page of ${page.lineCount}`)
  }
})

// --- an effect/ai agent loop ---
export const agentSession = SessionToolkit.layer.pipe(
  Layer.provideMerge(SessionLayer.layer({ roots: [process.cwd()] })),
  Layer.provide(Approver.layerFixed({ _tag: "proceed_once" }))
)

export const agent = runAgent({ prompt: "Make the failing test pass", maxSteps: 30 }).pipe(
  Effect.map((result) => result.text),
  Effect.provide(agentSession)
  // and a LanguageModel layer from your provider (see examples/agent-loop.ts)
)
