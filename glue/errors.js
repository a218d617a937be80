// One table from core status codes to the exceptions the specs name, and the helpers that
// build exceptions with browser-like messages. Nothing else in the shim throws strings.
export const S = Object.freeze({
  OK: 0, NOMEM: -1, TYPE: -2, SYNTAX: -3, RANGE: -4, INVALID_STATE: -5, NOT_FOUND: -6,
  LIMIT: -7, INVALID_ACCESS: -8, ARG: -9, NEGATIVE_START: -10, NEGATIVE_END: -11,
  MEASURE_END_MARK: -12, MEASURE_NO_RANGE: -13, MEASURE_OVERSPEC: -14, NEGATIVE_DURATION: -15,
  NOT_ALLOWED: -16, SECURITY: -17, NOT_SUPPORTED: -18, PARSE: -19, HOST_ARG: -20,
});

const DOMExceptionCtor = globalThis.DOMException || class DOMException extends Error {
  constructor(message = '', name = 'Error') { super(message); this.name = name; }
};

export function domException(name, message) { return new DOMExceptionCtor(message, name); }

const TABLE = {
  [S.NOMEM]: [RangeError, 'out of memory in the perfshim core'],
  [S.TYPE]: [TypeError, 'invalid argument'],
  [S.SYNTAX]: ['SyntaxError', 'syntax error'],
  [S.RANGE]: [RangeError, 'value out of range'],
  [S.INVALID_STATE]: ['InvalidStateError', 'invalid state'],
  [S.INVALID_ACCESS]: ['InvalidAccessError', 'invalid access'],
  [S.ARG]: [TypeError, 'invalid argument (internal)'],
  [S.NEGATIVE_START]: [TypeError, 'a start time cannot be negative'],
  [S.NEGATIVE_END]: [TypeError, 'an end time cannot be negative'],
  [S.NEGATIVE_DURATION]: [TypeError, 'duration cannot be negative'],
  [S.MEASURE_END_MARK]: [TypeError,
    'If a non-empty PerformanceMeasureOptions object was passed, |end_mark| must not be passed.'],
  [S.MEASURE_NO_RANGE]: [TypeError,
    "If a non-empty PerformanceMeasureOptions object was passed, at least one of its 'start' or 'end' properties must be present."],
  [S.MEASURE_OVERSPEC]: [TypeError,
    "If a non-empty PerformanceMeasureOptions object was passed, it must not have all of its 'start', 'duration', and 'end' properties defined"],
  [S.NOT_ALLOWED]: ['NotAllowedError', 'not allowed'],
  [S.SECURITY]: ['SecurityError', 'not allowed in this context'],
  [S.NOT_SUPPORTED]: ['NotSupportedError', 'not supported'],
  [S.PARSE]: [TypeError, 'malformed input'],
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
