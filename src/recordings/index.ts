export {
  AUDIO_DEMUXERS,
  type AudioContainer,
  MEDIA_DEMUXERS,
  type OtherFormat,
} from "./containers.ts";
export {
  audioFormatOf,
  declaredAudioFormat,
  describesMedia,
  SUPPORTED_AUDIO_FORMATS,
} from "./formats.ts";
export {
  asIsRefusal,
  CONTENT_REFUSALS,
  checkProbed,
  checkRecording,
  DEFAULT_MAX_RECORDING_HOURS,
  type DownloadVerdict,
  MAX_AUDIO_BYTES,
  MAX_FRAME_PIXELS,
  MAX_SOURCE_BYTES,
  type ProbedRecording,
  type StartRefusal,
  verdictOf,
} from "./refusals.ts";
export {
  demuxerOf,
  id3TagLength,
  type ReadAt,
  SNIFF_BYTES,
  type Sniffed,
  sniffContainer,
  sniffRecording,
} from "./sniff.ts";
