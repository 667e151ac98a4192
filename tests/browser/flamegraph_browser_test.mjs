// Opens `sprof flamegraph` SVGs in headless Chromium (Debian's, driven by playwright-core over the
// DevTools protocol) and checks what a user sees: the frames, a title, a search and its "Matched"
// share, a click that zooms a frame to the full width. Keeps screenshots and prints the time to
// the first paint and of a zoom's redraw (numbers to report, never asserted).
//
// Usage: node flamegraph_browser_test.mjs PLAYWRIGHT_DIR CHROMIUM OUT_DIR FIXTURE.svg [RECORDED.svg]
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [playwrightDir, chromiumPath, outDir, fixtureSvg, recordedSvg] = process.argv.slice(2);
const require = createRequire(path.join(playwrightDir, 'node_modules', 'index.js'));
const { chromium } = require('playwright-core');

let failures = 0;
function check(condition, what, detail = '') {
  console.log(`${condition ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`);
  if (!condition) failures++;
}

// The flags that work on a machine without a network: no background connections or updates.
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function open(svgPath) {
  const page = await browser.newPage({ viewport: { width: 1220, height: 700 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const started = Date.now();
  await page.goto(pathToFileURL(svgPath).href, { waitUntil: 'load' });
  // Two animation frames after load: the script has run and the frames are painted.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const firstPaintMs = Date.now() - started;
  return { page, errors, firstPaintMs };
}

// Clicks `selector` and waits for the redraw; returns the milliseconds it took in the page.
async function timedClick(page, selector) {
  return page.evaluate((s) => new Promise((resolve) => {
    const target = document.querySelector(s);
    const t0 = performance.now();
    target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - t0)));
  }), selector);
}

const frameInfo = (page, selector) => page.$eval(selector, (g) => ({
  title: g.querySelector('title').textContent,
  x: +g.querySelector('rect').getAttribute('x'),
  width: +g.querySelector('rect').getAttribute('width'),
  fill: g.querySelector('rect').getAttribute('fill'),
  shown: getComputedStyle(g).display !== 'none',
}));

