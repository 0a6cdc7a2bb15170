/**
 * The built-in tools. Importing this module registers every one of them with
 * `registerBuiltinTool`; each run then builds its own `ToolRegistry` from `builtinTools()`.
 *
 * @module
 */
import "./bash.ts";
import "./edit_file.ts";
import "./glob.ts";
import "./grep.ts";
import "./ls.ts";
import "./move_file.ts";
import "./multi_edit.ts";
import "./read_file.ts";
import "./write_file.ts";

export { bashTool } from "./bash.ts";
export { editFileTool } from "./edit_file.ts";
export { globTool } from "./glob.ts";
export { grepTool } from "./grep.ts";
export { lsTool } from "./ls.ts";
export { moveFileTool } from "./move_file.ts";
export { multiEditTool } from "./multi_edit.ts";
export { readFileTool } from "./read_file.ts";
export { writeFileTool } from "./write_file.ts";
export type { SearchEngine, SearchOptions } from "./ripgrep.ts";
