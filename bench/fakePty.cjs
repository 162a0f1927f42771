// A node-pty stand-in for bench/shellJs.mjs.
// A node-pty stand-in: no process; prints "hi\r\n" and exits on the next turn (measures our JS per call).
exports.spawn = (file, args, opts) => {
  const data = [], exit = []
  setImmediate(() => {
    for (const f of data) f(Buffer.from("hi\r\n"))
    setImmediate(() => { for (const f of exit) f({ exitCode: 0, signal: 0 }) })
  })
  return { pid: 2147483000, onData: (f) => { data.push(f); return { dispose() {} } }, onExit: (f) => { exit.push(f); return { dispose() {} } }, write() {}, kill() {}, resize() {} }
}
