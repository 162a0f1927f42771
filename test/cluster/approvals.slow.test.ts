/**
 * Approvals through the cluster: a runner process of the built CLI in `--approval default` on a
 * private PostgreSQL, a front in this process. A call that needs a person is asked through the
 * front that sent its batch (the `approve` given with it) and the answer goes back to that batch:
 * proceed, cancel, an amended edit, `ask_user_question`'s answers; no `approve` is an unasked
 * cancel; a front interrupted while an approval is pending ends the call on the runner; an answer
 * is applied once, to a pending approval only; two batches of one session each get their own.
 */
import { assert, layer } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Context, Deferred, Effect, Fiber, Layer, Option, Ref } from "effect"
import {
  type ApprovalRequestWire,
  ClusterFront,
  Front,
  toApprovalRequest,
  ToolSession,
  type WireBatch
} from "../../src/cluster/index.js"
import { approvalForm } from "../../src/serve/elicitation.js"
import type { ConfirmationOutcome } from "../../src/tool/index.js"
import { type McpResult, resultOf, startRunner, type TestRunner, textOf } from "../support/cluster.js"
import { startPostgres } from "../support/postgres.js"
import { tempDir } from "../support/serve.js"


/** How long the runner waits for an answer (the never-answering front's test waits this long). */
const APPROVAL_WAIT_SECONDS = 15

/** PostgreSQL, a workspace, one runner in `default` approval mode, a front and a raw entity client. */
class World extends Context.Service<World, {
  readonly root: string
  readonly runner: TestRunner
  readonly front: ClusterFront["Service"]
  readonly clientFor: Effect.Success<typeof ToolSession.client>
}>()("test/ClusterApprovals") {
  static readonly layer = Layer.effect(
    World,
    Effect.gen(function*() {
      const pg = yield* startPostgres()
      const root = yield* tempDir("tw-approve-root-")
      const stateDir = yield* tempDir("tw-approve-state-")
      const runner = yield* startRunner({
        sqlUrl: pg.url,
        root,
        stateDir,
        extraArgs: ["--approval", "default", "--approval-wait-seconds", String(APPROVAL_WAIT_SECONDS)]
      })
      const sharding = yield* Layer.build(Front.clientLayer({ sqlUrl: pg.url }))
      const front = yield* Effect.provide(Front.make(), sharding)
      const clientFor = yield* Effect.provide(ToolSession.client, sharding)
      // The runner takes its shards within seconds of joining.
      for (let i = 0; ; i++) {
        const listed = yield* Effect.exit(front.listTools("warm-up"))
        if (listed._tag === "Success") break
        if (i > 60) assert.fail("the runner never took the session")
        yield* Effect.sleep("1 second")
      }
      return { root, runner, front, clientFor }
    })
  )
}

let seq = 0
const callId = () => `c${++seq}`

/** A session with a read file, ready for an edit that needs approval in `default` mode. */
const sessionWithFile = (name: string, content: string) =>
  Effect.gen(function*() {
    const { root, front } = yield* World
    const session = `${name}-${++seq}`
    fs.writeFileSync(path.join(root, `${session}.txt`), content)
    const read = yield* front.callBatch(session, [{ callId: callId(), name: "read_file", args: { file_path: `${session}.txt` } }])
    assert.notStrictEqual(resultOf(read).isError, true, textOf(resultOf(read)))
    const file = path.join(root, `${session}.txt`)
    return { session, file, read: () => fs.readFileSync(file, "utf8") }
  })

const editCall = (file: string, old_string: string, new_string: string) => ({
  callId: callId(),
  name: "edit",
  args: { file_path: file, old_string, new_string }
})

/** An approver that records what it was asked and answers `outcome`. */
const answering = (outcome: ConfirmationOutcome) =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<ApprovalRequestWire>>([])
    const approve = (request: ApprovalRequestWire) => Effect.as(Ref.update(asked, (all) => [...all, request]), outcome)
    return { approve, asked: Ref.get(asked) }
  })

