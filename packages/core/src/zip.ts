import { crc32, inflateRawSync } from 'node:zlib';
import { InputError } from './errors';

/** The entries of a ZIP archive (stored or deflated; no ZIP64, no encryption), decompressed and CRC-checked. */
export function readZip(buf: Uint8Array, label = 'zip'): Map<string, Buffer> {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  let eocd = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (b.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new InputError('not a ZIP archive (no end of central directory)', { file: label });
  const count = b.readUInt16LE(eocd + 10);
  let p = b.readUInt32LE(eocd + 16);
  const out = new Map<string, Buffer>();
  for (let k = 0; k < count; k++) {
    if (b.readUInt32LE(p) !== 0x02014b50) throw new InputError('corrupt ZIP central directory', { file: label });
    const method = b.readUInt16LE(p + 10);
    const crc = b.readUInt32LE(p + 16);
    const csize = b.readUInt32LE(p + 20);
    const usize = b.readUInt32LE(p + 24);
    const nameLen = b.readUInt16LE(p + 28);
    const extraLen = b.readUInt16LE(p + 30);
    const commentLen = b.readUInt16LE(p + 32);
    const local = b.readUInt32LE(p + 42);
    const name = b.subarray(p + 46, p + 46 + nameLen).toString('utf8');
    p += 46 + nameLen + extraLen + commentLen;
    if (name.endsWith('/')) continue;
    if (b.readUInt32LE(local) !== 0x04034b50)
      throw new InputError(`corrupt ZIP local header for ${name}`, { file: label });
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28);
    const raw = b.subarray(start, start + csize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflateRawSync(raw);
    else throw new InputError(`unsupported ZIP compression method ${method} for ${name}`, { file: label });
    if (data.length !== usize)
      throw new InputError(`ZIP entry ${name}: size ${data.length}, expected ${usize}`, { file: label });
    if (crc32(data) >>> 0 !== crc) throw new InputError(`ZIP entry ${name}: CRC mismatch`, { file: label });
    out.set(name, data);
  }
  return out;
}
