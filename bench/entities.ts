/**
 * `npx tsx bench/entities.ts`: entity extraction time on ordinary and hostile text of 10,000
 * and 50,000 characters (the tests check the work stays linear; timings belong here).
 */
import { extractEntities, extractionWork } from '../src/ingest/entities';

const word = (i: number) =>
  'Q' + ((i * 7919) % 100000).toString(36).replace(/[0-9]/g, (d) => 'abcdefghij'[Number(d)]!);

const TEXTS: Record<string, (n: number) => string> = {
  prose: (n) => 'Officials in Kyiv said President Volodymyr Zelensky met NATO leaders. '.repeat(n),
  'capitalised run': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' '),
  'ampersand chain': (n) => 'officials said the ' + Array.from({ length: n }, (_, i) => word(i)).join(' & '),
};

for (const [name, make] of Object.entries(TEXTS)) {
  for (const chars of [10_000, 50_000]) {
    let n = 16;
    while (make(n).length < chars) n *= 2;
    const text = make(n).slice(0, chars);
    extractEntities(text); // warm-up
    const runs = 5;
    const started = performance.now();
    for (let i = 0; i < runs; i++) extractEntities(text);
    const ms = (performance.now() - started) / runs;
    console.log(
      `${name.padEnd(16)} ${String(chars).padStart(6)} chars  ${ms.toFixed(1).padStart(7)} ms  work ${extractionWork()}`,
    );
  }
}
