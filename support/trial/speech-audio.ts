/**
 * Speech-like sound, made here so the trial needs no recording of a real person: two voices
 * take turns, each a string of syllables (a vowel's harmonics shaped by its formants, a
 * breath of noise for the consonant before it) with pauses between words and turns. To a
 * speech detector and to FFmpeg it is a meeting; to a person it sounds like muffled talk.
 */

/** Who speaks: a voice's pitch, in Hz (a low and a high voice tell the turns apart). */
export interface Voice {
  pitchHz: number;
}

export interface SpeechOptions {
  /** About this long, in seconds (the last turn ends at a syllable's end). */
  seconds: number;
  sampleRate?: number;
  voices?: readonly Voice[];
  /** The same seed gives the same samples. */
  seed?: number;
}

/** Formants (F1, F2, F3 in Hz) of five vowels: the resonances that make an "a" an "a". */
const VOWELS: readonly (readonly [number, number, number])[] = [
  [730, 1090, 2440],
  [270, 2290, 3010],
  [300, 870, 2240],
  [530, 1840, 2480],
  [570, 840, 2410],
];
const BANDWIDTHS = [90, 110, 160] as const;
const DEFAULT_VOICES: readonly Voice[] = [{ pitchHz: 118 }, { pitchHz: 205 }];

/**
 * Mono 16-bit samples of a conversation about `seconds` long: turns of 2–4 s, voices in
 * turn, words of 1–3 syllables. Deterministic for a seed.
 */
export function speechLikeSamples(options: SpeechOptions): Int16Array {
  const rate = options.sampleRate ?? 16_000;
  const voices = options.voices ?? DEFAULT_VOICES;
  const random = seeded(options.seed ?? 7);
  const total = Math.round(options.seconds * rate);
  const out = new Float32Array(total);
  let at = Math.round(0.3 * rate);
  for (let turn = 0; at < total; turn += 1) {
    const voice = voices[turn % voices.length] ?? { pitchHz: 150 };
    const start = at;
    const end = Math.min(total, at + Math.round((2 + 2 * random()) * rate));
    while (at < end) {
      const syllables = 1 + Math.floor(3 * random());
      for (let s = 0; s < syllables && at < end; s += 1) {
        const length = Math.round((0.12 + 0.14 * random()) * rate);
        const vowel = VOWELS[Math.floor(random() * VOWELS.length)] ?? VOWELS[0];
        if (vowel === undefined || at + length > total) break;
        // Pitch falls over a turn, as statements do, and wavers syllable to syllable.
        const progress = (at - start) / Math.max(1, end - start);
        const pitch = voice.pitchHz * (1.1 - 0.2 * progress) + 8 * random();
        addSyllable(out, at, length, { rate, pitch, vowel, noise: random });
        at += length;
      }
      at += Math.round((0.05 + 0.1 * random()) * rate);
    }
    at += Math.round((0.3 + 0.3 * random()) * rate);
  }
  return toInt16(out);
}

interface Syllable {
  rate: number;
  pitch: number;
  vowel: readonly [number, number, number];
  noise: () => number;
}

/** A consonant's noise burst, then the vowel: harmonics of the pitch under a smooth envelope. */
function addSyllable(out: Float32Array, start: number, length: number, s: Syllable): void {
  const burst = Math.round(0.025 * s.rate);
  for (let i = 0; i < burst; i += 1) {
    out[start + i] = (out[start + i] ?? 0) + 0.08 * (s.noise() * 2 - 1) * (1 - i / burst);
  }
  const cycle = oneCycle(harmonicWeights(s.pitch, s.vowel, s.rate));
  const step = (cycle.length * s.pitch) / s.rate;
  const voiced = length - burst;
  for (let i = 0; i < voiced; i += 1) {
    const envelope = Math.sin((Math.PI * i) / voiced) ** 0.6;
    const index = start + burst + i;
    const sample = cycle[Math.floor(i * step) % cycle.length] ?? 0;
    out[index] = (out[index] ?? 0) + 0.5 * envelope * sample;
  }
}

/** One period of the vowel's waveform: the pitch is steady within a syllable. */
function oneCycle(harmonics: readonly number[]): Float32Array {
  const cycle = new Float32Array(512);
  for (let i = 0; i < cycle.length; i += 1) {
    const phase = (2 * Math.PI * i) / cycle.length;
    let sample = 0;
    harmonics.forEach((weight, k) => {
      sample += weight * Math.sin((k + 1) * phase);
    });
    cycle[i] = sample;
  }
  return cycle;
}

/** Each harmonic's weight: how near it lies to the vowel's formants, falling with frequency. */
function harmonicWeights(pitch: number, vowel: readonly number[], rate: number): number[] {
  const weights: number[] = [];
  for (let k = 1; k * pitch < Math.min(4000, rate / 2 - 200); k += 1) {
    const f = k * pitch;
    let gain = 0;
    vowel.forEach((formant, i) => {
      const width = BANDWIDTHS[i] ?? 150;
      gain += 1 / (1 + ((f - formant) / width) ** 2);
    });
    weights.push(gain / Math.sqrt(k));
  }
  const sum = weights.reduce((a, b) => a + b, 0) || 1;
  return weights.map((w) => w / sum);
}

/** Scales to 16-bit with headroom, never clipping. */
function toInt16(samples: Float32Array): Int16Array {
  let peak = 0;
  for (const s of samples) peak = Math.max(peak, Math.abs(s));
  const scale = peak === 0 ? 0 : (0.7 * 32767) / peak;
  return Int16Array.from(samples, (s) => Math.round(s * scale));
}

/** A small seeded generator (mulberry32): the same recording on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
