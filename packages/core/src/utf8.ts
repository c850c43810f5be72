import { isUtf8 } from 'node:buffer';

/**
 * Streaming UTF-8 check following the WHATWG decoder (the one behind `TextDecoder` and Node's `Buffer#toString`):
 * `invalid` counts the sequences a decoder replaces with U+FFFD, `firstInvalidOffset` is the byte offset where the
 * first of them starts (as Python's `UnicodeDecodeError` reports its position).
 */
export class Utf8Validator {
  /** Invalid sequences seen so far. */
  invalid = 0;
  /** Byte offset of the first invalid sequence (-1 while there is none). */
  firstInvalidOffset = -1;
  private offset = 0;
  private needed = 0;
  private seen = 0;
  private lower = 0x80;
  private upper = 0xbf;
  private start = 0;

  private error(at: number): void {
    if (this.invalid === 0) this.firstInvalidOffset = at;
    this.invalid++;
  }

  push(bytes: Uint8Array): void {
    // Fast path (native check) for the part of the chunk that ends on a sequence boundary, when no sequence is open.
    if (this.needed === 0) {
      const cut = boundaryBefore(bytes);
      if (cut > 0 && isUtf8(bytes.subarray(0, cut))) {
        this.offset += cut;
        if (cut === bytes.length) return;
        this.slow(bytes.subarray(cut));
        return;
      }
    }
    this.slow(bytes);
  }

  private slow(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      const pos = this.offset + i;
      if (this.needed === 0) {
        if (b <= 0x7f) continue;
        this.start = pos;
        if (b >= 0xc2 && b <= 0xdf) this.needed = 1;
        else if (b >= 0xe0 && b <= 0xef) {
          if (b === 0xe0) this.lower = 0xa0;
          if (b === 0xed) this.upper = 0x9f;
          this.needed = 2;
        } else if (b >= 0xf0 && b <= 0xf4) {
          if (b === 0xf0) this.lower = 0x90;
          if (b === 0xf4) this.upper = 0x8f;
          this.needed = 3;
        } else this.error(pos);
        continue;
      }
      if (b < this.lower || b > this.upper) {
        // The sequence ends before this byte, which starts again as a new one.
        this.reset();
        this.error(this.start);
        i--;
        continue;
      }
      this.lower = 0x80;
      this.upper = 0xbf;
      if (++this.seen === this.needed) this.reset();
    }
    this.offset += bytes.length;
  }

  /** End of input: a sequence cut short is invalid. */
  end(): void {
    if (this.needed !== 0) {
      this.reset();
      this.error(this.start);
    }
  }

  private reset(): void {
    this.needed = 0;
    this.seen = 0;
    this.lower = 0x80;
    this.upper = 0xbf;
  }
}

/** Length of the longest prefix of `bytes` that does not end inside a multi-byte sequence (at most 3 bytes shorter). */
function boundaryBefore(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let back = 1; back <= Math.min(4, n); back++) {
    const b = bytes[n - back]!;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back
    const len = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return len > back ? n - back : n;
  }
  return n;
}
