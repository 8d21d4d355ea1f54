export { type ExtractSpeechOptions, extractSpeech, positionUsOf } from "./extract-speech.ts";
export { createPreparer, type PreparerOptions } from "./preparer.ts";
export { type MediaInfo, probeMedia } from "./probe.ts";
export { ToolError } from "./run-tool.ts";
export { findMediaTools, type MediaTools } from "./tools.ts";
