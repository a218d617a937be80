// The bench's floor builds (bench/instrument.mjs): an instrumented file cut down to what any
// shadow stack costs, and to the transform's code shape alone.
/** The floor builds (see bench/instrument.mjs) from an instrumented file's text: what the transform emits
 *  for an ordinary function (glue/instrument/transform.js) matched literally. Every inline
 *  function has one push, one pop and two logging tests; a count that disagrees means the
 *  transform's text changed and these patterns must follow. */
export function floorBuilds(code) {
  const id = '__psb_\\w+\\+\\d+';
  const logTest = new RegExp(
    `if\\(__pss\\[1\\]&&\\(__pss\\[__pss\\[1\\]\\+\\+\\]=(?:~__pst|${id}),__pss\\[1\\]===258\\|\\|!__pst\\|\\|` +
      `__pss\\[2\\]&&__ps\\.F\\[${id}\\]\\|__ps\\.F\\[__pss\\[__pst\\+257\\]\\]\\)\\)__ps\\.l\\(__pst\\);`,
    'g',
  );
  const push = new RegExp(
    `let __pst=(?:__pss|\\(__pss\\|\\|__psh_\\w+\\(\\)\\))\\[0\\],__psv;__pss\\[__pst\\+258\\]=${id};__pss\\[0\\]=__pst\\+1;((?:__psx:)?)try\\{`,
    'g',
  );
  const pop = /\}catch\(__pse\)\{__ps\.x\(__pst\);throw __pse\}__pss\[0\]=__pst;return __psv/g;
  const count = (re) => (code.match(re) || []).length;
  const stack = code.replace(logTest, '');
  const n = { logs: count(logTest), pushes: (stack.match(push) || []).length };
  n.pops = (stack.match(pop) || []).length;
  if (n.pushes === 0 || n.pops !== n.pushes || n.logs !== 2 * n.pushes)
    throw new Error(`floor builds: the transform's text changed (${JSON.stringify(n)})`);
  const bare = stack.replace(push, 'let __psv;$1{').replace(pop, '}return __psv');
  return { stack, bare };
}
