/**
 * Markdown for the page, made inert: model and tool text becomes HTML in which every raw HTML
 * tag of the source is escaped text, links go only to http(s) and mail addresses, images are
 * shown as links (the page loads nothing from elsewhere), and code is highlighted by
 * highlight.js, whose output escapes the code. Runs in the browser bundle and in Deno tests.
 *
 * @module
 */
import { Marked, type Tokens } from "marked";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

for (
  const [name, lang] of Object.entries({
    bash,
    css,
    diff,
    go,
    javascript,
    json,
    python,
    rust,
    typescript,
    xml,
    yaml,
  })
) hljs.registerLanguage(name, lang);
hljs.registerAliases(["sh", "shell", "zsh"], { languageName: "bash" });
hljs.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["yml", "toml"], { languageName: "yaml" });
hljs.registerAliases(["patch"], { languageName: "diff" });

/** Escapes text for HTML content and attribute values. */
export function escapeText(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

/** Whether a link target may be followed from the page. */
function safeHref(href: string): boolean {
  return /^(https?:|mailto:)/i.test(href.trim());
}

/** Code highlighted when its language is known, escaped either way. */
export function highlight(code: string, lang: string | undefined): string {
  const name = (lang ?? "").trim().split(/\s/)[0].toLowerCase();
  if (name && hljs.getLanguage(name)) {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  }
  return escapeText(code);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in the source is shown as the text it is.
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeText(token.text);
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      if (!safeHref(token.href)) return text;
      return `<a href="${
        escapeText(token.href)
      }" rel="noopener noreferrer nofollow" target="_blank">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const label = escapeText(token.text || token.href);
      if (!safeHref(token.href)) return label;
      return `<a href="${
        escapeText(token.href)
      }" rel="noopener noreferrer nofollow" target="_blank">[image: ${label}]</a>`;
    },
    code(token: Tokens.Code): string {
      const lang = (token.lang ?? "").split(/\s/)[0];
      return `<pre class="code"><code class="hljs${lang ? ` language-${escapeText(lang)}` : ""}">${
        highlight(token.text, lang)
      }</code></pre>\n`;
    },
  },
});

/** The Markdown `source` as inert HTML. */
export function renderMarkdown(source: string): string {
  return marked.parse(source, { async: false }) as string;
}
