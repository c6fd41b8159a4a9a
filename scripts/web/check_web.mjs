// The city in a browser, tested in real headless Chromium (Debian's) driven by puppeteer-core:
//   demo    `highrise serve --web` with the demo, beyond loopback with a token: the page's city,
//           a real hover's tooltip, bad requests refused, 20 pages at once (every session
//           exact, the server responsive), figures for BENCHMARKS.md;
//   java    a real Java program (examples/java) live: its city, a hover, and its top method
//           equal to `highrise report`'s on a recording of the same program;
//   compare the bookstore's two versions: the diff city highrise lays out for them, hovered;
//   export  `highrise report exal99-tetris-leak.hrec --export html`: opened from file:// with
//           the network cut, run() on top as in the report, scrubbed with the mouse, hovered.
// Screenshots and figures go to $HIGHRISE_WEB_OUT (README's screenshot is demo.png).
import { spawn, execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, mkdirSync, statSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';

const require = createRequire(process.env.HIGHRISE_WEB_TEST_MODULES + '/');
const puppeteer = require('puppeteer-core');
const bin = process.env.HIGHRISE_BIN;
const root = resolve(new URL('../..', import.meta.url).pathname);
const out = process.env.HIGHRISE_WEB_OUT || mkdtempSync(join(tmpdir(), 'highrise-web-'));
const only = (process.env.HIGHRISE_WEB_TESTS || 'export,demo,java,compare').split(',');
const pagesAtOnce = Number(process.env.HIGHRISE_WEB_PAGES || 20);
mkdirSync(out, { recursive: true });
const figures = {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...args) => console.log('test-web:', ...args);

// A highrise command whose stdout lines are kept; `waitFor(re)` resolves with the first match.
function start(args, env = {}) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  const waiters = [];
  let buffered = '';
  const take = (chunk) => {
    buffered += chunk;
    let at;
    while ((at = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      lines.push(line);
      if (process.env.HIGHRISE_WEB_VERBOSE) log('|', line);
      for (const w of waiters) { const m = line.match(w.re); if (m && !w.done) { w.done = true; w.resolve(m); } }
    }
  };
  child.stdout.on('data', (d) => take(d.toString()));
  child.stderr.on('data', (d) => take(d.toString()));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  return {
    child, lines, exited,
    waitFor(re, ms = 30000) {
      for (const line of lines) { const m = line.match(re); if (m) return Promise.resolve(m); }
      return new Promise((res, rej) => {
        const w = { re, resolve: res, done: false };
        waiters.push(w);
        setTimeout(() => { if (!w.done) rej(new Error(`no line ${re} within ${ms} ms:\n${lines.join('\n')}`)); }, ms);
      });
    },
  };
}

async function stop(proc) {
  proc.child.kill('SIGINT');
  const code = await Promise.race([proc.exited, sleep(10000).then(() => 'timeout')]);
  if (code === 'timeout') { proc.child.kill('SIGKILL'); throw new Error('highrise did not stop on Ctrl-C'); }
  return code;
}

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

async function cpuShare(pid, ms) {
  const before = cpuTicks(pid);
  await sleep(ms);
  return (cpuTicks(pid) - before) / 100 / (ms / 1000);
}

const browser = await puppeteer.launch({
  executablePath: process.env.HIGHRISE_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  protocolTimeout: 180000,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows'],
});

async function openPage(url, { offline = false } = {}) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  if (offline) {
    await page.setRequestInterception(true);
    page.on('request', (r) => (r.url().startsWith('file:') ? r.continue() : (errors.push(`network: ${r.url()}`), r.abort())));
  }
  await page.setViewport({ width: 1280, height: 800 });
  const opened = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => window.highrise && window.highrise.ready, { timeout: 60000 });
  return { page, errors, firstCityMs: Date.now() - opened };
}

// Hovers building `building` of `session` with the real mouse; returns the tooltip's lines.
// (Where a tower still rises, the first point may fall beside it: it tries again from its
// place now, a few times.)
async function hover(page, session, building) {
  for (let attempt = 0; attempt < 5; attempt++) {
    let at = null;
    for (let tries = 0; tries < 20 && !at; tries++) {
      at = await page.evaluate((s, b) => window.highrise.screenOf(s, b), session, building);
      if (!at) { await page.evaluate((s, b) => window.highrise.flyToBuilding(s, b), session, building); await sleep(300); }
    }
    assert.ok(at, `building ${building} of session ${session} is not on screen`);
    await page.mouse.move(at.x - 40, at.y + 40);
    await page.mouse.move(at.x, at.y, { steps: 4 });
    try {
      await page.waitForFunction(() => window.highrise.tooltip.length > 0, { timeout: 3000 });
      return page.evaluate(() => window.highrise.tooltip);
    } catch (_) {
      await page.evaluate((s, b) => window.highrise.flyToBuilding(s, b), session, building);
      await sleep(500);
    }
  }
  throw new Error(`no tooltip over building ${building} of session ${session}`);
}

