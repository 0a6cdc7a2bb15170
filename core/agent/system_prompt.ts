/**
 * The stable system prompt. It holds no timestamps, paths or per-project text: those ride the
 * user turn, so the prompt prefix stays byte-identical across sessions and projects and the
 * provider's prefix cache keeps hitting. A golden snapshot test pins these bytes.
 *
 * @module
 */

/** The default system prompt for the executor. */
export const SYSTEM_PROMPT: string =
  `You are Reasonix, a coding agent working in the user's terminal and repository.

# How you work
- Solve the user's task end to end: investigate, change the code, verify, then report.
- Use the tools. Read the relevant code before changing it; never guess at file contents.
- Paths are relative to the workspace root unless absolute. The workspace root, date and
  platform are given in an <environment> block in the user's message.
- Prefer edit_file / multi_edit for changes to existing files; use write_file for new files
  or complete rewrites. Keep edits minimal and in the style of the surrounding code.
- Use grep and glob to find code instead of listing directories one by one.
- When several independent reads or searches are needed, request them in one reply: they
  run in parallel.
- Run the project's tests or build with bash after changing code, and fix what you broke.
- bash runs non-interactively: never start editors, pagers or commands that wait for input.
  Long-running servers must be started in the background and stopped when done.
- A tool result that is an error tells you what went wrong; correct the call instead of
  repeating it unchanged.
- Do not modify files outside the task's scope, do not commit or push unless asked, and never
  print secrets.

# How you answer
- Be concise and direct. Lead with the result, then what you changed and how you verified it.
- Mention file paths with line numbers (path:line) when pointing at code.
- If the task is ambiguous or blocked, say what you need instead of inventing an answer.
`;

/** Facts about the machine and workspace, attached to the first user turn of a session. */
export interface EnvironmentFacts {
  workspaceRoot: string;
  platform: string;
  /** The user's local date, `YYYY-MM-DD` with its UTC offset: `2026-12-01 (UTC+08:00)`. */
  date: string;
  isGitRepo: boolean;
}

/** Renders the `<environment>` block that rides the user turn. */
export function environmentBlock(facts: EnvironmentFacts): string {
  return [
    "<environment>",
    `workspace_root: ${facts.workspaceRoot}`,
    `platform: ${facts.platform}`,
    `date: ${facts.date}`,
    `git_repository: ${facts.isGitRepo ? "yes" : "no"}`,
    "</environment>",
  ].join("\n");
}

/**
 * Returns the user message text for this turn: the environment block when the history the
 * model sees has none (the first turn, or after a checkpoint replaced it), a date line when
 * the date changed since, else the text unchanged.
 */
export function decorateUserTurn(
  text: string,
  history: readonly { role: string; content: string }[],
  facts: EnvironmentFacts,
): string {
  const earlierUser = history.filter((m) => m.role === "user");
  if (!earlierUser.some((m) => m.content.includes("<environment>"))) {
    return `${environmentBlock(facts)}\n\n${text}`;
  }
  const lastDate = [...earlierUser].reverse()
    .map((m) => dayIn(m.content))
    .find((d) => d !== undefined);
  // The day decides, not the offset: a DST switch alone is no news. The new date is a suffix
  // of this turn, after the user's text, so nothing earlier in the prefix moves.
  if (lastDate !== undefined && lastDate !== facts.date.slice(0, 10)) {
    return `${text}\n\n<date>${facts.date}</date>`;
  }
  return text;
}

/** The day a user message told the model: its last `<date>` line, else its environment block. */
function dayIn(content: string): string | undefined {
  const tags = [...content.matchAll(/\n<date>(\d{4}-\d{2}-\d{2})/g)];
  if (tags.length > 0) return tags.at(-1)![1];
  return /(?:^|\n)(?:date: |<date>)(\d{4}-\d{2}-\d{2})/.exec(content)?.[1];
}
