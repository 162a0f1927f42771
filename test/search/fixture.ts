/**
 * Generates the search fixture tree: a git repository in a temp directory with ignore files,
 * ignored, binary, CRLF, unicode, invalid-UTF-8, BOM, symlinked and nested files.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

const write = (root: string, rel: string, content: string | Buffer): void => {
  const abs = path.join(root, rel)
  fs.mkdirSync(path.dirname(abs), { recursive: true })
  fs.writeFileSync(abs, content)
}

const git = (cwd: string, ...args: Array<string>): void => {
  execFileSync("git", args, { cwd, stdio: "ignore", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } })
}

/** Creates the fixture tree and returns its (real) root path. */
export const makeSearchFixture = (): string => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "toolwright-search-")))
  git(root, "init", "-q")
  write(root, ".gitignore", "# build output\ndist/\n*.log\n!keep.log\n/secret-top.txt\nnested/**/gen-*.ts\n")
  write(root, ".toolwrightignore", "private/\n*.pem\n")
  write(root, "README.md", "Hello World\nhello again\n\nNo match here\n")
  write(root, "src/main.ts", [
    "const answer = 42",
    "function greet(name: string) {",
    "  // TODO: fix greeting",
    "  return `hello ${name}`",
    "}",
    "foo_bar baz",
    "const re = /\\d+/",
    "x-ray 7",
    "export default greet",
    ""
  ].join("\n"))
  write(root, "src/util/strings.ts", "Straße\nÄPFEL und äpfel\nnaïve café\nemoji 😀 here\ntab\tseparated\nthe K kelvin\nΩ ohm ı dotless İ capital STRASSE ẞ\n")
  write(root, "src/util/numbers.js", "let x = 12345;\nno digits\nsee 2024-01-15 today\n")
  write(root, "src/util/crlf.txt", "alpha line\r\nBeta LINE\r\nend\r\nspace at end \r\nlast line no newline\r")
  write(root, "src/secret-top.txt", "hello not anchored\n")
  write(root, "src/with space.txt", "hello space\n")
  write(root, "src/ünï.txt", "hello unicode name\n")
  write(root, "dist/bundle.js", "hello from dist\n")
  write(root, "debug.log", "hello log\n")
  write(root, "keep.log", "hello keep\n")
  write(root, "secret-top.txt", "hello secret\n")
  write(root, "private/notes.md", "hello private\n")
  write(root, "cert.pem", "hello pem\n")
  write(root, "bin/data.bin", Buffer.from("hello\0binary\n", "latin1"))
  write(root, "bin/late.bin", Buffer.concat([Buffer.from("hello first\n"), Buffer.alloc(70_000, 0x61), Buffer.from("\n\0tail\n", "latin1")]))
  write(root, ".hidden/config.yml", "hello: hidden\n")
  write(root, ".env", "HELLO=1\n")
  write(root, "nested/deep/dir/file.txt", "deep hello 99\n")
  write(root, "nested/deep/gen-x.ts", "hello generated\n")
  write(root, "nested/deep/.gitignore", "*.tmp\n")
  write(root, "nested/deep/x.tmp", "hello tmp\n")
  write(root, "sub/.gitignore", "!keep2.log\n")
  write(root, "sub/keep2.log", "hello keep2\n")
  write(root, "sub/other.log", "hello other log\n")
  write(root, "latin1.txt", Buffer.from("caf\xe9 hello\nplain line\n", "latin1"))
  write(root, "bom.txt", "\uFEFFhello bom\nsecond\n")
  write(root, "empty.txt", "")
  write(root, "words.txt", "cat\ncatalog\nconcat\nCAT\nthe cat sat\nbell\n")
  write(root, "alt.txt", "foo\nbar\nbaz\nqux\naa\n")
  write(root, "cr-mid.txt", "a\rb\n")
  fs.symlinkSync("README.md", path.join(root, "link.txt"))
  write(root, "vendor/lib/lib.txt", "hello vendored\n")
  write(root, "vendor/lib/.gitignore", "*.out\n")
  write(root, "vendor/lib/x.out", "hello out\n")
  write(root, "vendor/lib/v.log", "hello vlog\n")
  git(path.join(root, "vendor/lib"), "init", "-q")
  git(root, "add", "README.md", "src/main.ts")
  return root
}

/** Removes a generated tree. */
export const removeTree = (root: string): void => fs.rmSync(root, { recursive: true, force: true })