async function waitTop(page, ms) {
  await page.waitForFunction(() => window.highrise.topNames().length > 0, { timeout: ms });
  return page.evaluate(() => window.highrise.topNames());
}

async function get(url) {
  const started = Date.now();
  const response = await fetch(url);
  const body = await response.text();
  return { status: response.status, body, ms: Date.now() - started };
}

async function demo() {
  const serve = start(['serve', '--web', '--demo', '--listen', '127.0.0.1:0', '--web-listen', '0.0.0.0:0',
    '--allow-remote', '--token', 'test-token-1'], {});
  const [, url] = await serve.waitFor(/the city in a browser: (\S+)/);
  assert.match(url, /\?token=test-token-1$/, 'beyond loopback the link carries the token');
  const base = url.replace(/\?.*$/, '');
  // The token is asked of every request; bad requests get a clear error.
  const refused = await get(base);
  assert.equal(refused.status, 403, 'no token, no page');
  assert.match(refused.body, /token/);
  assert.equal((await get(`${base}nowhere?token=test-token-1`)).status, 404);
  assert.equal((await get(`${base}api/facts?token=test-token-1&session=x`)).status, 400);
  assert.equal((await get(`${base}stream?token=test-token-1`)).status, 400, 'a plain GET of the stream');
  assert.equal((await fetch(`${base}?token=test-token-1`, { method: 'POST', body: 'x' })).status, 405);

  const first = await openPage(url);
  figures.first_city_ms = first.firstCityMs;
  const { page } = first;
  let top = await waitTop(page, 20000);
  // The page ranks what it was sent as the aggregator does (it may be a tick behind).
  let serverTop = null;
  for (let tries = 0; tries < 20; tries++) {
    serverTop = JSON.parse((await get(`${base}api/top?token=test-token-1&session=1&count=1`)).body).top[0].name;
    top = await page.evaluate(() => window.highrise.topNames());
    if (top[0] === serverTop) break;
    await sleep(100);
  }
  log('demo top:', top.slice(0, 3).join(', '));
  assert.equal(top[0], serverTop, "the page's top method is the aggregator's");
  await sleep(2500);
  await page.screenshot({ path: join(out, 'demo.png') });
  const building = await page.evaluate(() => window.highrise.cities.get(1).top(1)[0].building);
  const name = await page.evaluate((b) => window.highrise.cities.get(1).plan.names[b], building);
  const tooltip = await hover(page, 1, building);
  log('demo tooltip:', tooltip.join(' | '));
  assert.equal(tooltip[0], name);
  assert.ok(tooltip.some((l) => /^elevation \d+\.\d %/.test(l)), 'the tooltip says the elevation');
  assert.ok(tooltip.some((l) => /^threads \d+/.test(l)), 'the tooltip says the threads');
  assert.ok(tooltip.some((l) => /^calls in window \d+/.test(l)), 'the tooltip says the calls');
  assert.ok(tooltip.some((l) => /^called by \S+ \d+\/s/.test(l)), 'the tooltip says the callers');
  await page.screenshot({ path: join(out, 'demo-hover.png') });
  // The timeline: back through the history the server keeps (a click on the bar), then live.
  await page.waitForFunction(() => {
    const h = window.highrise.history();
    return h && h.newest_s - h.oldest_s > 3;
  }, { timeout: 20000 });
  const bar = await (await page.$('#scrub')).boundingBox();
  await page.mouse.click(bar.x + bar.width * 0.1, bar.y + bar.height / 2);
  await page.waitForFunction(() => window.highrise.cities.get(1).past !== null, { timeout: 10000 });
  await page.waitForFunction(() => /\(-\d+\.\d s\)/.test(document.getElementById('time').textContent), { timeout: 5000 });
  log('demo timeline:', await page.$eval('#time', (e) => e.textContent));
  await page.click('#play');
  await page.waitForFunction(() => window.highrise.cities.get(1).past === null, { timeout: 5000 });
  const pid = serve.child.pid;
  figures.server_cpu_1_page = await cpuShare(pid, 5000);
  const bytes0 = JSON.parse((await get(`${base}api/sessions?token=test-token-1`)).body).stream_bytes_sent;
  await sleep(5000);
  const bytes1 = JSON.parse((await get(`${base}api/sessions?token=test-token-1`)).body).stream_bytes_sent;
  figures.demo_stream_bytes_per_s_1_page = (bytes1 - bytes0) / 5;
  figures.page_frame_ms_demo = await page.evaluate(() => window.highrise.frameStats());

  // Twenty pages at once: each its own camera, the sessions exact, the server responsive.
  const pages = [first];
  while (pages.length < pagesAtOnce) pages.push(await openPage(url));
  const status = JSON.parse((await get(`${base}api/sessions?token=test-token-1`)).body);
  assert.equal(status.pages_open, pagesAtOnce, 'every page holds its stream');
  figures.server_cpu_20_pages = await cpuShare(pid, 5000);
  const answers = [];
  for (let i = 0; i < 10; i++) answers.push((await get(`${base}api/top?token=test-token-1&session=1`)).ms);
  figures.request_ms_20_pages = Math.max(...answers);
  assert.ok(figures.request_ms_20_pages < 5000, `the server answers with ${pagesAtOnce} pages open`);
  for (const p of pages) {
    const names = await p.page.evaluate(() => window.highrise.topNames());
    assert.ok(names.length > 0, 'every page shows the city');
  }
  // Each page has its own camera: moving one leaves another where it was.
  const cam = (p) => p.page.evaluate(() => window.highrise.cameraAt());
  const before = await cam(pages[1]);
  await pages[0].page.bringToFront();
  await pages[0].page.evaluate(() => document.activeElement && document.activeElement.blur());
  await pages[0].page.keyboard.down('w'); await sleep(600); await pages[0].page.keyboard.up('w');
  assert.deepEqual(await cam(pages[1]), before, 'one page flying moves no other');
  assert.notDeepEqual(await cam(pages[0]), before, 'W flies');
  for (const p of pages) assert.deepEqual(p.errors, [], 'no page error');
  for (const p of pages.slice(1)) await p.page.close();
  await page.close();
  assert.equal(await stop(serve), 0);
  const ended = serve.lines.filter((l) => / ended \(/.test(l));
  log('demo end:', ended.join(' / '));
  assert.ok(ended.length >= 1, 'the session ended cleanly');
  for (const line of ended) assert.match(line, / 0 errors, 0 events dropped by the agent/, 'every session exact');
}

async function java() {
  const serve = start(['serve', '--web', '--listen', '127.0.0.1:0', '--web-listen', '127.0.0.1:0']);
  const [, agentAddr] = await serve.waitFor(/listening on (\S+)/);
  const [, url] = await serve.waitFor(/the city in a browser: (\S+)/);
  const program = spawn(join(root, 'examples/java/run.sh'), ['8'], { env: { ...process.env, HIGHRISE_ADDR: agentAddr }, stdio: 'ignore' });
  const programEnded = new Promise((r) => program.on('exit', r));
  const { page, errors } = await openPage(url);
  await sleep(4000);
  const top = await waitTop(page, 20000);
  log('java top:', top.slice(0, 3).join(', '));
  await page.screenshot({ path: join(out, 'java.png') });
  const building = await page.evaluate(() => window.highrise.cities.values().next().value.top(1)[0].building);
  const session = await page.evaluate(() => window.highrise.cities.keys().next().value);
  const tooltip = await hover(page, session, building);
  log('java tooltip:', tooltip.join(' | '));
  assert.equal(tooltip[0], top[0]);
  assert.ok(tooltip.some((l) => l.startsWith('program library')));
  await programEnded;
  await page.close();
  assert.deepEqual(errors, []);
  assert.equal(await stop(serve), 0);
  // The same program recorded: highrise report's top method is the page's.
  const dir = mkdtempSync(join(tmpdir(), 'highrise-web-java-'));
  const record = start(['record', '--out', dir, '--listen', '127.0.0.1:0', '--sessions', '1']);
  const [, recordAddr] = await record.waitFor(/LISTENING (\S+)/);
  execFileSync(join(root, 'examples/java/run.sh'), ['6'], { env: { ...process.env, HIGHRISE_ADDR: recordAddr }, stdio: 'ignore' });
  await record.exited;
  const file = join(dir, readdirSync(dir).find((f) => f.endsWith('.hrec')));
  const report = JSON.parse(execFileSync(bin, ['report', file, '--json']).toString());
  log('java report top:', report.methods[0].display_name);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(top[0], report.methods[0].display_name, "the page's top method is highrise report's");
}

// Two versions of the bookstore (its before and after, as `highrise --compare-demo` runs them):
// the diff city highrise lays out for them, hovered.
async function compare() {
  const serve = start(['serve', '--web', '--listen', '127.0.0.1:0', '--web-listen', '127.0.0.1:0']);
  const [, agentAddr] = await serve.waitFor(/listening on (\S+)/);
  const [, url] = await serve.waitFor(/the city in a browser: (\S+)/);
  const demos = ['before', 'after'].map((variant) => spawn(bin, ['demo', '--program', 'bookstore', '--variant', variant,
    '--addr', agentAddr, '--duration-s', '25'], { stdio: 'ignore' }));
  const { page, errors } = await openPage(url);
  await page.waitForFunction(() => window.highrise.sessions.length >= 2 && !document.getElementById('compare').hidden, { timeout: 20000 });
  await sleep(4000);
  const idOf = (label) => page.evaluate((l) => String(window.highrise.sessions.find((x) => x.title.includes(l)).id), label);
  await page.select('#compare-a', await idOf('(before)'));
  await page.select('#compare-b', await idOf('(after)'));
  await page.click('#diff');
  await page.waitForFunction(() => {
    const city = window.highrise.cities.get(0xffffffff);
    return city && city.diff && city.hotSpots().length > 0;
  }, { timeout: 20000 });
  await sleep(1500);
  const status = await page.$eval('#compare-status', (e) => e.textContent);
  log('compare:', status);
  assert.match(status, /^diff city: bookstore \(before\) → bookstore \(after\)/);
  const building = await page.evaluate(() => window.highrise.cities.get(0xffffffff).hotSpots()[0]);
  const tooltip = await hover(page, 0xffffffff, building);
  log('compare tooltip:', tooltip.join(' | '));
  assert.match(tooltip[1], /^A (\d+\.\d %|absent) → B (\d+\.\d %|absent)$/);
  await page.screenshot({ path: join(out, 'compare.png') });
  assert.deepEqual(errors, []);
  await page.close();
  for (const demo of demos) demo.kill('SIGINT');
  assert.equal(await stop(serve), 0);
}

async function exported() {
  const recordingPath = join(root, 'assets/recordings/exal99-tetris-leak.hrec');
  const html = join(out, 'tetris.html');
  execFileSync(bin, ['report', recordingPath, '--export', 'html', html], { stdio: 'inherit' });
  figures.export_bytes = statSync(html).size;
  const report = JSON.parse(execFileSync(bin, ['report', recordingPath, '--json']).toString());
  const { page, errors } = await openPage(`file://${html}`, { offline: true });
  const runTop = await page.evaluate(() => window.highrise.runTopNames());
  log('export whole-run top:', runTop.slice(0, 3).join(', '));
  assert.equal(runTop[0], report.methods[0].display_name, "the export's top method is highrise report's");
  assert.match(runTop[0], /\.run\(\)$/, 'run() on top, as in the paper');
  // Scrub with the mouse: a quarter of the way along the timeline.
  const frames = await page.evaluate(() => window.highrise.frameCount());
  assert.ok(frames > 100, `${frames} frames`);
  const box = await (await page.$('#scrub')).boundingBox();
  const timeBefore = await page.$eval('#time', (e) => e.textContent);
  await page.mouse.click(box.x + box.width * 0.25, box.y + box.height / 2);
  await sleep(500);
  const timeAfter = await page.$eval('#time', (e) => e.textContent);
  log('export scrubbed:', timeBefore, '→', timeAfter);
  assert.notEqual(timeAfter, timeBefore);
  const at = parseFloat(timeAfter);
  assert.ok(at > 5 && at < 30, `a quarter along is ${at} s`);
  const building = await page.evaluate(() => window.highrise.cities.get(1).top(1)[0].building);
  const tooltip = await hover(page, 1, building);
  log('export tooltip:', tooltip.join(' | '));
  assert.match(tooltip[1], /^elevation \d+\.\d % at \d+\.\d s$/);
  await page.screenshot({ path: join(out, 'export.png') });
  assert.deepEqual(errors, [], 'the export needs no network');
  await page.close();
}

// The page's frame time on a big city another process serves (HIGHRISE_WEB_URL, e.g. the
// `stream` bench with --serve-for): for BENCHMARKS.md, not a pass/fail test.
async function frames() {
  const { page, firstCityMs } = await openPage(process.env.HIGHRISE_WEB_URL);
  await sleep(8000);
  figures.frames_first_city_ms = firstCityMs;
  figures.frames_buildings = await page.evaluate(() => window.highrise.buildingCount());
  figures.frames = await page.evaluate(() => window.highrise.frameStats());
  await page.screenshot({ path: join(out, `frames-${figures.frames_buildings}.png`) });
  await page.close();
}

try {
  if (only.includes('frames')) await frames();
  if (only.includes('export')) await exported();
  if (only.includes('demo')) await demo();
  if (only.includes('java')) await java();
  if (only.includes('compare')) await compare();
  writeFileSync(join(out, 'figures.json'), JSON.stringify(figures, null, 2));
  log('figures:', JSON.stringify(figures));
  log(`ok (screenshots in ${out})`);
} finally {
  await browser.close();
}
