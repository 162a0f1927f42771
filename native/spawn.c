/*
 * toolwright's process launcher: posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), so no page-table
 * copy of a large Node process), exit seen through a pidfd polled on the Node event loop (no
 * SIGCHLD handler, no polling), and pseudo-terminals opened here (posix_openpt) instead of forkpty.
 *
 * JS side: src/process/nativeSpawn.ts. Every fd made here is O_CLOEXEC; the child closes every fd
 * above 2 before exec (closefrom), so nothing of the parent leaks into it.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define STDIO_IGNORE (-1)
#define STDIO_PIPE (-2)

/* One watched child: its pidfd on the loop, the JS callback told its exit status. */
typedef struct {
  uv_poll_t poll;
  napi_env env;
  napi_ref callback;
  napi_async_context context;
  pid_t pid;
  int pidfd;
  /* Node waits for this hook's removal before it unloads the addon (a worker thread's end) */
  napi_async_cleanup_hook_handle cleanup;
} watch_t;

static napi_value throw_errno(napi_env env, int code, const char* syscall) {
  napi_value message, code_value, error, syscall_value, errno_value;
  char text[160];
  const char* name = code == ENOENT   ? "ENOENT"
                     : code == EACCES ? "EACCES"
                     : code == ENOTDIR ? "ENOTDIR"
                     : code == ENOEXEC ? "ENOEXEC"
                     : code == EMFILE ? "EMFILE"
                     : code == EAGAIN ? "EAGAIN"
                     : code == ENOMEM ? "ENOMEM"
                     : code == ENOSYS ? "ENOSYS"
                     : code == EPERM  ? "EPERM"
                     : code == ESRCH  ? "ESRCH"
                                      : "EUNKNOWN";
  snprintf(text, sizeof text, "%s %s (%s)", syscall, name, strerror(code));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code_value);
  napi_create_error(env, code_value, message, &error);
  napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &syscall_value);
  napi_create_int32(env, -code, &errno_value);
  napi_set_named_property(env, error, "syscall", syscall_value);
  napi_set_named_property(env, error, "errno", errno_value);
  napi_throw(env, error);
  return NULL;
}

static napi_value throw_type(napi_env env, const char* message) {
  napi_throw_type_error(env, NULL, message);
  return NULL;
}

