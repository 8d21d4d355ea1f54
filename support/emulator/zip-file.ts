import { crc32, deflateRawSync } from "node:zlib";

/** One file of a zip archive, deflated: made once, it can go into any number of archives. */
export interface ZipEntry {
  name: Buffer;
  crc: number;
  size: number;
  packed: Buffer;
}

/** Deflates one file of an archive: its path inside the archive and its contents. */
export function zipEntry(name: string, data: string | Uint8Array): ZipEntry {
  const raw = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  return {
    name: Buffer.from(name, "utf8"),
    crc: crc32(raw),
    size: raw.length,
    packed: deflateRawSync(raw),
  };
}

/** 1980-01-01 00:00, the earliest MS-DOS date: the archive's bytes depend on its contents only. */
const DOS_DATE = (0 << 9) | (1 << 5) | 1;
const DOS_TIME = 0;
/** "Deflate" (APPNOTE.TXT 4.4.5), version 2.0 needed to extract it (4.4.3.2). */
const DEFLATE = 8;
const VERSION = 20;
/** Bit 11 of the general purpose flags: names are UTF-8 (APPNOTE.TXT 4.4.4). */
const UTF8_NAMES = 0x0800;

/**
 * A zip archive (PKWARE APPNOTE.TXT: local headers, central directory, end record), every
 * entry deflated (`zipEntry`); small archives only (no zip64). What a DOCX is made of.
 */
export function zipFile(entries: readonly ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, crc, size, packed } of entries) {
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(UTF8_NAMES, 6);
    local.writeUInt16LE(DEFLATE, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, packed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(VERSION, 4);
    central.writeUInt16LE(VERSION, 6);
    central.writeUInt16LE(UTF8_NAMES, 8);
    central.writeUInt16LE(DEFLATE, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    // Extra field, comment, disk number, internal and external attributes: none.
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);

    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