// The hand-made profile: 14 samples, 11 frames, 1180 px for the graph.
{
  const { page, errors, firstPaintMs } = await open(fixtureSvg);
  check(errors.length === 0, 'fixture: no script errors', errors.join('; '));
  const frames = await page.$$eval('g.f', (gs) => gs.length);
  check(frames === 11, 'fixture: 11 frames', String(frames));
  const compute = 'g.f[data-s="0"][data-n="8"][data-d="2"]';
  const info = await frameInfo(page, compute);
  check(info.title === 'compute\nmodule: app\nfile: app.cpp\n8 samples, 57.14%',
        "fixture: compute's title", JSON.stringify(info.title));
  check(info.width === 674.29, "fixture: compute's width", String(info.width));
  const leafTitle = await page.$eval('g.f[data-s="0"][data-d="3"] title', (t) => t.textContent);
  check(leafTitle.startsWith('Vec<int, A&>::leaf\n'), 'fixture: a template name is shown as written',
        JSON.stringify(leafTitle));
  // Every label fits its rectangle as the browser measures it.
  const overflowing = await page.$$eval('g.f', (gs) => gs.filter((g) =>
    g.querySelector('text').getComputedTextLength() > +g.querySelector('rect').getAttribute('width') - 3)
    .map((g) => g.querySelector('text').textContent));
  check(overflowing.length === 0, 'fixture: labels fit their frames', overflowing.join(', '));

  await page.hover(`${compute} rect`);
  const details = await page.$eval('#details', (t) => t.textContent);
  check(details === 'compute \u00b7 module: app \u00b7 file: app.cpp \u00b7 8 samples, 57.14%',
        'fixture: hovering shows the details', JSON.stringify(details));

  // Search through the button's prompt: compute is on 12 of the 14 samples' stacks.
  page.once('dialog', (dialog) => dialog.accept('^compute$'));
  await page.click('#search');
  const matched = await page.$eval('#matched', (t) => t.textContent);
  check(matched === 'Matched: 85.71%', 'fixture: search shows the matched share', matched);
  const highlighted = await page.$$eval('g.f rect', (rs) =>
    rs.filter((r) => r.getAttribute('fill') === 'rgb(230,0,230)').length);
  check(highlighted === 2, 'fixture: both compute frames highlighted', String(highlighted));
  await page.click('#search');  // clears
  check(await page.$eval('#matched', (t) => t.textContent) === '', 'fixture: search cleared');

  // Zoom to main's leaf (6 samples at depth 3): it spans the graph; the worker's stack is hidden.
  const leaf = 'g.f[data-s="0"][data-n="6"][data-d="3"]';
  await page.click(`${leaf} rect`);
  const zoomed = await frameInfo(page, leaf);
  check(zoomed.x === 10 && zoomed.width === 1180, 'fixture: a clicked frame spans the full width',
        `${zoomed.x} ${zoomed.width}`);
  const worker = await frameInfo(page, 'g.f[data-s="10"][data-d="1"]');
  check(!worker.shown, 'fixture: frames outside the zoomed one are hidden');
  const caller = await frameInfo(page, 'g.f[data-s="0"][data-n="10"][data-d="1"]');
  check(caller.shown && caller.width === 1180, 'fixture: callers span the width', String(caller.width));
  check(await page.$eval('#reset', (t) => getComputedStyle(t).display !== 'none'),
        'fixture: reset zoom offered');
  await page.screenshot({ path: path.join(outDir, 'flamegraph-fixture-zoomed.png') });
  await page.click('#reset');
  const back = await frameInfo(page, compute);
  check(back.width === 674.29 && (await frameInfo(page, 'g.f[data-s="10"][data-d="1"]')).shown,
        'fixture: reset zoom restores the layout', String(back.width));
  await page.screenshot({ path: path.join(outDir, 'flamegraph-fixture.png') });
  console.log(`fixture: first paint ${firstPaintMs} ms`);
  await page.close();
}

// A recorded profile, when the test could record one: it opens, and a zoom redraws it.
if (recordedSvg) {
  const { page, errors, firstPaintMs } = await open(recordedSvg);
  check(errors.length === 0, 'recorded: no script errors', errors.join('; '));
  const frames = await page.$$eval('g.f', (gs) => gs.length);
  check(frames > 10, 'recorded: frames drawn', String(frames));
  // it_unwind's worker threads (its main thread only waits, off the CPU).
  const hasWorker = await page.$$eval('g.f > title', (ts) => ts.some((t) =>
    t.textContent.startsWith('(anonymous namespace)::calc_thread(')));
  check(hasWorker, "recorded: a frame for it_unwind's calc_thread");
  // The widest frame at depth 2 (what main calls most): zoom into it and back.
  const target = await page.$$eval('g.f[data-d="2"]', (gs) => {
    gs.sort((a, b) => +b.getAttribute('data-n') - +a.getAttribute('data-n'));
    return `g.f[data-s="${gs[0].getAttribute('data-s')}"][data-d="2"]`;
  });
  const zoomMs = await timedClick(page, target);
  const zoomed = await frameInfo(page, target);
  check(zoomed.x === 10 && zoomed.width === 1180, 'recorded: a clicked frame spans the full width',
        `${zoomed.x} ${zoomed.width}`);
  await page.screenshot({ path: path.join(outDir, 'flamegraph-recorded-zoomed.png') });
  const resetMs = await timedClick(page, '#reset');
  await page.screenshot({ path: path.join(outDir, 'flamegraph-recorded.png') });
  console.log(`recorded: ${frames} frames, first paint ${firstPaintMs} ms, zoom redraw ` +
              `${zoomMs.toFixed(1)} ms, reset redraw ${resetMs.toFixed(1)} ms`);
  await page.close();
}

await browser.close();
console.log(failures === 0 ? 'all checks passed' : `${failures} checks failed`);
process.exit(failures === 0 ? 0 : 1);
