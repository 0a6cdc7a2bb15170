/**
 * The user's own words in a user turn, without the blocks the harness adds to it: what
 * session titles show and history search indexes.
 *
 * @module
 */

/** Strips the volatile blocks the harness adds to user turns, leaving the user's words. */
export function userText(content: string): string {
  return content
    .replace(/<environment>[\s\S]*?<\/environment>\s*/g, "")
    .replace(/<project-instructions[\s\S]*?<\/project-instructions>\s*/g, "")
    .replace(/<date>[\s\S]*?<\/date>\s*/g, "")
    .replace(/<recalled-memory[\s\S]*?<\/recalled-memory>\s*/g, "")
    .replace(/<image-description[\s\S]*?<\/image-description>\s*/g, "")
    .replace(/<image-unavailable[\s\S]*?<\/image-unavailable>\s*/g, "")
    .trim();
}
