import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BIN, ROOT, ensureBuilt } from './bundle';
import { cli } from './run-cli';
import { runPodplan } from './run-cli-process';

const ESCAPE = '\x1b[';

/** `podplan <args>` on a terminal (util-linux's script gives it a pseudo-terminal): what the terminal shows. */
function onTerminal(args: string, env: Record<string, string> = {}): string {
  ensureBuilt();
  const environment: Record<string, string | undefined> = { ...process.env, PODPLAN_DB: '/nonexistent/history.db', ...env };
  if (!('NO_COLOR' in env)) delete environment['NO_COLOR'];
  return spawnSync('script', ['-qec', `${process.execPath} ${BIN} ${args}`, '/dev/null'], { cwd: ROOT, encoding: 'utf8', env: environment })
    .stdout;
}

describe('cli/colour: colour on a terminal, never in a pipe or with NO_COLOR', () => {
  it('on a terminal: the header bold, placed nodes green, unplaced red', () => {
    const shown = onTerminal('schedule examples/cluster --no-history');
    assert.ok(shown.includes(`${ESCAPE}1mPOD${ESCAPE}22m`), JSON.stringify(shown.slice(0, 200)));
    assert.ok(shown.includes(`${ESCAPE}32mnode-`), "a placed pod's node green");
    assert.ok(shown.includes(`${ESCAPE}31m<none>`), "an unplaced pod's <none> red");
  });

  it('NO_COLOR on a terminal: none', () => {
    assert.ok(!onTerminal('schedule examples/cluster --no-history', { NO_COLOR: '1' }).includes(ESCAPE));
  });

  it('a pipe: none, and the text is what the terminal shows without the escapes', async () => {
    const piped = await runPodplan(['schedule', 'examples/cluster', '--no-history']);
    assert.ok(!piped.stdout.includes(ESCAPE));
    const shown = onTerminal('schedule examples/cluster --no-history')
      .replace(new RegExp(`${ESCAPE.replace('[', '\\[')}\\d+m`, 'g'), '')
      .replaceAll('\r\n', '\n');
    assert.ok(shown.includes(piped.stdout), shown);
  });

  describe('explain, plan, history and show: the same rules through colour.ts (headers and headings bold, placed green, not placed red)', () => {
    const db = path.join(mkdtempSync(path.join(tmpdir(), 'podplan-colour-')), 'history.db');
    before(async () => {
      const recorded = await runPodplan(['plan', 'examples/cluster', '--pod-set', 'analytics/nightly-batch'], { PODPLAN_DB: db });
      assert.match(recorded.stderr, /Recorded as plan 1 /);
    });
    const bold = (text: string) => `${ESCAPE}1m${text}${ESCAPE}22m`;
    const table: Array<[args: string, shows: readonly string[]]> = [
      [
        'explain examples/cluster shop/web-0',
        [bold('Pod shop/web-0'), `${ESCAPE}32mplaced on node-b2`, bold('Stage funnel (nodes left):'), bold('STEP')],
      ],
      [
        'explain examples/cluster ml/trainer',
        [
          `${ESCAPE}31mnot placed: 0/6 nodes are available`,
          bold('Closest nodes (fewest failing filters, a lone taint before a lone shortfall, then the smallest shortfall):'),
        ],
      ],
      ['plan examples/cluster --pod-set analytics/nightly-batch --no-history', [bold('POD'), `${ESCAPE}32mnode-`]],
      ['plan examples/cluster --pod-set analytics/nightly-batch --no-history -o wide', [bold('FEASIBLE')]],
      ['history', [bold('ID'), bold('STATUS')]],
      ['history -o wide', [bold('OBJECTIVE'), bold('MADE UP')]],
      ['show 1', [bold('Plan 1'), bold('POD'), `${ESCAPE}32mnode-`]],
    ];
    for (const [args, shows] of table) {
      it(`${args}: coloured on a terminal, the same text without escapes in a pipe and with NO_COLOR`, async () => {
        const shown = onTerminal(args, { PODPLAN_DB: db });
        for (const s of shows) assert.ok(shown.includes(s), `${JSON.stringify(s)} in ${JSON.stringify(shown.slice(0, 400))}`);
        assert.ok(!onTerminal(args, { PODPLAN_DB: db, NO_COLOR: '1' }).includes(ESCAPE), 'NO_COLOR: none');
        const piped = await runPodplan(args.split(' '), { PODPLAN_DB: db });
        assert.ok(!piped.stdout.includes(ESCAPE), 'a pipe: none');
        const plain = shown.replace(new RegExp(`${ESCAPE.replace('[', '\\[')}\\d+m`, 'g'), '').replaceAll('\r\n', '\n');
        assert.ok(plain.includes(piped.stdout), plain);
      });
    }
  });

  it('the severity of a located problem on stderr', async () => {
    const files = Object.fromEntries(
      readdirSync('examples/cluster')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => [path.join('examples/cluster', f), readFileSync(path.join('examples/cluster', f), 'utf8')]),
    );
    files['examples/cluster/bad.yaml'] =
      'apiVersion: v1\nkind: Pod\nmetadata: { name: p }\nspec: { containers: [{ name: m, resources: { requests: { cpu: 2 cores } } }] }\n';
    const { stderr } = await cli(['schedule', 'examples/cluster', '--no-history'], files, {}, { color: true });
    const line = stderr.split('\n').find((l) => l.startsWith('examples/cluster/bad.yaml:4:'));
    assert.match(line ?? '', /^examples\/cluster\/bad\.yaml:4:\d+: /);
    assert.ok(line?.includes(`: ${ESCAPE}31m${ESCAPE}1merror${ESCAPE}22m${ESCAPE}39m bad-quantity: `), line);
  });
});
