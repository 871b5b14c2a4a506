/**
 * The console guard's own contract, in-process (the spawned provider test in serve.test.ts checks
 * it end to end): every console method ends on the given sink, redacted, also now that the console
 * is built at its first use; a later assignment to `console` still takes effect.
 */
import { routeConsoleTo } from '../../src/provider/protocol/console-to-stderr';

describe('routeConsoleTo', () => {
  const original = Object.getOwnPropertyDescriptor(globalThis, 'console') as PropertyDescriptor;
  afterEach(() => Object.defineProperty(globalThis, 'console', original));

  test('log, warn and error all reach the sink, redacted', () => {
    const lines: string[] = [];
    routeConsoleTo({ write: (text) => lines.push(text) }, (text) => text.replaceAll('sk-secret', '[redacted]'));
    console.log('one sk-secret');
    console.warn('two');
    console.error('three %s', 'sk-secret');
    expect(lines).toEqual(['one [redacted]\n', 'two\n', 'three [redacted]\n']);
  });

  test('a console assigned afterwards replaces the routed one', () => {
    const lines: string[] = [];
    routeConsoleTo({ write: (text) => lines.push(text) }, (text) => text);
    const replacement = { ...original.value, log: (text: string) => lines.push(`replacement: ${text}`) } as Console;
    globalThis.console = replacement;
    console.log('four');
    expect(globalThis.console).toBe(replacement);
    expect(lines).toEqual(['replacement: four']);
  });
});