/* A JS string as a malloc'd C string (NULL on failure). */
static char* string_of(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char* text = malloc(length + 1);
  if (text == NULL) return NULL;
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

/* A JS array of strings as a NULL-terminated malloc'd vector (NULL on failure). */
static char** vector_of(napi_env env, napi_value array) {
  uint32_t length = 0;
  bool is_array = false;
  if (napi_is_array(env, array, &is_array) != napi_ok || !is_array) return NULL;
  napi_get_array_length(env, array, &length);
  char** vector = calloc(length + 1, sizeof(char*));
  if (vector == NULL) return NULL;
  for (uint32_t i = 0; i < length; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    vector[i] = string_of(env, item);
    if (vector[i] == NULL) {
      for (uint32_t j = 0; j < i; j++) free(vector[j]);
      free(vector);
      return NULL;
    }
  }
  return vector;
}

static void free_vector(char** vector) {
  if (vector == NULL) return;
  for (char** item = vector; *item != NULL; item++) free(*item);
  free(vector);
}

static void on_closed(uv_handle_t* handle) {
  watch_t* watch = (watch_t*)handle->data;
  close(watch->pidfd);
  napi_async_cleanup_hook_handle cleanup = watch->cleanup;
  free(watch);
  /* last: once removed, Node may unload this library */
  if (cleanup != NULL) napi_remove_async_cleanup_hook(cleanup);
}

/* The Node environment (a worker thread, say) goes away while the child still runs: stop watching
 * (JS can no longer be told; the child is left to the process's end), close the handle, and only
 * then let Node unload the addon (on_closed removes the hook). */
static void on_env_cleanup(napi_async_cleanup_hook_handle handle, void* arg) {
  watch_t* watch = (watch_t*)arg;
  uv_poll_stop(&watch->poll);
  uv_close((uv_handle_t*)&watch->poll, on_closed);
}

/* The pidfd is readable: the child has exited. Reap it, then tell JS (exitCode, signal). */
static void on_exit_ready(uv_poll_t* poll, int status, int events) {
  (void)status;
  (void)events;
  watch_t* watch = (watch_t*)poll->data;
  int wstatus = 0;
  pid_t reaped;
  do {
    reaped = waitpid(watch->pid, &wstatus, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == 0) return; /* not yet (spurious wake-up) */
  uv_poll_stop(poll);
  napi_env env = watch->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value callback, resource, argv[2], result;
  napi_get_reference_value(env, watch->callback, &callback);
  napi_get_global(env, &resource);
  if (reaped < 0) {
    napi_get_null(env, &argv[0]);
    napi_get_null(env, &argv[1]);
  } else if (WIFSIGNALED(wstatus)) {
    napi_get_null(env, &argv[0]);
    napi_create_int32(env, WTERMSIG(wstatus), &argv[1]);
  } else {
    napi_create_int32(env, WEXITSTATUS(wstatus), &argv[0]);
    napi_get_null(env, &argv[1]);
  }
  napi_make_callback(env, watch->context, resource, callback, 2, argv, &result);
  napi_delete_reference(env, watch->callback);
  napi_async_destroy(env, watch->context);
  napi_close_handle_scope(env, scope);
  uv_close((uv_handle_t*)poll, on_closed);
}

static int pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

/* Starts watching `pid` through a pidfd; 0 or an errno. */
static int watch_exit(napi_env env, pid_t pid, napi_value callback, bool unref) {
  int pidfd = pidfd_open(pid);
  if (pidfd < 0) return errno;
  fcntl(pidfd, F_SETFD, FD_CLOEXEC);
  uv_loop_t* loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) {
    close(pidfd);
    return ENOSYS;
  }
  watch_t* watch = calloc(1, sizeof(watch_t));
  if (watch == NULL) {
    close(pidfd);
    return ENOMEM;
  }
  watch->env = env;
  watch->pid = pid;
  watch->pidfd = pidfd;
  napi_value name;
  napi_create_string_utf8(env, "toolwright.process", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &watch->context);
  napi_create_reference(env, callback, 1, &watch->callback);
  int rc = uv_poll_init(loop, &watch->poll, pidfd);
  if (rc == 0) rc = uv_poll_start(&watch->poll, UV_READABLE, on_exit_ready);
  if (rc != 0) {
    napi_delete_reference(env, watch->callback);
    napi_async_destroy(env, watch->context);
    close(pidfd);
    free(watch);
    return -rc;
  }
  watch->poll.data = watch;
  napi_add_async_cleanup_hook(env, on_env_cleanup, watch, &watch->cleanup);
  if (unref) uv_unref((uv_handle_t*)&watch->poll);
  return 0;
}

static bool get_bool(napi_env env, napi_value object, const char* key) {
  napi_value value;
  bool result = false;
  if (napi_get_named_property(env, object, key, &value) == napi_ok) napi_get_value_bool(env, value, &result);
  return result;
}

/*
 * spawn(file, argv, envp, cwd | null, stdio[3], flags { setsid, setpgroup }, onExit(code, signal))
 *   -> { pid, fds: [fd | -1, fd | -1, fd | -1] }
 * flags.unref: the watch does not keep the event loop alive.
 * flags.tty: a terminal's path, opened by the child as fds 0-2 (stdio is then not used).
 * stdio entries: -1 ignore (/dev/null), -2 pipe (our end returned, O_CLOEXEC | O_NONBLOCK), >= 0 that fd.
 * `file` is an absolute path (the JS side resolves PATH). Throws an Error with `code` on failure.
 */
static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value args[7];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  if (argc < 7) return throw_type(env, "spawn(file, argv, envp, cwd, stdio, flags, onExit)");
  napi_valuetype cwd_type, callback_type;
  napi_typeof(env, args[3], &cwd_type);
  napi_typeof(env, args[6], &callback_type);
  if (callback_type != napi_function) return throw_type(env, "onExit must be a function");

  int stdio[3];
  for (uint32_t i = 0; i < 3; i++) {
    napi_value item;
    if (napi_get_element(env, args[4], i, &item) != napi_ok || napi_get_value_int32(env, item, &stdio[i]) != napi_ok)
      return throw_type(env, "stdio must be three numbers");
  }
  bool setsid_flag = get_bool(env, args[5], "setsid");
  bool setpgroup_flag = get_bool(env, args[5], "setpgroup");
  /* a terminal's path: the child opens it as fd 0 (after setsid: its controlling terminal), then 1 and 2 */
  char* tty = NULL;
  napi_value tty_value;
  napi_valuetype tty_type = napi_undefined;
  if (napi_get_named_property(env, args[5], "tty", &tty_value) == napi_ok) napi_typeof(env, tty_value, &tty_type);
  if (tty_type == napi_string) tty = string_of(env, tty_value);

  char* file = string_of(env, args[0]);
  char** argv = vector_of(env, args[1]);
  char** envp = vector_of(env, args[2]);
  char* cwd = cwd_type == napi_string ? string_of(env, args[3]) : NULL;
  int ours[3] = {-1, -1, -1};
  int theirs[3] = {-1, -1, -1};
  int failure = 0;
  const char* failed_call = "spawn";
  napi_value result = NULL;
  if (file == NULL || argv == NULL || envp == NULL || (cwd_type == napi_string && cwd == NULL) ||
      (tty_type == napi_string && tty == NULL)) {
    failure = ENOMEM;
    goto done;
  }

  for (int i = 0; i < 3; i++) {
    if (stdio[i] != STDIO_PIPE) continue;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      failure = errno;
      failed_call = "pipe2";
      goto done;
    }
    /* stdin: the child reads fds[0], we write fds[1]; stdout/stderr the other way round */
    ours[i] = i == 0 ? fds[1] : fds[0];
    theirs[i] = i == 0 ? fds[0] : fds[1];
    fcntl(ours[i], F_SETFL, fcntl(ours[i], F_GETFL) | O_NONBLOCK);
  }

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  /* Node ignores SIGPIPE (and may block signals): the child starts with every default and no mask */
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  if (setsid_flag) flags |= POSIX_SPAWN_SETSID;
  else if (setpgroup_flag) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);
  }
  posix_spawnattr_setflags(&attr, flags);
  if (cwd != NULL) posix_spawn_file_actions_addchdir_np(&actions, cwd);
  if (tty != NULL) {
    posix_spawn_file_actions_addopen(&actions, 0, tty, O_RDWR, 0);
    posix_spawn_file_actions_adddup2(&actions, 0, 1);
    posix_spawn_file_actions_adddup2(&actions, 0, 2);
  } else for (int i = 0; i < 3; i++) {
    if (stdio[i] == STDIO_IGNORE) posix_spawn_file_actions_addopen(&actions, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
    else if (stdio[i] == STDIO_PIPE) posix_spawn_file_actions_adddup2(&actions, theirs[i], i);
    else posix_spawn_file_actions_adddup2(&actions, stdio[i], i);
  }
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);

  pid_t pid = 0;
  failure = posix_spawn(&pid, file, &actions, &attr, argv, envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (failure != 0) {
    failed_call = "spawn";
    goto done;
  }
  int watched = watch_exit(env, pid, args[6], get_bool(env, args[5], "unref"));
  if (watched != 0) {
    /* cannot happen once pidfd_open was probed; do not leave the child unwatched */
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    failure = watched;
    failed_call = "pidfd_open";
    goto done;
  }

  napi_value pid_value, fds_value;
  napi_create_object(env, &result);
  napi_create_int32(env, pid, &pid_value);
  napi_create_array_with_length(env, 3, &fds_value);
  for (uint32_t i = 0; i < 3; i++) {
    napi_value fd;
    napi_create_int32(env, ours[i], &fd);
    napi_set_element(env, fds_value, i, fd);
    ours[i] = -1; /* handed to JS */
  }
  napi_set_named_property(env, result, "pid", pid_value);
  napi_set_named_property(env, result, "fds", fds_value);

done:
  /* the child's ends are closed either way; ours only when the launch failed (else JS owns them) */
  for (int i = 0; i < 3; i++) {
    if (ours[i] >= 0) close(ours[i]);
    if (theirs[i] >= 0) close(theirs[i]);
  }
  free(file);
  free_vector(argv);
  free_vector(envp);
  free(cwd);
  free(tty);
  return result != NULL ? result : throw_errno(env, failure, failed_call);
}

