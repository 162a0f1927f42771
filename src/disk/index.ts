/**
 * The disk room (ground floor: imports no other room): every file-system call of session/, text/,
 * plan/ and files/ goes through these functions and fails with one typed error carrying errno.
 *
 * @since 0.3.0
 */
export {
  access,
  call,
  callSteps,
  chmod,
  createExclusive,
  createSmallFile,
  describeDiskError,
  DiskError,
  diskError,
  errnoCode,
  ifExists,
  isNotFound,
  lstat,
  mkdir,
  mkdirp,
  open,
  readdir,
  readdirOfState,
  readFile,
  readlink,
  readText,
  realpath,
  remove,
  removeFile,
  removeFileIfInode,
  rename,
  SMALL_WRITE_BYTES,
  sizesOf,
  stat,
  useOpened,
  writeFile,
  writeFileAtomic,
  writeSmallFile
} from "./disk.js"
