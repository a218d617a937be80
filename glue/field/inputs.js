// Reading what `perfshim aggregate`, `diff` and `symbolicate` take: field uploads (gzipped or
// not), ProfilerTrace JSON, and .cpuprofile files, each into a trace of the field core.
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { PS_FIELD_MAX_BYTES } from '../host/abi.js';

const isUpload = (b) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x53 && b[2] === 0x46;

/** The bytes of `file`, inflated when gzipped. */
export function readBytes(file) {
  const raw = readFileSync(file);
  return raw[0] === 0x1f && raw[1] === 0x8b
    ? gunzipSync(raw, { maxOutputLength: Math.max(PS_FIELD_MAX_BYTES, 1 << 30) })
    : raw;
}

/** Whether `bytes` look like a pprof profile rather than an upload or JSON. */
export const isPprof = (bytes) => !isUpload(bytes) && bytes[0] === 0x0a;

/** `file` as {trace, interval, labels} in the field core `field` (free the trace with
 *  field.free). A file that is none of the three is a TypeError naming it. */
export function loadTrace(field, file, bytes = readBytes(file)) {
  if (isUpload(bytes)) {
    const v = field.decode(bytes);
    return { trace: v.trace, interval: v.interval, labels: v.labels, entries: v.entries };
  }
  let json;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes).replace(/^\uFEFF/, ''));
  } catch {
    throw new TypeError(`${file}: not a perfshim upload, a ProfilerTrace or a .cpuprofile`);
  }
  const h = field.trace();
  try {
    if (json && Array.isArray(json.nodes)) field.codec.importV8(h, json, 0);
    else field.codec.importTrace(h, json, Infinity, -Infinity, file);
  } catch (e) {
    field.free(h);
    throw e;
  }
  return { trace: h, interval: 0, labels: {}, entries: [] };
}
