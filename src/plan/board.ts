/**
 * The task board as data: tasks with positive integer ids, statuses, owners and blocking edges,
 * and the pure operations the task tools apply to it (create, update with the reference's rules in
 * the reference's order, list). Edges are kept reciprocal (`a.blocks ∋ b` ⇔ `b.blockedBy ∋ a`) and
 * the blocking graph acyclic.
 *
 * @since 0.1.0
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"

/** Statuses of a task on the board. @category constants */
export const TASK_STATUSES = ["pending", "in_progress", "completed"] as const

/** A task's status. @category models */
export type TaskStatus = (typeof TASK_STATUSES)[number]

/** Longest subject and activeForm (characters). @category constants */
export const MAX_SUBJECT_CHARS = 200

/** Longest description (characters). @category constants */
export const MAX_DESCRIPTION_CHARS = 10_000

/** Valid task ids: positive integers in canonical decimal. @category constants */
export const TASK_ID_PATTERN = /^[1-9]\d*$/

/** The message for an id that is not a positive integer. @category texts */
export const invalidTaskIdMessage = (id: string): string =>
  `Invalid task ID "${id}". Task IDs must be positive integers.`

/** One task. @category schemas */
export const Task = Schema.Struct({
  id: Schema.String,
  subject: Schema.String,
  description: Schema.String,
  activeForm: Schema.optionalKey(Schema.String),
  status: Schema.Literals(TASK_STATUSES),
  owner: Schema.optionalKey(Schema.String),
  blocks: Schema.Array(Schema.String),
  blockedBy: Schema.Array(Schema.String),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  createdAt: Schema.Finite,
  updatedAt: Schema.Finite
})

/** One task. @category models */
export type Task = typeof Task.Type

/** The whole board, as stored. @category schemas */
export const Board = Schema.Struct({
  version: Schema.Literal(1),
  /** The next id to hand out; ids are never reused, deleted ones included. */
  nextId: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  tasks: Schema.Array(Task)
})

/** The whole board. @category models */
export type Board = typeof Board.Type

/** A board with no tasks. @category constants */
export const emptyBoard: Board = { version: 1, nextId: 1, tasks: [] }

/** What `task_create` adds. @category models */
export interface NewTask {
  readonly subject: string
  readonly description: string
  readonly activeForm?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** Merges metadata: keys with `null` are removed; undefined when nothing is left. @category combinators */
export const mergeMetadata = (
  base: Readonly<Record<string, unknown>> | undefined,
  patch: Readonly<Record<string, unknown>> | undefined
): Record<string, unknown> | undefined => {
  if (patch === undefined) return base === undefined ? undefined : { ...base }
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return Object.keys(merged).length > 0 ? merged : undefined
}

/** Adds a task with the next id. @category operations */
export const createTask = (board: Board, input: NewTask, now: number): { readonly task: Task; readonly board: Board } => {
  const metadata = mergeMetadata(undefined, input.metadata)
  const task: Task = {
    id: String(board.nextId),
    subject: input.subject,
    description: input.description,
    ...(input.activeForm !== undefined ? { activeForm: input.activeForm } : {}),
    status: "pending",
    blocks: [],
    blockedBy: [],
    ...(metadata !== undefined ? { metadata } : {}),
    createdAt: now,
    updatedAt: now
  }
  return { task, board: { ...board, nextId: board.nextId + 1, tasks: [...board.tasks, task] } }
}

/** A change to one task (`task_update` params without the id). @category models */
export interface TaskPatch {
  readonly status?: TaskStatus | "deleted" | undefined
  /** Empty string unassigns. */
  readonly owner?: string | undefined
  readonly subject?: string | undefined
  readonly description?: string | undefined
  readonly activeForm?: string | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly addBlocks?: ReadonlyArray<string> | undefined
  readonly addBlockedBy?: ReadonlyArray<string> | undefined
}

/** Why an update was refused; `message` is the model-facing text. @category models */
export interface UpdateRefusal {
  readonly _tag: "NotFound" | "SelfEdge" | "MissingReferences" | "Cycle" | "NoOwner"
  readonly message: string
  /** For `Cycle`: the ids on the cycle, starting and ending with the updated task. */
  readonly cycle?: ReadonlyArray<string> | undefined
}

/** What an accepted update did. @category models */
export type UpdateOutcome =
  | { readonly _tag: "Deleted"; readonly id: string; readonly board: Board }
  | {
    readonly _tag: "Updated"
    readonly task: Task
    readonly board: Board
    /** addBlocks ids not linked because the task is completed (a completed task blocks nothing). */
    readonly skippedBlocks: ReadonlyArray<string>
  }

const byNumericId = (a: { readonly id: string }, b: { readonly id: string }) => Number(a.id) - Number(b.id)

const uniq = (items: Iterable<string>): Array<string> => Array.from(new Set(items))

/** The blocking graph (`a → b`: a blocks b) from both sides of every edge. */
const graphOf = (tasks: ReadonlyArray<Task>): Map<string, Set<string>> => {
  const graph = new Map<string, Set<string>>(tasks.map((t) => [t.id, new Set<string>()]))
  const link = (from: string, to: string) => {
    if (graph.has(from) && graph.has(to)) graph.get(from)!.add(to)
  }
  for (const t of tasks) {
    t.blocks.forEach((b) => link(t.id, b))
    t.blockedBy.forEach((b) => link(b, t.id))
  }
  return graph
}

/**
 * The shortest cycle through `start` in a blocking graph, as ids from `start` back to `start`,
 * or undefined when there is none.
 *
 * @category graph
 */
export const shortestCycleThrough = (
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  start: string
): ReadonlyArray<string> | undefined => {
  const parent = new Map<string, string>()
  const queue: Array<string> = [start]
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!
    for (const next of graph.get(node) ?? []) {
      if (next === start) {
        // walk back from `node` to `start` through the BFS parents
        const back: Array<string> = []
        for (let at: string | undefined = node; at !== undefined && at !== start; at = parent.get(at)) back.push(at)
        return [start, ...back.reverse(), start]
      }
      if (!parent.has(next) && next !== start) {
        parent.set(next, node)
        queue.push(next)
      }
    }
  }
  return undefined
}

