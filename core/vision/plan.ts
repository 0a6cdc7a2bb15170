/**
 * How a run handles images (spec §3.5, `agent.vision_model`): the executor reads them itself
 * when it can; else a configured vision model describes them; else they cannot be used.
 *
 * @module
 */
import { capabilitiesFor } from "../../providers/capabilities.ts";
import { ConfigError } from "../config/errors.ts";
import { resolvedCapabilities } from "../config/output_budget.ts";
import { resolveModel } from "../config/resolve_model.ts";
import type { Config, ProviderConfig, ResolvedModel } from "../config/types.ts";

/** What happens to the images of a user turn. */
export type VisionPlan =
  /** The executor accepts images: they are attached to the user message. */
  | { mode: "direct" }
  /** A text-only executor: `vision` describes each image into the user message. */
  | { mode: "describe"; vision: ResolvedModel }
  /**
   * A text-only executor and no usable fallback: images cannot be used. `error` says why and
   * what to change; it is raised only when images are actually given.
   */
  | { mode: "none"; error: ConfigError };

/** `provider/model` of a resolved model, as users write it. */
export function modelLabel(resolved: ResolvedModel): string {
  return `${resolved.provider.name}/${resolved.model}`;
}

/**
 * Plans image handling for `executor`. `vision_model` empty or unset: no fallback. `auto`: the
 * first image-capable model the executor's own provider lists (none found is a `none` plan
 * whose error names the fix, so a global `auto` does not break text-only runs elsewhere).
 * `provider/model` (or any model spec): that model, on any provider. Throws
 * {@link ConfigError} when an explicit vision model does not exist or does not accept images.
 * Nothing is sent to decide this.
 */
export function planVision(config: Config, executor: ResolvedModel): VisionPlan {
  const spec = config.agent.vision_model?.trim() ?? "";
  const direct = resolvedCapabilities(executor).images;
  if (spec === "" || spec === "auto") {
    if (direct) return { mode: "direct" };
    if (spec === "") return { mode: "none", error: imagesUnsupportedError(executor) };
    const vision = autoVisionModel(config, executor);
    return typeof vision === "string"
      ? { mode: "none", error: autoError(executor, vision) }
      : { mode: "describe", vision };
  }
  // An explicit model is checked even when the executor reads images itself: a configured
  // but unusable model is a configuration error, not something to skip silently.
  const vision = explicitVisionModel(config, spec);
  return direct ? { mode: "direct" } : { mode: "describe", vision };
}

/** The error for images sent to a text-only model with no fallback configured. */
export function imagesUnsupportedError(executor: ResolvedModel): ConfigError {
  return new ConfigError({
    problem: `model ${modelLabel(executor)} cannot read images`,
    fix: `set agent.vision_model = "auto" (a vision model of the same provider) or ` +
      `"provider/model", or pick an image-capable model with --model`,
  });
}

/** The provider's first image-capable model, or the provider's name when it has none. */
function autoVisionModel(config: Config, executor: ResolvedModel): ResolvedModel | string {
  const p = executor.provider;
  const candidate = candidates(p).find((model) => imageCapable(p, model));
  return candidate === undefined ? p.name : resolveModel(config, `${p.name}/${candidate}`);
}

function autoError(executor: ResolvedModel, provider: string): ConfigError {
  return new ConfigError({
    problem: `model ${modelLabel(executor)} cannot read images and agent.vision_model = ` +
      `"auto" found no image-capable model in provider "${provider}"`,
    fix: `set agent.vision_model = "provider/model" to an image-capable model, declare one ` +
      `with vision_models = ["..."] (or images = true) in [[providers]] "${provider}", or pick ` +
      `an image-capable model with --model`,
  });
}

/** Models `auto` may pick: those listed, or the declared vision models of an open list. */
function candidates(p: ProviderConfig): string[] {
  if (p.models.length > 0) return p.models;
  const declared = p.options.vision_models;
  return Array.isArray(declared) ? declared.filter((m) => typeof m === "string") : [];
}

function imageCapable(p: ProviderConfig, model: string): boolean {
  return capabilitiesFor({
    kind: p.kind,
    baseUrl: p.base_url,
    requestUrl: p.request_url,
    chatUrl: p.chat_url,
    model,
    options: p.options,
  }).images;
}

function explicitVisionModel(config: Config, spec: string): ResolvedModel {
  let vision: ResolvedModel;
  try {
    vision = resolveModel(config, spec);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError({
      problem: `agent.vision_model = "${spec}": ${error.problem}`,
      fix: `set agent.vision_model to "auto", to an image-capable provider/model, or leave it ` +
        `empty`,
      cause: error,
    });
  }
  if (!resolvedCapabilities(vision).images) {
    throw new ConfigError({
      problem: `agent.vision_model = "${spec}" names ${
        modelLabel(vision)
      }, which is not known to accept images`,
      fix: `pick an image-capable model, or declare it with vision_models = ["${vision.model}"] ` +
        `in [[providers]] "${vision.provider.name}"`,
    });
  }
  return vision;
}