/*
 * openPty(cols, rows) -> { master, slave, path }: a new pseudo-terminal pair, both O_CLOEXEC, the
 * master non-blocking, the window size set, UTF-8 input on. The caller passes `slave` as the
 * child's stdio (with setsid, it becomes the child's controlling terminal) and closes it when done.
 */
static napi_value OpenPty(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  int32_t cols = 80, rows = 24;
  if (argc >= 2) {
    napi_get_value_int32(env, args[0], &cols);
    napi_get_value_int32(env, args[1], &rows);
  }
  int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master < 0) return throw_errno(env, errno, "posix_openpt");
  char path[128];
  if (grantpt(master) != 0 || unlockpt(master) != 0 || ptsname_r(master, path, sizeof path) != 0) {
    int code = errno;
    close(master);
    return throw_errno(env, code, "ptsname");
  }
  int slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) {
    int code = errno;
    close(master);
    return throw_errno(env, code, "open");
  }
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
  ioctl(master, TIOCSWINSZ, &size);
  struct termios term;
  if (tcgetattr(slave, &term) == 0) {
    term.c_iflag |= IUTF8;
    tcsetattr(slave, TCSANOW, &term);
  }
  fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
  /* our slave descriptor only writes the drain mark: never block the loop on a full terminal */
  fcntl(slave, F_SETFL, fcntl(slave, F_GETFL) | O_NONBLOCK);
  napi_value result, master_value, slave_value, path_value;
  napi_create_object(env, &result);
  napi_create_int32(env, master, &master_value);
  napi_create_int32(env, slave, &slave_value);
  napi_create_string_utf8(env, path, NAPI_AUTO_LENGTH, &path_value);
  napi_set_named_property(env, result, "master", master_value);
  napi_set_named_property(env, result, "slave", slave_value);
  napi_set_named_property(env, result, "path", path_value);
  return result;
}

