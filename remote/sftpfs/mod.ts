/**
 * The file side of a remote workspace over SFTP.
 *
 * @module
 */
export { fileInfo, SftpFs, type SftpSource, shellQuote } from "./sftp_fs.ts";
