// One table from core status codes (glue/host/abi.js, generated from src/perfshim.h) to the
// exceptions the specs name, and the helpers that build exceptions with browser-like messages.
// Nothing else in the shim throws strings.
import * as abi from './abi.js';

const DOMExceptionCtor =
  globalThis.DOMException ||
  class DOMException extends Error {
    constructor(message = '', name = 'Error') {
      super(message);
      this.name = name;
    }
  };

export function domException(name, message) {
  return new DOMExceptionCtor(message, name);
}

const NON_EMPTY_OPTIONS = 'If a non-empty PerformanceMeasureOptions object was passed,';
const TABLE = {
  [abi.PS_E_NOMEM]: [RangeError, 'out of memory in the perfshim core'],
  [abi.PS_E_SYNTAX]: ['SyntaxError', 'syntax error'],
  [abi.PS_E_ARG]: [TypeError, 'invalid argument (internal)'],
  [abi.PS_E_NEGATIVE_START]: [TypeError, 'a start time cannot be negative'],
  [abi.PS_E_NEGATIVE_END]: [TypeError, 'an end time cannot be negative'],
  [abi.PS_E_NEGATIVE_DURATION]: [TypeError, 'duration cannot be negative'],
  [abi.PS_E_MEASURE_END_MARK]: [TypeError, `${NON_EMPTY_OPTIONS} |end_mark| must not be passed.`],
  [abi.PS_E_MEASURE_NO_RANGE]: [
    TypeError,
    `${NON_EMPTY_OPTIONS} at least one of its 'start' or 'end' properties must be present.`,
  ],
  [abi.PS_E_MEASURE_OVERSPEC]: [
    TypeError,
    `${NON_EMPTY_OPTIONS} it must not have all of its 'start', 'duration', and 'end' properties defined`,
  ],
  [abi.PS_E_PARSE]: [TypeError, 'malformed input'],
};

/** The exception for a core status, with `context` ("Failed to execute 'x' on 'Y'") and an
 *  optional detail message that replaces the generic one. */
export function statusError(status, context, detail) {
  const [kind, generic] = TABLE[status] || [Error, `perfshim core status ${status}`];
  const message = `${context}: ${detail || generic}`;
  return typeof kind === 'string' ? domException(kind, message) : new kind(message);
}

export const failed = (op, iface) => `Failed to execute '${op}' on '${iface}'`;
export const failedConstruct = (iface) => `Failed to construct '${iface}'`;

/** A user-given name as messages quote it: longer than NAME_IN_MESSAGE code units, it is cut
 *  (never inside a surrogate pair) and marked with '…', so a 10 MB name gives a short message. */
const NAME_IN_MESSAGE = 100;
export function nameInMessage(name) {
  if (name.length <= NAME_IN_MESSAGE) return name;
  let end = NAME_IN_MESSAGE;
  const c = name.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${name.slice(0, end)}…`;
}