layer(World.layer, { timeout: 180_000, excludeTestServices: true })("approvals through the cluster", (it) => {
  it.effect("an edit that needs approval asks the front with its diff; proceed applies it", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const { session, file, read } = yield* sessionWithFile("proceed", "hello world\n")
      const { approve, asked } = yield* answering({ _tag: "proceed_once" })
      const batch = yield* front.callBatch(session, [editCall(file, "hello", "bye")], { approve })
      assert.notStrictEqual(resultOf(batch).isError, true, textOf(resultOf(batch)))
      assert.strictEqual(read(), "bye world\n")
      const [request] = yield* asked
      assert.strictEqual(request!.tool.name, "edit")
      assert.strictEqual(request!.details.type, "edit")
      const details = request!.details as Extract<ApprovalRequestWire["details"], { type: "edit" }>
      assert.include(details.fileDiff, "-hello world")
      assert.include(details.fileDiff, "+bye world")
      assert.deepStrictEqual(details.amendable, { param: "new_string", proposal: "bye" })
      // The front can ask with the serve door's elicitation form as is.
      assert.include(approvalForm(toApprovalRequest(request!)).message, "+bye world")
    }))

  it.effect("cancel leaves the file unchanged and the call comes back cancelled", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const { session, file, read } = yield* sessionWithFile("cancel", "hello world\n")
      const { approve, asked } = yield* answering({ _tag: "cancel", reason: "not today" })
      const result = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "bye")], { approve }))
      assert.strictEqual(read(), "hello world\n")
      assert.isTrue(result.isError)
      assert.strictEqual(result._meta?.["toolwright/cancelled"], true)
      assert.include(textOf(result), "The user declined this edit call: not today")
      assert.lengthOf(yield* asked, 1)
    }))

  it.effect("an amended approval applies the person's new_string, with the userModified note", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const { session, file, read } = yield* sessionWithFile("amend", "hello world\n")
      const { approve } = yield* answering({ _tag: "proceed_once", amended: { param: "new_string", value: "adieu" } })
      const result = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "bye")], { approve }))
      assert.notStrictEqual(result.isError, true, textOf(result))
      assert.strictEqual(read(), "adieu world\n")
      assert.include(textOf(result), "The user modified your proposal")
      assert.isDefined(result._meta?.["toolwright/userModified"])
    }))

  it.effect("ask_user_question's answers travel back; without approve the questions go unasked", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const session = `ask-${++seq}`
      const questions = [{
        question: "Which colour?",
        header: "Colour",
        options: [{ label: "Blue", description: "calm" }, { label: "Red", description: "bold" }],
        multiSelect: false
      }]
      const { approve, asked } = yield* answering({ _tag: "proceed_once", answers: { "0": "Blue" } })
      const answered = resultOf(yield* front.callBatch(session, [{ callId: callId(), name: "ask_user_question", args: { questions } }], { approve }))
      assert.strictEqual(textOf(answered), "User has provided the following answers:\n\n**Colour**: Blue")
      const [request] = yield* asked
      assert.strictEqual(request!.details.type, "ask_user_question")
      assert.deepStrictEqual((request!.details as { questions: unknown }).questions, questions)

      const unasked = resultOf(yield* front.callBatch(session, [{ callId: callId(), name: "ask_user_question", args: { questions } }]))
      assert.include(textOf(unasked), "Cannot ask user questions in non-interactive mode")
    }))

  it.effect("without approve, a call that needs approval is cancelled as unasked (the host cannot ask)", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const { session, file, read } = yield* sessionWithFile("unasked", "hello world\n")
      const result = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "bye")]))
      assert.strictEqual(read(), "hello world\n")
      assert.strictEqual(result._meta?.["toolwright/cancelled"], true)
      assert.include(textOf(result), "This edit call needs approval, but no one could be asked (the host cannot ask for approval)")
    }))

  it.effect("a front interrupted while its approval is pending: the runner's call ends cancelled, nothing applied, the session goes on", () =>
    Effect.gen(function*() {
      const { front, runner } = yield* World
      const { session, file, read } = yield* sessionWithFile("gone", "hello world\n")
      const asked = yield* Deferred.make<void>()
      const pending = yield* Effect.forkChild(
        front.callBatch(session, [editCall(file, "hello", "bye")], { approve: () => Effect.andThen(Deferred.succeed(asked, undefined), Effect.never) })
      )
      yield* Deferred.await(asked)
      yield* Fiber.interrupt(pending)
      // The runner hears of it and ends the call (well before the approval wait would).
      for (let i = 0; !runner.stderr().includes("was pending when its front went away"); i++) {
        if (i > 100) assert.fail(`the runner did not end the call:\n${runner.stderr()}`)
        yield* Effect.sleep("100 millis")
      }
      assert.include(runner.stderr(), `of session "${session}" was pending when its front went away: the edit call is cancelled`)
      assert.strictEqual(read(), "hello world\n")
      // The entity keeps serving: the next batch is asked and applied.
      const { approve } = yield* answering({ _tag: "proceed_once" })
      const next = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "ciao")], { approve }))
      assert.notStrictEqual(next.isError, true, textOf(next))
      assert.strictEqual(read(), "ciao world\n")
    }))

  it.effect("an answer is applied once, to a pending approval: a second or unknown answer is approval_not_pending", () =>
    Effect.gen(function*() {
      const { clientFor } = yield* World
      const { session, file, read } = yield* sessionWithFile("stale", "hello world\n")
      const client = clientFor(session)
      const unknown = yield* Effect.flip(client.Answer({ approvalId: "no-such-approval", outcome: { _tag: "proceed_once" } }))
      assert.strictEqual(unknown._tag, "ApprovalNotPending")
      assert.strictEqual((unknown as { code?: string }).code, "approval_not_pending")
      assert.include(unknown.message, "The answer was not applied")

      const first = yield* client.CallBatch({ calls: [editCall(file, "hello", "bye")], canAsk: true })
      assert.strictEqual(first._tag, "ApprovalNeeded")
      const approvalId = (first as { approvalId: string }).approvalId
      assert.strictEqual((first as { waitMs: number }).waitMs, APPROVAL_WAIT_SECONDS * 1000)
      const done = yield* client.Answer({ approvalId, outcome: { _tag: "cancel", reason: "first answer wins" } })
      assert.strictEqual(done._tag, "BatchDone")
      const again = yield* Effect.flip(client.Answer({ approvalId, outcome: { _tag: "proceed_once" } }))
      assert.strictEqual(again._tag, "ApprovalNotPending")
      const abandoned = yield* Effect.flip(client.Abandon({ approvalId }))
      assert.strictEqual(abandoned._tag, "ApprovalNotPending")
      const batch = (done as { batch: WireBatch }).batch
      assert.include(textOf(resultOf(batch)), "first answer wins")
      assert.strictEqual(read(), "hello world\n")
    }))

  it.effect("two concurrent batches of one session each get their own approval", () =>
    Effect.gen(function*() {
      const { root, front } = yield* World
      const { session, file, read } = yield* sessionWithFile("pair", "hello one\n")
      fs.writeFileSync(path.join(root, "pair-two.txt"), "hello two\n")
      yield* front.callBatch(session, [{ callId: callId(), name: "read_file", args: { file_path: "pair-two.txt" } }])
      // Each approver waits until both were asked: both approvals are pending at once.
      const both = yield* Ref.make(0)
      const allAsked = yield* Deferred.make<void>()
      const answerAfterBoth = (outcome: ConfirmationOutcome, seen: Ref.Ref<ReadonlyArray<string>>) => (request: ApprovalRequestWire) =>
        Effect.gen(function*() {
          yield* Ref.update(seen, (all) => [...all, ...(request.locations ?? [])])
          if ((yield* Ref.updateAndGet(both, (n) => n + 1)) === 2) yield* Deferred.succeed(allAsked, undefined)
          yield* Deferred.await(allAsked)
          return outcome
        })
      const seenOne = yield* Ref.make<ReadonlyArray<string>>([])
      const seenTwo = yield* Ref.make<ReadonlyArray<string>>([])
      const [one, two] = yield* Effect.all([
        front.callBatch(session, [editCall(file, "hello", "bye")], { approve: answerAfterBoth({ _tag: "proceed_once" }, seenOne) }),
        front.callBatch(session, [editCall("pair-two.txt", "hello", "bye")], {
          approve: answerAfterBoth({ _tag: "cancel", reason: "only the first" }, seenTwo)
        })
      ], { concurrency: 2 }).pipe(Effect.timeoutOption("60 seconds"), Effect.map(Option.getOrThrow))
      assert.notStrictEqual(resultOf(one).isError, true, textOf(resultOf(one)))
      assert.include(textOf(resultOf(two)), "only the first")
      assert.strictEqual(read(), "bye one\n")
      assert.strictEqual(fs.readFileSync(path.join(root, "pair-two.txt"), "utf8"), "hello two\n")
      assert.deepStrictEqual(yield* Ref.get(seenOne), [file])
      assert.deepStrictEqual(yield* Ref.get(seenTwo), [path.join(root, "pair-two.txt")])
    }))

  it.effect("a front that never answers: the call is cancelled after the runner's approval wait", () =>
    Effect.gen(function*() {
      const { front } = yield* World
      const { session, file, read } = yield* sessionWithFile("silent", "hello world\n")
      const result = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "bye")], { approve: () => Effect.never }))
      assert.strictEqual(read(), "hello world\n")
      assert.strictEqual(result._meta?.["toolwright/cancelled"], true)
      assert.include(textOf(result), `nobody answered the approval request within ${APPROVAL_WAIT_SECONDS}s`)
      // The session goes on: the next approval is asked and answered.
      const { approve } = yield* answering({ _tag: "proceed_once" })
      const next = resultOf(yield* front.callBatch(session, [editCall(file, "hello", "bye")], { approve }))
      assert.notStrictEqual(next.isError, true, textOf(next))
      assert.strictEqual(read(), "bye world\n")
    }))
})