const refuse = (tag: UpdateRefusal["_tag"], message: string, cycle?: ReadonlyArray<string>) =>
  Result.fail<UpdateRefusal>({ _tag: tag, message, ...(cycle ? { cycle } : {}) })

/**
 * Applies a patch with the reference's rules, in order: delete → not found → self-edge → missing
 * references → cycle → in_progress needs an owner (`caller` is assigned when none is given; an
 * explicit empty owner is refused) → fields, metadata merge and reciprocal edges (`addBlocks` is
 * not linked when the task ends up completed).
 *
 * @category operations
 */
export const updateTask = (
  board: Board,
  id: string,
  patch: TaskPatch,
  caller: string,
  now: number
): Result.Result<UpdateOutcome, UpdateRefusal> => {
  const current = board.tasks.find((t) => t.id === id)
  if (patch.status === "deleted") {
    if (current === undefined) return refuse("NotFound", `Task #${id} not found.`)
    const tasks = board.tasks.filter((t) => t.id !== id).map((t) =>
      t.blocks.includes(id) || t.blockedBy.includes(id)
        ? { ...t, blocks: t.blocks.filter((b) => b !== id), blockedBy: t.blockedBy.filter((b) => b !== id), updatedAt: now }
        : t
    )
    return Result.succeed({ _tag: "Deleted", id, board: { ...board, tasks } })
  }
  if (current === undefined) return refuse("NotFound", `Task #${id} not found.`)
  const addBlocks = uniq(patch.addBlocks ?? [])
  const addBlockedBy = uniq(patch.addBlockedBy ?? [])
  if (addBlocks.includes(id) || addBlockedBy.includes(id)) {
    return refuse("SelfEdge", `Cannot update task #${id}: a task cannot block or be blocked by itself.`)
  }
  const known = new Set(board.tasks.map((t) => t.id))
  const missing = uniq([...addBlocks, ...addBlockedBy].filter((ref) => !known.has(ref))).sort((a, b) => Number(a) - Number(b))
  if (missing.length > 0) {
    return refuse("MissingReferences", `Cannot update task #${id}: referenced task(s) ${missing.map((m) => `#${m}`).join(", ")} not found.`)
  }
  const graph = graphOf(board.tasks)
  addBlocks.forEach((b) => graph.get(id)!.add(b))
  addBlockedBy.forEach((b) => graph.get(b)!.add(id))
  const cycle = shortestCycleThrough(graph, id)
  if (cycle !== undefined) {
    return refuse(
      "Cycle",
      `Cannot update task #${id}: this would create a dependency cycle (${cycle.map((c) => `#${c}`).join(" → ")}).`,
      cycle
    )
  }
  let owner = patch.owner !== undefined ? patch.owner : current.owner
  if (patch.status === "in_progress" && (owner === undefined || owner === "")) {
    if (patch.owner === "") {
      return refuse("NoOwner", `Cannot move task #${id} to in_progress without an owner. Specify the "owner" parameter.`)
    }
    owner = caller
  }
  const status = patch.status ?? current.status
  const linkedBlocks = status === "completed" ? [] : addBlocks
  const skippedBlocks = status === "completed" ? addBlocks : []
  const metadata = mergeMetadata(current.metadata, patch.metadata)
  const { activeForm: _a, metadata: _m, owner: _o, ...rest } = current
  const activeForm = patch.activeForm ?? current.activeForm
  const updated: Task = {
    ...rest,
    subject: patch.subject ?? current.subject,
    description: patch.description ?? current.description,
    ...(activeForm !== undefined ? { activeForm } : {}),
    status,
    ...(owner !== undefined && owner !== "" ? { owner } : {}),
    blocks: uniq([...current.blocks, ...linkedBlocks]),
    blockedBy: uniq([...current.blockedBy, ...addBlockedBy]),
    ...(metadata !== undefined ? { metadata } : {}),
    updatedAt: now
  }
  const tasks = board.tasks.map((t) => {
    if (t.id === id) return updated
    const blockedByMe = linkedBlocks.includes(t.id) && !t.blockedBy.includes(id)
    const blocksMe = addBlockedBy.includes(t.id) && !t.blocks.includes(id)
    if (!blockedByMe && !blocksMe) return t
    return {
      ...t,
      blockedBy: blockedByMe ? [...t.blockedBy, id] : t.blockedBy,
      blocks: blocksMe ? [...t.blocks, id] : t.blocks,
      updatedAt: now
    }
  })
  return Result.succeed({ _tag: "Updated", task: updated, board: { ...board, tasks }, skippedBlocks })
}

/** The result text of an update. @category texts */
export const updatedText = (outcome: Extract<UpdateOutcome, { _tag: "Updated" }>): string => {
  const { task, skippedBlocks } = outcome
  const head = `Task #${task.id} updated (status: ${task.status}${task.owner !== undefined ? `, owner: ${task.owner}` : ""}).`
  return skippedBlocks.length === 0
    ? head
    : `${head} Not linked as blocked by it: ${skippedBlocks.map((b) => `#${b}`).join(", ")} (a completed task blocks nothing).`
}

/** Filters of `task_list`. @category models */
export interface TaskFilter {
  readonly status?: TaskStatus | undefined
  readonly owner?: string | undefined
  /** Only tasks blocked by this task id. */
  readonly blockedBy?: string | undefined
}

/** The tasks that pass the filter, by id. @category operations */
export const listTasks = (board: Board, filter: TaskFilter): ReadonlyArray<Task> =>
  board.tasks
    .filter((t) =>
      (filter.status === undefined || t.status === filter.status) &&
      (filter.owner === undefined || t.owner === filter.owner) &&
      (filter.blockedBy === undefined || t.blockedBy.includes(filter.blockedBy))
    )
    .slice()
    .sort(byNumericId)

/** The ids of the tasks that block `task` and are not completed yet. @category operations */
export const openBlockers = (board: Board, task: Task): ReadonlyArray<string> => {
  const done = new Set(board.tasks.filter((t) => t.status === "completed").map((t) => t.id))
  return task.blockedBy.filter((b) => !done.has(b)).slice().sort((a, b) => Number(a) - Number(b))
}

/** One `task_list` line: `#3 [pending] @alice — Write the docs (blocked by #1)`. @category texts */
export const taskLine = (board: Board, task: Task): string => {
  const blockers = openBlockers(board, task)
  return `#${task.id} [${task.status}]${task.owner !== undefined ? ` @${task.owner}` : ""} — ${task.subject}` +
    (blockers.length > 0 ? ` (blocked by ${blockers.map((b) => `#${b}`).join(", ")})` : "")
}
