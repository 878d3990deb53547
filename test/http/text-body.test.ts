import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { utf8Body } from '../../src/http/text-body';

const bytesOf = (...parts: string[]) => Buffer.from(parts.join(''), 'utf8');

describe('utf8Body', () => {
  it('encodes ASCII, accented, CJK and astral text exactly as Buffer.from does', () => {
    const parts = ['{"data":', '[{"title":"Kyiv – Київ, 東京 🌍"}]', ',"pagination":', '{}', '}'];
    expect(Buffer.compare(Buffer.from(utf8Body(...parts)), bytesOf(...parts))).toBe(0);
  });

  it('encodes a lone surrogate as U+FFFD, as Buffer.from does', () => {
    const parts = ['a\ud800b', '\udc00'];
    expect(Buffer.compare(Buffer.from(utf8Body(...parts)), bytesOf(...parts))).toBe(0);
  });

  it('gives the exact length, empty parts and no parts included', () => {
    expect(utf8Body().byteLength).toBe(0);
    expect(utf8Body('', 'é', '').byteLength).toBe(2);
  });

  it('keeps an earlier body intact when a later one is encoded', () => {
    const first = utf8Body('first page ', 'ü'.repeat(1000));
    const copy = Buffer.from(first);
    utf8Body('second page ', 'x'.repeat(5000));
    expect(Buffer.compare(Buffer.from(first), copy)).toBe(0);
  });

  it('encodes an answer larger than the reused buffer allows', () => {
    const large = 'Ж'.repeat(2_000_000);
    expect(Buffer.compare(Buffer.from(utf8Body('[', large, ']')), bytesOf('[', large, ']'))).toBe(0);
  });
});
