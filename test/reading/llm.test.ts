import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { OutboundFetch } from '../../src/net/outbound';
import { clearGradeCache, gradeNewsItems, MAX_RAISE } from '../../src/reading/llm';
import { readNewsItem } from '../../src/reading/news';
import type { SourceItem } from '../../src/sources/types';
import { startFakeLlm, type Reply } from './fake-llm';
import { fixedModel } from './fixed-model';

// A loopback OpenAI-compatible server answering with `answer`.
let fake: Awaited<ReturnType<typeof startFakeLlm>>;
let url = '';
let answer: Reply;
let asked: string[] = [];

beforeAll(async () => {
  fake = await startFakeLlm({
    get current() {
      return answer;
    },
  });
  ({ url, asked } = fake);
});
afterAll(() => fake.close());
beforeEach(() => {
  clearGradeCache();
  asked.length = 0;
});

const loopbackFetch: OutboundFetch = (input, init) => fetch(input, init);

// Invented headlines, read as the rss connector would, by a model that keeps them as military
// crises: the grader is what is tested here, not the trained weights.
const keeper = fixedModel({ keep: true, layer: 'military', valence: 'crisis' });
function item(title: string): SourceItem {
  const read = readNewsItem({ title, summary: '', link: null, language: 'en', tier: 'community' }, keeper);
  return {
    threat_layer: read.reading.layer ?? 'political',
    significance_score: read.reading.score,
    signal_valence: read.reading.valence,
    title,
    content_display: title,
    country_codes: read.countries,
    published_at: '2026-05-01T00:00:00Z',
    source_url: 'https://paper.example/news/1',
    external_ids: [`rss:${title}`],
    classification: read.classification ?? undefined,
  };
}
const grade = (layer: string, severity: number, valence: string) => ({
  status: 200,
  content: JSON.stringify({ layer, severity, valence }),
});

describe('the optional LLM grader', () => {
  it('applies a grade at temperature 0, raising the score by at most 2, and records it', async () => {
    answer = (body) =>
      body.temperature === 0 ? grade('military', 10, 'crisis') : { status: 500, content: '' };
    const kept = item('Artillery shelling hits border town in Freedonia');
    const [out] = await gradeNewsItems([kept], loopbackFetch, { url });
    expect(out!.significance_score).toBe(Math.round((kept.significance_score + MAX_RAISE) * 10) / 10);
    expect(out!.classification?.llm).toMatchObject({
      rules: { score: kept.significance_score },
      graded: { layer: 'military', valence: 'crisis' },
    });
  });

  it('lowers a score and changes the layer within the vocabularies', async () => {
    answer = () => grade('economic', 1, 'update');
    const [out] = await gradeNewsItems(
      [item('Artillery shelling hits border town in Freedonia')],
      loopbackFetch,
      { url },
    );
    expect(out).toMatchObject({ threat_layer: 'economic', significance_score: 1, signal_valence: 'update' });
  });

  it('never sees an item the gate dropped, so it cannot keep one', async () => {
    answer = () => grade('military', 9, 'crisis');
    const dropped = { ...item('How the harbour got its name'), classification: undefined };
    const [out] = await gradeNewsItems([dropped], loopbackFetch, { url });
    expect(asked).toHaveLength(0);
    expect(out).toBe(dropped);
  });

  it('keeps the rules’ reading when the answer is outside the vocabularies, malformed or an error', async () => {
    const kept = item('Artillery shelling hits border town in Freedonia');
    for (const bad of [
      grade('weather', 5, 'crisis'),
      grade('military', 11, 'crisis'),
      { status: 200, content: 'no json' },
      { status: 500, content: '' },
    ]) {
      clearGradeCache();
      answer = () => bad;
      const [out] = await gradeNewsItems([kept], loopbackFetch, { url });
      expect(out).toBe(kept);
    }
  });

  it('caches grades by the text and asks at most maxItems per document', async () => {
    answer = () => grade('military', 7, 'crisis');
    const a = item('Artillery shelling hits border town in Freedonia');
    await gradeNewsItems([a], loopbackFetch, { url });
    await gradeNewsItems([a], loopbackFetch, { url });
    expect(asked).toHaveLength(1);

    const many = [
      'Rocket attack on a depot in Freedonia',
      'Drone strike on a convoy in Freedonia',
      'Air strike on a bridge in Freedonia',
    ].map(item);
    const out = await gradeNewsItems(many, loopbackFetch, { url, maxItems: 2 });
    expect(asked).toHaveLength(3);
    expect(out[2]).toBe(many[2]);
  });

  it('stops asking once the time budget of the document is spent', async () => {
    answer = () => grade('military', 7, 'crisis');
    // Each look at the clock is a second later: the first item is asked, the budget is then spent.
    let t = 0;
    const clock = () => (t += 1_000);
    const many = ['Rocket attack on a depot in Freedonia', 'Drone strike on a convoy in Freedonia'].map(item);
    const out = await gradeNewsItems(many, loopbackFetch, { url, budgetMs: 1_500 }, clock);
    expect(asked).toHaveLength(1);
    expect(out[1]).toBe(many[1]);
  });
});
