/**
 * Records of earlier versions, brought up to date before parsing: `partsPosted` is `postedParts`,
 * and quotes moved out of each speaker into a field of their own.
 */
export function migrateStoredJob(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  let record = raw;
  if (record.stage === "done" && record.postedParts === undefined && "partsPosted" in record) {
    const { partsPosted, ...rest } = record;
    record = { ...rest, postedParts: partsPosted };
  }
  if (isRecord(record.resume)) record = { ...record, resume: withSpeakersMigrated(record.resume) };
  return withSpeakersMigrated(record);
}

function withSpeakersMigrated(job: Record<string, unknown>): Record<string, unknown> {
  const migrated = withQuotesApart(job);
  return isRecord(migrated.note) ? { ...migrated, note: withQuotesApart(migrated.note) } : migrated;
}

function withQuotesApart(holder: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(holder.speakers) || "quotes" in holder) return holder;
  const quotes: Record<string, unknown> = {};
  const speakers = holder.speakers.map((speaker: unknown) => {
    if (!isRecord(speaker)) return speaker;
    const { quotes: own, ...rest } = speaker;
    if (typeof rest.speakerId === "string" && own !== undefined) quotes[rest.speakerId] = own;
    return rest;
  });
  return { ...holder, speakers, quotes: { inline: quotes } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
