/**
 * Every limit and default of the MCP client side, named once (reference §13).
 *
 * @since 0.1.0
 */

/** Output budget of a discovered MCP tool, in chars (20× the global default; reference §13.1). */
export const MCP_TOOL_MAX_OUTPUT_CHARS = 500_000

/** Text of an upstream result longer than {@link MCP_TOOL_MAX_OUTPUT_CHARS} enters the output pipeline in chunks of this many chars (64 Ki). */
export const MCP_TEXT_CHUNK_CHARS = 64 * 1024

/** Whole-call timeout when the server config sets none (reference §13.3). */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 600_000

/** A call that sends nothing (no result, no progress) for this long is aborted; 0 disables (reference §13.3). */
export const DEFAULT_MCP_TOOL_IDLE_TIMEOUT_MS = 300_000

/** Connect + discovery timeout of a local (stdio) server (reference §13.4). */
export const DEFAULT_STDIO_DISCOVERY_TIMEOUT_MS = 30_000

/** Connect + discovery timeout of a remote (HTTP/SSE) server (reference §13.4). */
export const DEFAULT_REMOTE_DISCOVERY_TIMEOUT_MS = 5_000

/** A configured discovery timeout is clamped to this range (reference §13.4). */
export const MIN_DISCOVERY_TIMEOUT_MS = 100
/** A configured discovery timeout is clamped to this range (reference §13.4). */
export const MAX_DISCOVERY_TIMEOUT_MS = 300_000

/** Reconnect attempts for one call after a connection error (reference §13.3: at most 3). */
export const MAX_RECONNECT_ATTEMPTS = 3

/** The first reconnect waits this long; each next one twice as long. */
export const RECONNECT_BASE_DELAY_MS = 250

/** After a timeout, the server must answer a ping within this long or it is restarted on the next call. */
export const HEALTH_PING_TIMEOUT_MS = 5_000

/** A server that failed at startup is retried in the background this many times (reference: 5 attempts). */
export const STARTUP_RETRY_ATTEMPTS = 5
/** The first background retry of a failed server waits this long, doubling up to {@link STARTUP_RETRY_MAX_DELAY_MS}. */
export const STARTUP_RETRY_BASE_DELAY_MS = 1_000
/** The longest wait between background retries (reference: 1 s → 16 s). */
export const STARTUP_RETRY_MAX_DELAY_MS = 16_000

/** How long a session waits for its servers at startup before it goes on without the slow ones. */
export const DEFAULT_STARTUP_WAIT_MS = 15_000

/** Bursts of `list_changed` notifications within this window cause one re-discovery. */
export const LIST_CHANGED_DEBOUNCE_MS = 50

/** A pooled connection nobody uses is closed after this long (reference §13.5: 30 s). */
export const POOL_IDLE_TIME_TO_LIVE_MS = 30_000

/** The workspace budget warns once when this fraction of its server slots is reserved (reference §13.5). */
export const MCP_BUDGET_WARN_FRACTION = 0.75
/** The budget warning re-arms only after usage drops below this fraction (reference §13.5). */
export const MCP_BUDGET_REARM_FRACTION = 0.375

/** The longest JSON-RPC message accepted from a stdio server; a longer one closes the connection. */
export const MAX_STDIO_MESSAGE_BYTES = 64 * 1024 * 1024

/** How much of a stdio server's stderr is kept for error messages. */
export const STDERR_TAIL_BYTES = 4_096

/** Discovery follows at most this many pages of one list. */
export const MAX_LIST_PAGES = 100
/** Tools kept per server; the rest are dropped with a warning. */
export const MAX_TOOLS_PER_SERVER = 1_000
/** Resources, resource templates and prompts kept per server. */
export const MAX_RESOURCES_PER_SERVER = 1_000
/** A tool description longer than this is cut (the rest is noise for a model). */
export const MAX_TOOL_DESCRIPTION_CHARS = 8_000
/** A tool whose input schema serialises to more than this is dropped (a schema cannot be cut safely). */
export const MAX_TOOL_SCHEMA_CHARS = 100_000
/** Server instructions longer than this are cut. */
export const MAX_SERVER_INSTRUCTIONS_CHARS = 8_000

/** Base64 media in one tool result beyond this is replaced by a note. */
export const MAX_MCP_RESULT_MEDIA_CHARS = 8_000_000
/** The response JSON quoted in an `isError` message is cut to this. */
export const MAX_TOOL_ERROR_RESPONSE_CHARS = 20_000

/** Text of one `read_mcp_resource` call, cumulative (reference §13.6). */
export const MAX_MCP_RESOURCE_TEXT_CHARS = 100_000
/** Base64 blobs of one `read_mcp_resource` call, cumulative (reference §13.6). */
export const MAX_MCP_RESOURCE_BLOB_CHARS = 8_000_000

/** A stopped stdio server gets this long after SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 2_000