/* resize(masterFd, cols, rows): TIOCSWINSZ (the kernel sends SIGWINCH to the foreground group). */
static napi_value Resize(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value args[3];
  napi_get_cb_info(env, info, &argc, args, NULL, NULL);
  int32_t fd = -1, cols = 80, rows = 24;
  if (argc < 3) return throw_type(env, "resize(fd, cols, rows)");
  napi_get_value_int32(env, args[0], &fd);
  napi_get_value_int32(env, args[1], &cols);
  napi_get_value_int32(env, args[2], &rows);
  struct winsize size = {.ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols};
  if (ioctl(fd, TIOCSWINSZ, &size) != 0) return throw_errno(env, errno, "ioctl");
  return NULL;
}

/* available() -> true when pidfd_open works here (Linux >= 5.3). */
static napi_value Available(napi_env env, napi_callback_info info) {
  (void)info;
  int fd = pidfd_open(getpid());
  napi_value result;
  napi_get_boolean(env, fd >= 0, &result);
  if (fd >= 0) close(fd);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
    {"spawn", NULL, Spawn, NULL, NULL, NULL, napi_enumerable, NULL},
    {"openPty", NULL, OpenPty, NULL, NULL, NULL, napi_enumerable, NULL},
    {"resize", NULL, Resize, NULL, NULL, NULL, napi_enumerable, NULL},
    {"available", NULL, Available, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
