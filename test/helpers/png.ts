// A valid PNG of an exact byte size, for tests at the upload limit: the image's own chunks with
// a private ancillary chunk (`prVt`, which decoders skip) inserted before IEND to fill it out.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Chunk length, type and CRC: what a chunk costs on top of its data. */
const CHUNK_OVERHEAD = 12;

export function pngOfSize(png: Buffer, size: number): Buffer {
  const iend = png.length - CHUNK_OVERHEAD;
  if (png.toString('latin1', iend + 4, iend + 8) !== 'IEND') throw new Error('the PNG does not end with IEND');
  const dataLength = size - png.length - CHUNK_OVERHEAD;
  if (dataLength < 0) throw new Error(`a ${png.length}-byte PNG cannot be padded to ${size} bytes`);
  const typeAndData = Buffer.alloc(4 + dataLength, 0x20);
  typeAndData.write('prVt', 0, 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(dataLength);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  const out = Buffer.concat([png.subarray(0, iend), length, typeAndData, crc, png.subarray(iend)]);
  if (out.length !== size) throw new Error(`padded to ${out.length} bytes, not ${size}`);
  return out;
}
