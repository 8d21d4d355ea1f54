/**
 * The service gives `progress` no type or unit (docs/note-service.md): 0..1 is a fraction,
 * 0..100 a percentage, a string is shown as it is (and read as a number when it holds one).
 */
export interface Progress {
  /** 0..1 when the service gave something measurable. */
  fraction: number | null;
  /** What to show; for numbers a rounded percentage such as "40%". */
  label: string;
}

const PERCENT_TEXT = /^\s*(\d{1,3}(?:\.\d+)?)\s*%\s*$/;
const NUMBER_TEXT = /^\s*(\d{1,3}(?:\.\d+)?)\s*$/;

/** Normalises whatever the service put in `progress`; null when there is nothing to show. */
export function normalizeProgress(raw: unknown): Progress | null {
  if (typeof raw === "number" && Number.isFinite(raw) && raw >= 0) {
    if (raw <= 1) return fromFraction(raw);
    if (raw <= 100) return fromFraction(raw / 100);
    return null;
  }
  if (typeof raw === "string") {
    const text = raw.trim().slice(0, 40);
    if (text === "") return null;
    const match = PERCENT_TEXT.exec(text);
    const percent = match?.[1] === undefined ? Number.NaN : Number(match[1]);
    if (percent >= 0 && percent <= 100) return { fraction: percent / 100, label: text };
    // A bare number reads as the number would: "0.45" and "45" are both "45%".
    const number = NUMBER_TEXT.exec(text)?.[1];
    const read = number === undefined ? null : normalizeProgress(Number(number));
    return read ?? { fraction: null, label: text };
  }
  return null;
}

function fromFraction(fraction: number): Progress {
  return { fraction, label: `${Math.round(fraction * 100)}%` };
}
