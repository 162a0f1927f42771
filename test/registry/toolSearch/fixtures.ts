import type { SearchableTool } from "../../../src/registry/toolSearch/index.js"

/** A built-in (or, with `serverName`, MCP) searchable tool for tests. */
export const tool = (
  name: string,
  description = "",
  searchHint?: string,
  serverName?: string
): SearchableTool => ({ name, displayName: name, description, searchHint, serverName })

/**
 * The deferred-and-hidden tools of reference §1.2 with the search hints given there (§1.2, §12.2, §12.3,
 * §13.6). The reference gives no descriptions, so `describe` supplies them (empty by default).
 */
export const deferredBuiltins = (describe: (name: string) => string = () => ""): Array<SearchableTool> => {
  const hints: Record<string, string | undefined> = {
    cron_create: undefined,
    cron_list: "cron list show active scheduled tasks loop jobs wakeups",
    cron_delete: "cron delete cancel remove stop clear scheduled task loop wakeup",
    loop_wakeup: "loop wakeup continuation follow-up self-pace",
    enter_worktree: "worktree git isolated branch new",
    exit_worktree: "worktree exit leave remove keep cleanup",
    task_stop: "task stop cancel kill background",
    send_message: "send message task teammate team communicate notify",
    read_mcp_resource: "mcp resource read uri server fetch",
    web_fetch: undefined,
    web_search: undefined,
    lsp: undefined,
    monitor: undefined,
    create_sub_session: undefined
  }
  return Object.entries(hints).map(([name, hint]) => tool(name, describe(name), hint))
}

/** Short one-line descriptions of our own wording, to check the vectors do not hinge on empty descriptions. */
export const ownDescriptions: Record<string, string> = {
  cron_create: "Schedule a prompt to run later or on a recurring cron schedule.",
  cron_list: "List the cron jobs and pending loop wakeups of this session.",
  cron_delete: "Cancel a cron job or a pending loop wakeup by its id.",
  loop_wakeup: "Schedule the next wakeup of a self-paced loop.",
  enter_worktree: "Create an isolated git worktree and switch into it.",
  exit_worktree: "Leave the current git worktree, keeping or removing it.",
  task_stop: "Stop a running background task.",
  send_message: "Send a message to a running teammate or background agent.",
  read_mcp_resource: "Read a resource from an MCP server by URI.",
  web_fetch: "Fetch a URL and process its content.",
  web_search: "Search the web.",
  lsp: "Query the language server for definitions and references.",
  monitor: "Watch a background process and report its output.",
  create_sub_session: "Start a sub-session with its own context."
}

/** An MCP tool as discovery registers it (`mcp__<server>__<tool>`, hint `mcp <server>`). */
export const mcpTool = (server: string, name: string, description: string): SearchableTool =>
  tool(`mcp__${server}__${name}`, description, `mcp ${server}`, server)
