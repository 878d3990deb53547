/**
 * `npm run startup`: the API Worker's start-up, as `wrangler check startup` profiles it, summarised
 * the way newer wranglers print it (profile window, active time with garbage collection, idle).
 * Active time is what the start-up budget (400 ms) is about: the CPU the Worker's global scope
 * takes; idle is workerd waiting before the first sample. `npm run deploy -- --dry-run` must have
 * built dist/assets first. `-- --runs N` profiles N times (default 3) and prints the median.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

interface Profile {
  startTime: number;
  endTime: number;
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

const PROFILE = 'worker-startup.cpuprofile';
const runsArg = process.argv.indexOf('--runs');
const runs = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 3) : 3;

/** Window, active (GC included), GC and idle milliseconds of one profile. */
function summarise(profile: Profile) {
  const names = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]));
  let idle = 0;
  let gc = 0;
  let sampled = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    sampled += dt;
    if (names.get(id) === '(idle)') idle += dt;
    else if (names.get(id) === '(garbage collector)') gc += dt;
  });
  return { window: (profile.endTime - profile.startTime) / 1000, active: sampled - idle, gc, idle };
}

const actives: number[] = [];
for (let run = 1; run <= runs; run++) {
  rmSync(PROFILE, { force: true });
  const result = spawnSync('npx', ['wrangler', 'check', 'startup'], {
    stdio: 'ignore',
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
  });
  if (result.status !== 0) throw new Error(`wrangler check startup failed (exit ${result.status})`);
  const s = summarise(JSON.parse(readFileSync(PROFILE, 'utf8')) as Profile);
  actives.push(s.active);
  console.log(
    `run ${run}: window ${s.window.toFixed(1)} ms, active ${s.active.toFixed(1)} ms ` +
      `(including ${s.gc.toFixed(1)} ms garbage collection), idle ${s.idle.toFixed(1)} ms`,
  );
}
actives.sort((a, b) => a - b);
console.log(
  `median active start-up: ${actives[Math.floor(actives.length / 2)]!.toFixed(1)} ms (budget 400 ms)`,
);
