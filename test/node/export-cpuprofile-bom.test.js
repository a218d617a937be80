// A .cpuprofile saved with a UTF-8 byte order mark (as some Windows editors and tools write
// it) and read as text starts with U+FEFF: fromCpuProfile reads it like the file without one.
import test from 'node:test';
import assert from 'node:assert/strict';
import { exportersUnderTest, HAND_BUILT, assertRoundTrip } from './fixtures/export-traces.mjs';

const { toCpuProfile, fromCpuProfile } = exportersUnderTest();

test('JSON text with a leading U+FEFF imports as without it', () => {
  const text = JSON.stringify(toCpuProfile(HAND_BUILT.SHARED_PREFIXES));
  const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
  const withBom = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  assert.equal(withBom.charCodeAt(0), 0xfeff);
  const t = fromCpuProfile(withBom);
  assert.deepEqual(t, fromCpuProfile(text));
  assertRoundTrip(HAND_BUILT.SHARED_PREFIXES, t);
});

test('a BOM anywhere else, or text that is not JSON, is still refused', () => {
  for (const text of ['\ufeff', '\ufeff\ufeff{}', ' \ufeff{}', '\ufeffnot json'])
    assert.throws(() => fromCpuProfile(text), { name: 'TypeError', message: /not JSON/ });
});
