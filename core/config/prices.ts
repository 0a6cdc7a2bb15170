/**
 * Built-in list prices, used when neither the provider nor a model override sets `price`.
 *
 * Source: DeepSeek "Models & Pricing", https://api-docs.deepseek.com/quick_start/pricing
 * (the revision listing `deepseek-flash` = DeepSeek-V4.1-Flash-1017 and `deepseek-v4-pro` =
 * DeepSeek-V4-Pro-0813). DeepSeek bills a peak and an off-peak rate (off-peak is half);
 * a `Price` has no time of day, so these are the peak rates and costs are an upper bound.
 * The page says the legacy names `deepseek-v4-flash` and `deepseek-v4-flash-vision-exp` are
 * served by the Flash model at Flash prices. `deepseek-chat` / `deepseek-reasoner` are not
 * priced: they are retired aliases not in the default model list.
 *
 * @module
 */
import type { Price } from "./types.ts";

/** The endpoint origin the table applies to; a gateway serving the same names bills its own. */
export const DEEPSEEK_ORIGIN = "https://api.deepseek.com";

const FLASH: Price = { cache_hit: 0.006, input: 0.3, output: 1.2, currency: "USD" };
const PRO: Price = { cache_hit: 0.044, input: 1.32, output: 3.96, currency: "USD" };

const TABLE: Readonly<Record<string, Readonly<Record<string, Price>>>> = {
  [DEEPSEEK_ORIGIN]: {
    "deepseek-flash": FLASH,
    "deepseek-v4-flash": FLASH,
    "deepseek-v4-flash-vision-exp": FLASH,
    "deepseek-v4-pro": PRO,
  },
};

/** The built-in price of `model` at an endpoint origin, or `undefined`. */
export function builtinPrice(origin: string, model: string): Price | undefined {
  const price = TABLE[origin]?.[model];
  return price ? { ...price } : undefined;
}
