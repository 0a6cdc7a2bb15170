/**
 * Images in user turns (spec §3.5): loading attachments, choosing between sending images and
 * describing them with `agent.vision_model`, and the versioned description blocks.
 *
 * @module
 */
export {
  ImageInputError,
  type ImageMediaType,
  loadImage,
  loadImages,
  MAX_IMAGE_BYTES,
  sniffImageType,
} from "./image_input.ts";
export { imagesUnsupportedError, modelLabel, planVision, type VisionPlan } from "./plan.ts";
export {
  describeImage,
  type DescribeOptions,
  type Description,
  DESCRIPTION_MAX_TOKENS,
  IMAGE_DESCRIPTION_VERSION,
  imageDescriptionBlock,
  imageUnavailableBlock,
  VISION_SYSTEM_PROMPT,
  VisionError,
} from "./describe.ts";
export { type ImageTurn, ImageTurns, type ImageTurnsOptions, type VisionNotice } from "./turn.ts";
