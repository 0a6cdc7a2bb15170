/**
 * The two HTML documents the server sends: the login page (all an unauthenticated browser
 * ever gets) and the app shell. Neither holds a script or style of its own: they load the
 * bundled files by hashed name, as the Content-Security-Policy requires.
 *
 * @module
 */
import { APP_CSS_NAME, APP_JS_NAME } from "./assets.generated.ts";
import type { AuthMode } from "./settings.ts";

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!,
  );
}

function head(title: string, extra = ""): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/assets/${APP_CSS_NAME}">
${extra}</head>`;
}

/** The login form: a token or a password, posted back to `/login`. */
export function loginPage(mode: Exclude<AuthMode, "none">, error?: string): string {
  const field = mode === "token"
    ? `<label for="secret">Access token</label>
<input id="secret" name="token" type="password" autocomplete="off" required autofocus>`
    : `<label for="secret">Password</label>
<input id="secret" name="password" type="password" autocomplete="current-password" required autofocus>`;
  return `${head("Reasonix · log in")}
<body class="login">
<main class="login-box">
<h1>Reasonix</h1>
<form method="post" action="/login">
${field}
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ""}
<button type="submit">Log in</button>
</form>
</main>
</body>
</html>
`;
}

/** The app shell: the page's script does the rest. `csrf` is bound to this browser session. */
export function appPage(csrf: string, opts: { logout: boolean }): string {
  return `${
    head(
      "Reasonix",
      `<meta name="reasonix-csrf" content="${escapeHtml(csrf)}">
<meta name="reasonix-logout" content="${opts.logout ? "1" : "0"}">
<script type="module" src="/assets/${APP_JS_NAME}"></script>
`,
    )
  }
<body>
<noscript>Reasonix needs JavaScript.</noscript>
</body>
</html>
`;
}
