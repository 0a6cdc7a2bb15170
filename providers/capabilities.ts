/**
 * What an endpoint can do, as data: the wire format's own needs (declared by each kind when it
 * registers), facts about well-known endpoints (a table keyed by origin), and overrides from
 * the provider's config table. Budgeting and vision code read this instead of branching on a
 * kind, vendor or model name.
 *
 * @module
 */
import { userImages } from "./image.ts";
import { providerKindDescriptor } from "./registry.ts";
import type { Message, ProviderRequest } from "./types.ts";

/** The output budget official DeepSeek applies when the request omits the cap: 384K. */
export const DEEPSEEK_AUTOMATIC_OUTPUT_TOKENS = 384 * 1024;

/** Everything known about one provider endpoint and model. */
export interface ProviderCapabilities {
  /** The wire format rejects a request without an output cap (Anthropic `max_tokens`). */
  requiresMaxTokens: boolean;
  /** Cap sent when one is required and neither the endpoint nor a 400 told us better. */
  defaultMaxTokens?: number;
  /**
   * The budget the endpoint applies on its own when the cap is omitted, which is also the most
   * it accepts. Undefined for endpoints nothing is known about: no shared window is assumed.
   */
  automaticOutputTokens?: number;
  /** The endpoint accepts Anthropic `thinking.budget_tokens` but ignores it. */
  ignoresThinkingBudget: boolean;
  /** The model accepts image input. */
  images: boolean;
}

/** The parts of a provider's settings capabilities depend on. */
export interface CapabilityInput {
  kind: string;
  baseUrl?: string;
  requestUrl?: string;
  chatUrl?: string;
  model: string;
  /** Kind-specific options from the config table (see {@link capabilitiesFor}). */
  options?: Record<string, unknown>;
}

interface EndpointFacts {
  /** `scheme://host[:port]` of the endpoint. */
  origin: string;
  /** Kinds the facts hold for; all kinds when absent. */
  kinds?: readonly string[];
  automaticOutputTokens?: number;
  ignoresThinkingBudget?: boolean;
  /** Models that accept images at this endpoint. */
  imageModels?: readonly string[];
}

/**
 * Well-known endpoints. Official DeepSeek (https://api-docs.deepseek.com): "MAX OUTPUT: 384K"
 * on every model, applied when the cap is omitted; its Anthropic-compatible layer documents
 * `thinking` as "Supported (budget_tokens is ignored)"; the vision model takes images.
 */
const KNOWN_ENDPOINTS: readonly EndpointFacts[] = [
  {
    origin: "https://api.deepseek.com",
    automaticOutputTokens: DEEPSEEK_AUTOMATIC_OUTPUT_TOKENS,
    imageModels: ["deepseek-v4-flash-vision-exp"],
  },
  { origin: "https://api.deepseek.com", kinds: ["anthropic"], ignoresThinkingBudget: true },
];

/**
 * Capabilities of a model at an endpoint. Config options override the table, so a gateway can
 * declare what it knows: `automatic_output_tokens` (number), `ignores_thinking_budget` (bool),
 * `images` (bool), and the legacy `vision_models` (list of model names).
 */
export function capabilitiesFor(input: CapabilityInput): ProviderCapabilities {
  const descriptor = providerKindDescriptor(input.kind);
  const origin = originOf(input.requestUrl ?? input.baseUrl ?? input.chatUrl);
  const caps: ProviderCapabilities = {
    requiresMaxTokens: descriptor.requiresMaxTokens,
    ignoresThinkingBudget: false,
    images: false,
  };
  if (descriptor.defaultMaxTokens !== undefined) {
    caps.defaultMaxTokens = descriptor.defaultMaxTokens;
  }
  for (const facts of KNOWN_ENDPOINTS) {
    if (facts.origin !== origin) continue;
    if (facts.kinds && !facts.kinds.includes(input.kind)) continue;
    if (facts.automaticOutputTokens !== undefined) {
      caps.automaticOutputTokens = facts.automaticOutputTokens;
    }
    if (facts.ignoresThinkingBudget !== undefined) {
      caps.ignoresThinkingBudget = facts.ignoresThinkingBudget;
    }
    if (facts.imageModels?.includes(input.model)) caps.images = true;
  }
  const options = input.options ?? {};
  const automatic = options.automatic_output_tokens;
  if (typeof automatic === "number" && Number.isInteger(automatic) && automatic > 0) {
    caps.automaticOutputTokens = automatic;
  }
  if (typeof options.ignores_thinking_budget === "boolean") {
    caps.ignoresThinkingBudget = options.ignores_thinking_budget;
  }
  if (typeof options.images === "boolean") caps.images = options.images;
  if (Array.isArray(options.vision_models) && options.vision_models.includes(input.model)) {
    caps.images = true;
  }
  return caps;
}

function originOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/**
 * What stands in for image `index` (1-based) of a message sent to a model that does not accept
 * images. Fixed bytes, a function of the position only, so the prefix is the same on every
 * request, after a resume and across model switches; the `<image-unavailable>` shape matches
 * the block the vision layer stores for an image it could not use.
 */
export function imagePlaceholder(index: number): string {
  return `<image-unavailable version="1" index="${index}">\n` +
    "An image was attached here. The current model does not accept images, so it was not " +
    "sent; ask the user to describe it if it matters.\n</image-unavailable>";
}

// Messages are immutable, so one text-only stand-in per message keeps serializer caches warm.
const textOnly = new WeakMap<Message, Message>();

function withoutImages(message: Message): Message {
  let stand = textOnly.get(message);
  if (stand === undefined) {
    const { images, ...rest } = message;
    const blocks = (images ?? []).map((_, i) => imagePlaceholder(i + 1));
    stand = Object.freeze({
      ...rest,
      content: [...(message.content === "" ? [] : [message.content]), ...blocks].join("\n\n"),
    });
    textOnly.set(message, stand);
  }
  return stand;
}

/**
 * `req` as an endpoint with `caps` can take it: for a model without image support every image
 * part of the history (a resumed session, a model switch, a turn stored under another model)
 * is replaced by {@link imagePlaceholder} text. The same request object when nothing changes.
 */
export function requestForCapabilities(
  req: ProviderRequest,
  caps: Pick<ProviderCapabilities, "images">,
): ProviderRequest {
  if (caps.images || !req.messages.some((m) => userImages(m) !== undefined)) return req;
  return {
    ...req,
    messages: req.messages.map((m) => userImages(m) === undefined ? m : withoutImages(m)),
  };
}
