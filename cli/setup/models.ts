/**
 * `GET /models` of an endpoint: the models it offers and, where the listing says so (OpenRouter
 * `context_length`, vLLM `max_model_len`, …), their context windows. OpenAI-style
 * `{"data":[{"id"}]}` and Anthropic-style `{"data":[{"id","type":"model"}],"has_more"}` bodies.
 *
 * @module
 */
import { redactSecrets } from "../../providers/http.ts";
import { endpointUrl } from "../../providers/settings.ts";

/** One listed model. */
export interface ListedModel {
  id: string;
  /** The window the listing states, when it states one. */
  contextWindow?: number;
}

/** What {@link listModels} found. */
export type ModelListing =
  | { status: "listed"; url: string; models: ListedModel[] }
  /** The endpoint refused the key (401/403): the key is wrong, nothing else will work. */
  | { status: "refused"; url: string; httpStatus: number; message: string }
  /** No listing (404, another error, an unreadable body, no connection). */
  | { status: "unavailable"; url: string; reason: string };

/** Where and how to ask. */
export interface ListModelsOptions {
  kind: string;
  baseUrl: string;
  apiKey?: string;
  signal: AbortSignal;
  /** Injected for tests; the global `fetch` by default. */
  fetch?: typeof fetch;
}

/** Fields different servers use for a model's window, in the order they are trusted. */
const WINDOW_FIELDS = ["context_length", "context_window", "max_model_len", "max_context_length"];

/** Asks the endpoint for its models. Never throws for a server's answer; never shows the key. */
export async function listModels(opts: ListModelsOptions): Promise<ModelListing> {
  const anthropic = opts.kind === "anthropic";
  const url = endpointUrl(
    { name: "setup", model: "", baseUrl: opts.baseUrl },
    anthropic ? "/v1/models" : "/models",
  ) + (anthropic ? "?limit=1000" : "");
  const headers: Record<string, string> = { accept: "application/json" };
  if (anthropic) {
    headers["anthropic-version"] = "2023-06-01";
    if (opts.apiKey) headers["x-api-key"] = opts.apiKey;
  } else if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const secrets = opts.apiKey ? [opts.apiKey] : [];
  let response: Response;
  try {
    response = await (opts.fetch ?? fetch)(url, { headers, signal: opts.signal });
  } catch (error) {
    if (opts.signal.aborted) throw error;
    const reason = redactSecrets(error instanceof Error ? error.message : String(error), secrets);
    return { status: "unavailable", url, reason };
  }
  const text = await response.text().catch(() => "");
  if (response.status === 401 || response.status === 403) {
    return {
      status: "refused",
      url,
      httpStatus: response.status,
      message: redactSecrets(serverMessage(text), secrets),
    };
  }
  if (!response.ok) {
    return { status: "unavailable", url, reason: `HTTP ${response.status}` };
  }
  try {
    const body = JSON.parse(text) as { data?: unknown };
    if (!Array.isArray(body.data)) throw new Error("no data list");
    const models: ListedModel[] = [];
    for (const entry of body.data as Record<string, unknown>[]) {
      if (typeof entry?.id !== "string" || entry.id === "") continue;
      const model: ListedModel = { id: entry.id };
      for (const field of WINDOW_FIELDS) {
        const value = entry[field];
        if (typeof value === "number" && Number.isInteger(value) && value > 0) {
          model.contextWindow = value;
          break;
        }
      }
      models.push(model);
    }
    return { status: "listed", url, models };
  } catch {
    return { status: "unavailable", url, reason: "the answer is not a model list" };
  }
}

/** The `error.message` of an OpenAI- or Anthropic-style error body, else the text's start. */
function serverMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = body.error?.message ?? body.message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: the text itself.
  }
  return text.slice(0, 200).trim();
}
