/**
 * `reasonix serve` in a real browser: Debian's Chromium driven by playwright-core against the
 * real web app, host and fake LLM. Logs in with the printed token URL, streams a reply,
 * reloads mid-turn, approves an edit after seeing its diff, cancels a turn, switches sessions
 * and checks that a script payload in the reply stays text. Screenshots go to
 * tests/artifacts/serve/.
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServeLab } from "./serve_support.ts";

const CHROMIUM = "/usr/bin/chromium";
const ARTIFACTS = join(dirname(fileURLToPath(import.meta.url)), "../artifacts/serve");
const present = await Deno.stat(CHROMIUM).then(() => true, () => false);
if (!present) console.error(`serve_browser_test: skipped, ${CHROMIUM} is not installed`);

const REPLY = 'Hello **world**, here is `code` and <img src=x onerror="window.__xss=1">' +
  "<script>window.__xss=2</script>.\n\n```ts\nconst answer = 42;\n```\n\n" +
  Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ") + " end.";

Deno.test({
  name: "the browser logs in, streams, resumes, approves, cancels and switches sessions",
  ignore: !present,
  sanitizeResources: false,
  sanitizeOps: false,
}, async () => {
  const { chromium } = await import("playwright-core");
  await Deno.mkdir(ARTIFACTS, { recursive: true });
  const lab = await startServeLab({
    files: { "notes.txt": "alpha\nbeta\n", "src/main.ts": "console.log(1);\n" },
    script: [
      { text: REPLY, delayMs: 40, chunkBytes: 24 },
      {
        text: "I will edit the notes.",
        toolCalls: [{
          name: "edit_file",
          arguments: JSON.stringify({ path: "notes.txt", old_string: "beta", new_string: "gamma" }),
        }],
      },
      { text: "Edited the notes." },
      { hang: "mid-stream", text: "Thinking very slowly about it" },
    ],
  });
  const profile = await Deno.makeTempDir({ prefix: "reasonix-chromium-" });
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1100, height: 800 },
  });
  const shot = (page: import("playwright-core").Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: false });
  try {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));

    // Without the token: the login form only.
    await page.goto(`${lab.origin}/`);
    assert.match(page.url(), /\/login$/);
    await shot(page, "01-login");
    // The printed URL logs in and drops the token from the address bar.
    await page.goto(lab.serve.url);
    assert.equal(page.url(), `${lab.origin}/`);
    await page.waitForSelector("#status:has-text('fake/fake-model')");

    // A prompt; the reply streams in.
    await page.fill("#prompt", "hello");
    await page.press("#prompt", "Enter");
    await page.waitForSelector(".msg.assistant");
    const lengths = new Set<number>();
    for (let i = 0; i < 12; i++) {
      lengths.add((await page.textContent(".msg.assistant"))?.length ?? 0);
      await page.waitForTimeout(60);
    }
    assert.ok(lengths.size >= 3, `the text grew in steps: ${[...lengths]}`);
    await shot(page, "02-streaming");
    // Reload mid-turn: the page comes back and follows the rest.
    await page.reload();
    await page.waitForSelector(".msg.assistant:has-text('end.')", { timeout: 20_000 });
    await page.waitForFunction(() => !document.body.classList.contains("running"));
    assert.deepEqual(await page.$$eval(".msg.user", (n) => n.map((x) => x.textContent)), ["hello"]);
    assert.equal(await page.locator(".msg.assistant").count(), 1, "nothing doubled");
    const shown = await page.textContent(".msg.assistant");
    assert.ok(shown?.includes("Hello world, here is code and"), shown ?? "");
    assert.ok(shown?.includes("w0 w1 w2"), "nothing lost");
    // The payload is text: no element, no script ran.
    assert.equal(await page.locator("#transcript img, #transcript script").count(), 0);
    assert.equal(
      await page.evaluate(() => (window as unknown as { __xss?: number }).__xss),
      undefined,
    );
    assert.ok(shown?.includes("<script>window.__xss=2</script>"));
    assert.equal(
      await page.locator("#transcript pre.code .hljs-keyword").count(),
      1,
      "highlighted",
    );
    await shot(page, "03-reply");

    // Completion: slash commands and @files.
    await page.fill("#prompt", "/mo");
    await page.waitForSelector("#completion li[data-value='model']");
    await page.fill("#prompt", "look at @src/");
    await page.waitForSelector("#completion li[data-value='src/main.ts']");
    await shot(page, "04-completion");
    await page.fill("#prompt", "");

    // An edit asks; the diff is shown; allow once.
    await page.fill("#prompt", "edit the notes");
    await page.press("#prompt", "Enter");
    const approval = page.locator(".approval");
    await approval.waitFor();
    const diff = await approval.locator("pre.diff").textContent();
    assert.match(diff ?? "", /-beta/);
    assert.match(diff ?? "", /\+gamma/);
    await shot(page, "05-approval");
    await approval.locator("button[data-choice='once']").click();
    await page.waitForSelector(".msg.assistant:has-text('Edited the notes.')");
    await page.waitForSelector(".tool.ok pre.diff");
    assert.equal(await Deno.readTextFile(join(lab.repo, "notes.txt")), "alpha\ngamma\n");
    assert.equal(await approval.count(), 0);
    await shot(page, "06-edited");

    // Cancel a turn.
    await page.fill("#prompt", "think slowly");
    await page.press("#prompt", "Enter");
    await page.waitForSelector("body.running #cancel:visible");
    await page.click("#cancel");
    await page.waitForSelector(".notice:has-text('Cancelled.')");
    await page.waitForFunction(() => !document.body.classList.contains("running"));
    await shot(page, "07-cancelled");

    // Reload after all that: the stored session, once.
    const before = await page.$$eval(".msg.user", (n) => n.map((x) => x.textContent));
    await page.reload();
    await page.waitForSelector(".msg.user");
    const after = await page.$$eval(".msg.user", (n) => n.map((x) => x.textContent));
    assert.deepEqual(after.slice(0, 2), ["hello", "edit the notes"]);
    assert.deepEqual(after, before.slice(0, after.length));
    const first = await page.getAttribute("body", "data-session");

    // Sessions: a new one, then back.
    await page.click("#new-session");
    await page.waitForFunction((id) => document.body.dataset.session !== id, first);
    assert.equal(await page.locator(".msg").count(), 0);
    await page.click("#sessions-button");
    await page.click(`button.session[data-session='${first}']`);
    await page.waitForFunction((id) => document.body.dataset.session === id, first);
    await page.waitForSelector(".msg.user:has-text('hello')");
    await shot(page, "08-sessions");

    // Phone-sized.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(100);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling on a phone (${overflow}px)`);
    await shot(page, "09-phone");
    assert.deepEqual(errors, [], "no script errors and no CSP violations");
  } catch (error) {
    for (const p of context.pages()) await shot(p, "99-failure").catch(() => {});
    throw error;
  } finally {
    await context.close();
    await lab.close();
    await Deno.remove(profile, { recursive: true }).catch(() => {});
  }
});
