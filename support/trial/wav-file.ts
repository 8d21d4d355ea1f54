/**
 * A RIFF/WAVE file of 16-bit PCM samples, mono: the one container the trial can write with
 * no tool at all, and one the Note Service takes as it is.
 */
export function wavFile(samples: Int16Array, sampleRate: number): Buffer {
  const dataBytes = samples.length * 2;
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16); // the fmt chunk's size for PCM
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // one channel
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28); // bytes a second
  header.writeUInt16LE(2, 32); // bytes a frame
  header.writeUInt16LE(16, 34); // bits a sample
  header.write("data", 36, "ascii");
  header.writeUInt32LE(dataBytes, 40);
  // Little-endian 16-bit samples, as RIFF stores them, whatever the machine's byte order.
  const data = Buffer.alloc(dataBytes);
  for (const [i, sample] of samples.entries()) data.writeInt16LE(sample, i * 2);
  return Buffer.concat([header, data]);
}
