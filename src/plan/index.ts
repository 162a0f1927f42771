/**
 * The planning tools: `todo_write` (the session's todo list), the workspace's durable task board
 * (`task_create`, `task_update`, `task_list`) and `ask_user_question`.
 *
 * @since 0.1.0
 */
export { askUserQuestionDeclaration } from "./askUserQuestion.decl.js"
export { taskCreateDeclaration } from "./taskCreate.decl.js"
export { taskListDeclaration } from "./taskList.decl.js"
export { taskUpdateDeclaration } from "./taskUpdate.decl.js"
export { todoWriteDeclaration } from "./todoWrite.decl.js"
export { makeTodoWrite, TodoWriteParams, type TodoWriteData } from "./todoWrite.js"
export { detectTodoChanges, TODO_STATUSES, TodoItem, TodoList, TodoMessages, type TodoChanges, type TodoStatus } from "./todos.js"
export { makeTaskCreate, TaskCreateParams } from "./taskCreate.js"
export { makeTaskUpdate, TaskUpdateParams, type TaskUpdateData } from "./taskUpdate.js"
export { makeTaskList, TaskListParams, type TaskListData } from "./taskList.js"
export {
  Board,
  createTask,
  listTasks,
  MAX_DESCRIPTION_CHARS,
  MAX_SUBJECT_CHARS,
  shortestCycleThrough,
  Task,
  TASK_STATUSES,
  type TaskFilter,
  type TaskPatch,
  type TaskStatus,
  type UpdateOutcome,
  type UpdateRefusal,
  updateTask
} from "./board.js"
export { BOARD_FILE, BOARD_LOCK_FILE, makeTaskBoardStore, TaskBoardSource, type TaskBoardStore, taskBoardStoreFor } from "./boardStore.js"
export { BOARDS_TABLE, makeSqlTaskBoardStore, migrateTaskBoards } from "./sqlBoardStore.js"
export { LOCK_STALE_MS, LOCK_TIMEOUT_MS, type LockHolder, type LockOptions, LockTimeout, withFileLock } from "./lock.js"
export {
  AskTexts,
  type AskUserQuestionData,
  AskUserQuestionParams,
  formatAnswers,
  makeAskUserQuestion,
  MAX_OPTIONS,
  MAX_QUESTIONS,
  MIN_OPTIONS,
  MIN_QUESTIONS
} from "./askUserQuestion.js"
