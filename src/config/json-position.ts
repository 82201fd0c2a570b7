// Where a JSON text stops being JSON: an error can name a line and column without quoting the text (read-file.ts).

/**
 * Where JSON.parse gave up. V8 gives a position for most errors but only an excerpt of the text for an unexpected
 * token, so the position is found by a small scanner of the JSON grammar instead of reading the message.
 */
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => (text.startsWith(word, i) ? (i += word.length) : fail());
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text.charCodeAt(i) < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) fail();
    i += m![0].length;
  };
  const value = (depth: number): void => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') return container(c, depth);
    if (c === '"') return string();
    if (c === 't') return void literal('true');
    if (c === 'f') return void literal('false');
    if (c === 'n') return void literal('null');
    return number();
  };
  const container = (open: string, depth: number): void => {
    const close = open === '{' ? '}' : ']';
    i++;
    ws();
    if (text[i] === close) return void i++;
    for (;;) {
      if (open === '{') {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
      }
      value(depth + 1);
      ws();
      if (text[i] === close) return void i++;
      if (text[i] !== ',') fail();
      i++;
    }
  };
  try {
    value(0);
    ws();
    if (i < text.length) fail();
  } catch (at) {
    if (typeof at === 'number') return Math.min(at, text.length);
    // Nesting deep enough to exhaust the stack: report where the scanner was.
    return Math.min(i, text.length);
  }
  return text.length;
}
