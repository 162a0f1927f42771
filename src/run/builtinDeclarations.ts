/**
 * The declarations of the built-in tools, generated from the tools themselves by
 * `npm run gen:docs` (scripts/gen-builtin-declarations.mjs); do not edit by hand. A test fails when
 * this file no longer matches the tools. With it, a session lists and searches the built-in tools
 * without importing their modules; a tool's module is imported on its first call.
 *
 * @since 0.1.0
 */
import type { ToolInfo } from "../tool/tool.js"

/** Every built-in tool's declaration, sorted by name. @category constants */
export const builtinDeclarations: ReadonlyArray<ToolInfo> = [
  {
    name: "ask_user_question",
    displayName: "AskUserQuestion",
    description: "Asks the user one to four multiple-choice questions during the task and returns their answers.\n\nUse it to gather preferences or requirements, to settle an ambiguous instruction, or to let the user choose between approaches before you commit to one. Each question offers 2–4 distinct options; set multiSelect when several may apply. If you recommend an option, list it first and end its label with \"(Recommended)\". Do not use it to ask whether a plan is ready or whether to proceed.",
    kind: "think",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "questions": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "question": {
                "type": "string",
                "description": "The complete question, ending with a question mark (e.g. \"Which library should we use for dates?\")."
              },
              "header": {
                "type": "string",
                "description": "A very short label for the question, at most 12 characters (e.g. \"Library\", \"Auth method\")."
              },
              "options": {
                "type": "array",
                "items": {
                  "type": "object",
                  "properties": {
                    "label": {
                      "type": "string",
                      "description": "What the user sees and picks: concise, 1–5 words."
                    },
                    "description": {
                      "type": "string",
                      "description": "What choosing this option means: its trade-offs or consequences."
                    }
                  },
                  "required": [
                    "label",
                    "description"
                  ],
                  "additionalProperties": false
                },
                "description": "2–4 distinct choices (mutually exclusive unless multiSelect).",
                "minItems": 2,
                "maxItems": 4
              },
              "multiSelect": {
                "type": "boolean",
                "description": "Let the user pick several options (default false).",
                "default": false
              }
            },
            "required": [
              "question",
              "header",
              "options"
            ],
            "additionalProperties": false
          },
          "minItems": 1,
          "maxItems": 4,
          "description": "The questions (1–4)."
        },
        "metadata": {
          "type": "object",
          "properties": {
            "source": {
              "type": "string",
              "description": "Where the question comes from, for tracking."
            }
          },
          "additionalProperties": false,
          "description": "Tracking data; never shown to the user."
        }
      },
      "required": [
        "questions"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "edit",
    displayName: "Edit",
    description: "Replaces text within a file, or creates a new file.\n\n- old_string is the exact text to replace, copied from read_file output (without the line-number prefix), with enough surrounding lines to match exactly one place. An empty old_string creates a new file with new_string as its content.\n- new_string is written verbatim (its trailing whitespace too). By default exactly one place must match; set replace_all to change every occurrence.\n- Read the file with read_file in this session before editing it; if the file changed since, read it again.\n- Small differences are tolerated when they are unambiguous: curly quotes and dashes for their ASCII forms, trailing whitespace, a uniformly different indentation, over-escaped \\n or \\\". The result says when such an approximate match was used.\n- The file keeps its encoding, byte order mark and line endings. When nothing matches, the error shows the closest text in the file.",
    kind: "edit",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "file_path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "file_path": {
          "type": "string",
          "description": "The file to modify: absolute, or relative to the first workspace root.",
          "minLength": 1
        },
        "old_string": {
          "type": "string",
          "description": "The exact text to replace (empty to create a new file). Include enough context to match one place."
        },
        "new_string": {
          "type": "string",
          "description": "The replacement text, written verbatim."
        },
        "replace_all": {
          "type": "boolean",
          "description": "Replace every occurrence of old_string (default false)."
        }
      },
      "required": [
        "file_path",
        "old_string",
        "new_string"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "glob",
    displayName: "Glob",
    description: "Finds files whose path matches a glob pattern (such as \"**/*.ts\", \"src/**/*.{js,jsx}\", \"**/README.md\" or \"*.json\") and returns their absolute paths: files changed in the last 24 hours first, newest first, then the rest in path order.\n\n- Patterns are relative to path (or to each workspace root when path is omitted); matching is case-insensitive and includes dot files. A file name that exists literally (e.g. \"file[1].txt\") is matched literally.\n- Files ignored by .gitignore or .toolwrightignore and .git directories are skipped; symbolic links are not followed.\n- At most 100 paths are shown, and the search stops after 1000 matches: narrow the pattern or path for more.\n- To search file contents use grep_search; to see one directory use list_directory.",
    kind: "search",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "pattern": {
          "type": "string",
          "description": "The glob pattern to match file paths against, e.g. \"**/*.py\" or \"docs/*.md\"."
        },
        "path": {
          "type": "string",
          "description": "The directory to search in: absolute, or relative to the first workspace root. Default: every workspace root.",
          "minLength": 1
        }
      },
      "required": [
        "pattern"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "grep_search",
    displayName: "Grep",
    description: "Searches the contents of files for a regular expression and returns the matching lines as path:line:text, under a header with the total number of matches.\n\n- pattern: a regular expression in JavaScript syntax, e.g. \"function\\s+\\w+\", \"TODO|FIXME\", \"^import .* from\". Matching is always case-insensitive and line by line.\n- path: the file or directory to search (absolute, or relative to the first workspace root). Omit it to search every workspace root.\n- glob: only search files whose path matches, e.g. \"*.ts\", \"*.{ts,tsx}\", \"src/**/*.py\", \"!*.min.js\".\n- limit: show at most this many matching lines (the output never shows more than 1000 lines or about 20000 characters; the header always gives the total).\n- Files ignored by .gitignore or .toolwrightignore, binary files, files over 20 MB and .git directories are skipped; hidden files are searched.\n- Paths are relative to the first workspace root (absolute for other roots): pass them as they are to read_file or edit.\n- A file you have seen here counts as read: you may edit the lines shown without calling read_file first.\n- Use this instead of running grep or rg through the shell.",
    kind: "search",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: 20000,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "pattern": {
          "type": "string",
          "description": "The regular expression to search for (JavaScript syntax, always case-insensitive), e.g. \"log.*Error\"."
        },
        "glob": {
          "type": "string",
          "description": "Only search files matching this glob, e.g. \"*.js\", \"*.{ts,tsx}\", \"src/**\". Default: every file."
        },
        "path": {
          "type": "string",
          "description": "The file or directory to search: absolute, or relative to the first workspace root. Default: every workspace root.",
          "minLength": 1
        },
        "limit": {
          "type": "integer",
          "minimum": 1,
          "maximum": 9007199254740991,
          "description": "Most matching lines to show (1 or more). Default: up to 1000, within the output cap."
        }
      },
      "required": [
        "pattern"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "list_directory",
    displayName: "ListFiles",
    description: "Lists the files and subdirectories directly inside a directory: directories first (prefixed \"[DIR] \"), then files, each sorted by name.\n\n- path: the directory (absolute, or relative to the first workspace root; \".\" is the first root).\n- ignore: glob patterns matched against entry names to leave out, e.g. [\"*.log\", \"node_modules\"] (* and ? wildcards).\n- Entries ignored by .gitignore or .toolwrightignore are left out and counted at the end; set file_filtering_options to include them.\n- At most 100 entries are shown. To find files by name pattern across directories use glob; to search contents use grep_search.",
    kind: "search",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "path": {
          "type": "string",
          "description": "The directory to list: absolute, or relative to the first workspace root.",
          "minLength": 1
        },
        "ignore": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Glob patterns of entry names to leave out (* and ? wildcards, matched against the name only), e.g. [\"*.tmp\"]."
        },
        "file_filtering_options": {
          "type": "object",
          "properties": {
            "respect_git_ignore": {
              "type": "boolean",
              "description": "Leave out entries ignored by .gitignore (default true)."
            },
            "respect_toolwright_ignore": {
              "type": "boolean",
              "description": "Leave out entries ignored by .toolwrightignore (default true)."
            }
          },
          "additionalProperties": false,
          "description": "Which ignore files filter the listing."
        }
      },
      "required": [
        "path"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "notebook_edit",
    displayName: "NotebookEdit",
    description: "Edits one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or delete it.\n\n- Read the notebook in full with read_file first (without offset or limit); cell ids are shown there.\n- cell_id is a cell's id, or cell-N (0-based position) for cells without one. insert adds the new cell after cell_id, or at the top when cell_id is omitted.\n- An edited code cell loses its outputs and execution count. Everything else in the file stays exactly as it was.",
    kind: "edit",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "notebook_path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "notebook_path": {
          "type": "string",
          "description": "The notebook to edit (.ipynb): absolute, or relative to the first workspace root.",
          "minLength": 1
        },
        "cell_id": {
          "type": "string",
          "description": "The cell to edit, or to insert after: its id, or cell-N (0-based)."
        },
        "new_source": {
          "type": "string",
          "description": "The new source of the cell (required for replace and insert)."
        },
        "cell_type": {
          "type": "string",
          "enum": [
            "code",
            "markdown"
          ],
          "description": "The cell type: code or markdown (insert default: code)."
        },
        "edit_mode": {
          "type": "string",
          "enum": [
            "replace",
            "insert",
            "delete"
          ],
          "description": "replace (default), insert or delete."
        }
      },
      "required": [
        "notebook_path"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "read_file",
    displayName: "ReadFile",
    description: "Reads a file from the workspace.\n\n- Text files are returned in pages: by default up to 1000 lines or 25000 characters from the start. When a file is longer, the result begins with \"Showing lines a-b of N total lines.\" (for files of 10 MB or more, \"of at least N total lines\": the rest is not counted) — read on with offset (0-based line) and limit (number of lines). Trailing whitespace of each line is not shown.\n- Images (PNG, JPEG, GIF, WEBP, …), audio and video are returned as media; PDFs as an embedded document (pages selects up to 20 pages, e.g. \"1-5\"); Jupyter notebooks (.ipynb) as their cells with outputs, always in full.\n- Reading a file you already read in full, unchanged, returns a short placeholder instead of the content again; pass offset and limit to force a fresh copy.\n- Read a file before editing or overwriting it: edit and write_file require it.",
    kind: "read",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: Number.POSITIVE_INFINITY,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "file_path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "file_path": {
          "type": "string",
          "description": "The file to read: absolute, or relative to the first workspace root.",
          "minLength": 1
        },
        "offset": {
          "type": "integer",
          "minimum": -9007199254740991,
          "maximum": 9007199254740991,
          "description": "0-based line to start reading from (0 or more). Use with limit for long files."
        },
        "limit": {
          "type": "integer",
          "minimum": -9007199254740991,
          "maximum": 9007199254740991,
          "description": "Number of lines to read (1 or more)."
        },
        "pages": {
          "type": "string",
          "description": "PDF only: 1-based page range of at most 20 pages, e.g. \"3\" or \"1-5\"."
        }
      },
      "required": [
        "file_path"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "run_shell_command",
    displayName: "Shell",
    description: "Executes a bash command as `bash -c <command>` in the workspace and returns its output.\n\nOutput comes back as:\nCommand: <command>\nDirectory: <directory or (root)>\nOutput: <stdout and stderr, interleaved as a terminal shows them, colours removed>\nError: <spawn error or (none)>\nExit Code: <exit code or (none)>\nSignal: <signal or (none)>\nProcess Group PGID: <pid or (none)>\n\nUsage notes:\n- Prefer the dedicated tools over shell commands: glob to find files, grep_search to search contents, read_file to read, edit and write_file to change files. Do not use find, grep, cat, head, tail, sed or echo for those jobs.\n- Quote paths that contain spaces. Chain dependent commands with `&&` (use `;` only when later commands should run regardless); do not separate commands with newlines.\n- Avoid `cd`: pass `directory` (an absolute path inside the workspace) instead, or use absolute paths.\n- Timeout: `timeout` in milliseconds, default 120000 (2 minutes), at most 600000 (10 minutes). On timeout or cancellation the command's whole process tree is stopped.\n- Long-running processes (dev servers, watchers, anything that does not exit by itself) must use `is_background: true`. You get an id (bg_…), an output file and a status file; read them to follow it, answer its prompts with send_message, stop it with task_stop. Do not end a command with `&`.\n- Do not `sleep` to wait: a leading `sleep N` (2 s or more) is refused unless it stands alone with a `# intentional-sleep: <reason>` comment.\n- The command leads its own process group (`kill -- -PGID` stops it and its children). Never run `pkill node`, `killall node` or similar: they would stop this tool server too; use task_stop or kill a specific PID.\n- Output over 30000 characters is cut to its beginning and end; the full output is saved to a file you can read with read_file.\n- Exit code 1 from grep, rg, diff, test, [ and [[ (also at the end of a pipeline) means \"no match\" / \"false\" and is not reported as an error.\n- An in-place `sed -i 's/old/new/flags' file` is applied as an edit (previewed as a diff; the file must have been read first).",
    kind: "execute",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: 30000,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "command": {
          "type": "string",
          "description": "Exact bash command to execute as `bash -c <command>`"
        },
        "is_background": {
          "type": "boolean",
          "description": "Run in the background (default false): for dev servers, watchers and other processes that keep running. Returns at once with an id, an output file and a status file."
        },
        "timeout": {
          "type": "number",
          "description": "Timeout in milliseconds for a foreground command (default 120000, max 600000)."
        },
        "description": {
          "type": "string",
          "description": "Brief description of the command for the user (a few words)."
        },
        "directory": {
          "type": "string",
          "description": "Absolute path of an existing directory inside the workspace to run the command in (default: the project root)."
        },
        "sandbox": {
          "type": "boolean",
          "description": "false: run this one command outside the command sandbox. Only when a sandboxed run was blocked (\"blocked by the sandbox: …\") and the command really needs that access; a person must approve it every time."
        }
      },
      "required": [
        "command"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "send_message",
    displayName: "SendMessage",
    description: "Sends a line of input to a running background task: the message and a newline are written to its stdin. Use it to answer a prompt (y/n, a name, a password the user gave you) or to drive a REPL started with run_shell_command is_background: true. The reply appears in the task's output file; read it afterwards.",
    kind: "other",
    shouldDefer: true,
    alwaysLoad: false,
    searchHint: "send message task stdin input reply prompt repl background",
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "task_id": {
          "type": "string",
          "description": "The id of the running background task (e.g. bg_1a2b3c4d)."
        },
        "message": {
          "type": "string",
          "maxLength": 65536,
          "description": "The text to write to the task's stdin; a newline is added."
        }
      },
      "required": [
        "task_id",
        "message"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "task_create",
    displayName: "TaskCreate",
    description: "Adds a task to the workspace's shared task board and returns its id (a positive integer).\n\nThe board is durable: it survives restarts and is shared by every session working in this workspace, so write the description so that someone else could pick the task up. Use task_update to claim, progress, complete or delete tasks and to record which tasks block which, and task_list to see the board. For a private checklist of your own steps in this session, use todo_write instead.",
    kind: "other",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "subject": {
          "type": "string",
          "pattern": "\\S",
          "maxLength": 200,
          "description": "A short title, imperative (e.g. \"Add retry to the upload client\"), at most 200 characters."
        },
        "description": {
          "type": "string",
          "maxLength": 10000,
          "description": "What needs to be done and how to tell it is done, at most 10000 characters."
        },
        "activeForm": {
          "type": "string",
          "maxLength": 200,
          "description": "Present-continuous form shown while the task is in progress (e.g. \"Running the tests\"), at most 200 characters."
        },
        "metadata": {
          "type": "object",
          "description": "Free-form data to keep with the task (JSON object)."
        }
      },
      "required": [
        "subject",
        "description"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "task_list",
    displayName: "TaskList",
    description: "Lists the tasks on the workspace's shared task board (see task_create), one per line:\n#<id> [<status>] @<owner> — <subject> (blocked by #<ids>)\nThe owner part appears when the task has one; \"blocked by\" lists blocking tasks that are not completed yet. Filter by status, owner or a blocking task; with no filter, every task is listed.",
    kind: "read",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "status": {
          "type": "string",
          "enum": [
            "pending",
            "in_progress",
            "completed"
          ],
          "description": "Only tasks with this status."
        },
        "owner": {
          "type": "string",
          "description": "Only tasks owned by exactly this owner."
        },
        "blockedBy": {
          "type": "string",
          "description": "Only tasks blocked by the task with this id."
        }
      },
      "additionalProperties": false
    }
  },
  {
    name: "task_stop",
    displayName: "TaskStop",
    description: "Stops a running background task by its id (the bg_… id run_shell_command returned for is_background: true). The task's whole process tree is terminated (SIGTERM, then SIGKILL). Its output file stays readable. Use this instead of kill/pkill for background shells.",
    kind: "other",
    shouldDefer: true,
    alwaysLoad: false,
    searchHint: "task stop cancel kill background",
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "task_id": {
          "type": "string",
          "description": "The id of the background task to stop (e.g. bg_1a2b3c4d)."
        }
      },
      "required": [
        "task_id"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "task_update",
    displayName: "TaskUpdate",
    description: "Updates a task on the workspace's task board (see task_create, task_list).\n\n- status: pending → in_progress → completed; \"deleted\" removes the task (and its blocking links) for good.\n- Moving a task to in_progress without an owner assigns it to this session; owner \"\" unassigns.\n- metadata is merged into the task's metadata; a key set to null is removed.\n- addBlocks: tasks that cannot start until this one is done. addBlockedBy: tasks this one waits for. Links are recorded on both tasks; a task cannot block itself, and a link that would close a cycle is refused with the cycle's path.",
    kind: "other",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "taskId": {
          "type": "string",
          "description": "The id of the task to update (a positive integer as a string, e.g. \"3\")."
        },
        "status": {
          "type": "string",
          "enum": [
            "pending",
            "in_progress",
            "completed",
            "deleted"
          ],
          "description": "The new status; \"deleted\" removes the task."
        },
        "owner": {
          "type": "string",
          "description": "Who works on it (free text); empty string unassigns."
        },
        "subject": {
          "type": "string",
          "pattern": "\\S",
          "maxLength": 200,
          "description": "A new title, at most 200 characters."
        },
        "description": {
          "type": "string",
          "maxLength": 10000,
          "description": "A new description, at most 10000 characters."
        },
        "activeForm": {
          "type": "string",
          "maxLength": 200,
          "description": "Present-continuous form shown while the task is in progress (e.g. \"Running the tests\"), at most 200 characters."
        },
        "metadata": {
          "type": "object",
          "description": "Keys to merge into the task's metadata; a key set to null is removed."
        },
        "addBlocks": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Ids of tasks that cannot start until this task is completed."
        },
        "addBlockedBy": {
          "type": "array",
          "items": {
            "type": "string"
          },
          "description": "Ids of tasks that must be completed before this task can start."
        }
      },
      "required": [
        "taskId"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "todo_write",
    displayName: "TodoList",
    description: "Creates and updates a structured todo list for the current session, visible to the user.\n\nUse it for work with three or more distinct steps, for tasks the user lists, and whenever tracking progress helps the user follow along. Skip it for a single trivial step or a purely conversational answer.\n\nHow it works:\n- Each call REPLACES the whole list: send every todo you want to keep, with its current status.\n- Statuses: pending, in_progress, completed. Keep exactly one todo in_progress while you work, and mark it completed as soon as it is done (not in batches later).\n- Ids are yours to choose and must be unique; keep an item's id when you change it.\n- Send an empty list to clear it.",
    kind: "think",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "todos": {
          "type": "array",
          "items": {
            "type": "object",
            "properties": {
              "content": {
                "type": "string",
                "pattern": "\\S",
                "description": "What to do, as an imperative sentence (e.g. \"Run the test suite\")."
              },
              "status": {
                "type": "string",
                "enum": [
                  "pending",
                  "in_progress",
                  "completed"
                ],
                "description": "pending, in_progress (at most one at a time) or completed."
              },
              "id": {
                "type": "string",
                "pattern": "\\S",
                "description": "A stable id, unique in the list; keep it when the item changes."
              }
            },
            "required": [
              "content",
              "status",
              "id"
            ],
            "additionalProperties": false
          }
        }
      },
      "required": [
        "todos"
      ],
      "additionalProperties": false
    }
  },
  {
    name: "write_file",
    displayName: "WriteFile",
    description: "Writes content to a file, creating it (and missing parent directories) or replacing it entirely.\n\n- To change part of an existing file, prefer the edit tool. To overwrite one, read it with read_file in this session first.\n- An existing file keeps its encoding, byte order mark and line endings (content written with LF into a CRLF file gets CRLF); a new file is UTF-8.\n- The write is atomic: the file is never left half-written, and it is refused if the file changed since you read it.",
    kind: "edit",
    shouldDefer: false,
    alwaysLoad: false,
    searchHint: undefined,
    maxOutputChars: undefined,
    truncateKeep: "both",
    serverName: undefined,
    pathFields: [
      "file_path"
    ],
    parametersJsonSchema: {
      "type": "object",
      "properties": {
        "file_path": {
          "type": "string",
          "description": "The file to write: absolute, or relative to the first workspace root.",
          "minLength": 1
        },
        "content": {
          "type": "string",
          "description": "The complete new content of the file."
        }
      },
      "required": [
        "file_path",
        "content"
      ],
      "additionalProperties": false
    }
  }
]
