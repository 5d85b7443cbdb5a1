// Drives the examples' web page in headless Chromium (Debian's, software WebGL2 through
// SwiftShader): for each example, load its page from the local server, wait until the canvas draws
// agents, take a screenshot and check it (tests/web/shot_check.py, the Xvfb tests' PNG reader),
// act once as a person would and check the effect, and fail on a Rust panic, a page error or any
// console error. Then a browser without WebGL2 must get a readable message, not a blank page.
//
// Run by tests/web/run.sh, which builds the site, serves it and passes:
//   WEB_URL      the site's address (http://127.0.0.1:PORT)
//   WEB_OUT      where screenshots, console logs and step-log figures go
//   WEB_EXAMPLES the examples, space-separated
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const base = process.env.WEB_URL;
const out = process.env.WEB_OUT;
const examples = process.env.WEB_EXAMPLES.split(/\s+/).filter(Boolean);
// How often the examples log their step figures (examples/support: STEER_STEP_LOG).
const stepLogSeconds = Number(process.env.WEB_STEP_LOG ?? 5);
const stepLogLines = Number(process.env.WEB_STEP_LOG_LINES ?? 2);

const flags = [
  '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-gpu',
  // WebGL2 without a GPU: ANGLE on SwiftShader, Chromium's software Vulkan.
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];
const launch = (extra = []) => chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [...flags, ...extra],
});

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs shot_check.py on a screenshot; returns its figures and problems. */
function check(path, mode) {
  const text = execFileSync('python3', ['tests/web/shot_check.py', mode, path], { encoding: 'utf8' });
  return JSON.parse(text);
}

const results = {};
let failed = false;
const fail = (example, message) => {
  console.log(`FAIL ${example}: ${message}`);
  failed = true;
};

async function runExample(browser, example) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const log = [];
  const errors = [];
  const steps = [];
  page.on('console', (message) => {
    const text = message.text();
    log.push(`[${message.type()}] ${text}`);
    if (message.type() === 'error') errors.push(text);
    const match = text.match(/step log: (.*)/);
    if (match) {
      steps.push(Object.fromEntries(match[1].trim().split(/\s+/).map((pair) => {
        const [key, value] = pair.split('=');
        return [key, Number(value)];
      })));
    }
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  await page.addInitScript(() => {
    window.addEventListener('load', () => console.log(`crossOriginIsolated=${window.crossOriginIsolated}`));
  });
  // No request may leave the machine: only the local server answers.
  await page.route((url) => !url.href.startsWith(base), (route) => {
    errors.push(`request to ${route.request().url()} blocked`);
    return route.abort();
  });
  // The canvas's part of the page (a page screenshot with a clip: an element screenshot waits for
  // the element to be "stable", which a canvas drawn by software at a few frames a second is not).
  const shot = async (name) => {
    const path = `${out}/${example}-${name}.png`;
    const box = await page.locator('#bevy').boundingBox();
    await page.screenshot({ path, clip: box, timeout: 60000 });
    return path;
  };
  const finish = () => {
    writeFileSync(`${out}/${example}.console.txt`, log.join('\n') + '\n');
    return page.close();
  };

  const started = Date.now();
  // flocking_3d's default 3 000 boids, lit, are more than software WebGL draws in the test's time.
  const extra = example === 'flocking_3d' ? '&STEER_BOIDS=800' : '';
  await page.goto(`${base}/${example}.html?STEER_STEP_LOG=${stepLogSeconds}${extra}`);
  // Until the canvas draws agents (the panel too, for the examples that have one): the first
  // frames come after the wasm is compiled and the schedules are built.
  let first = null;
  for (let attempt = 0; attempt < 40 && errors.length === 0; attempt += 1) {
    await sleep(1500);
    const figures = check(await shot('start'), example === 'hunter_prey' ? 'hunter_prey' : 'plain');
    if (figures.problems.length === 0) {
      first = figures;
      break;
    }
  }
  const startup = (Date.now() - started) / 1000;
  if (errors.length > 0) {
    fail(example, `console errors:\n  ${errors.slice(0, 5).join('\n  ')}`);
    return finish();
  }
  if (!first) {
    fail(example, `the canvas showed no agents within a minute (${out}/${example}-start.png)`);
    return finish();
  }
  console.log(`${example}: agents drawn after ${startup.toFixed(1)} s: ${first.summary}`);

  // One interaction with a visible effect.
  const canvas = await page.locator('#bevy').boundingBox();
  const at = (x, y) => [canvas.x + x, canvas.y + y];
  if (example === 'hunter_prey') {
    // As tests/e2e/hunter_prey.sh: drag Wander's "circle radius" slider to the left and
    // Separation's "radius" to the right in the panel; the panel logs each change ("applied"),
    // the drag must not reach the game (no force vectors), and a click on the game shows them.
    await page.mouse.move(...at(1100, 650));
    const before = check(await shot('before'), 'no-forces');
    const drag = async (y, xs) => {
      await page.mouse.move(...at(xs[0], y));
      await sleep(300);
      await page.mouse.down();
      for (const x of xs.slice(1)) {
        await page.mouse.move(...at(x, y));
        await sleep(100);
      }
      await page.mouse.up();
      await sleep(500);
    };
    await drag(490, [129, 125, 115, 105, 95, 85]);
    await drag(367, [87, 95, 105, 115, 125, 135]);
    await page.mouse.move(...at(1100, 650));
    await sleep(2000);
    const after = check(await shot('after'), 'no-forces');
    const applied = log.filter((line) => line.includes('applied'));
    if (applied.length < 2) fail(example, `the panel logged ${applied.length} change(s), not 2`);
    for (const [name, figures] of [['before', before], ['after', after]]) {
      if (figures.problems.length) fail(example, `${name}: ${figures.problems.join('; ')}`);
    }
    await page.mouse.click(...at(800, 420));
    await page.mouse.move(...at(1100, 650));
    await sleep(3000);
    const forces = check(await shot('forces'), 'forces');
    if (forces.problems.length) fail(example, `after a click: ${forces.problems.join('; ')}`);
    console.log(`${example}: the panel applied ${applied.length} changes; ${after.summary}; `
      + `after a click: ${forces.summary}`);
  } else {
    // F shows the force vectors: white velocity arrows (and each behaviour's colour) appear.
    // In the open, away from the panels: several examples steer towards the cursor.
    await page.mouse.move(...at(960, 240));
    const before = check(await shot('before'), 'plain');
    await page.focus('#bevy');
    await page.keyboard.press('KeyF');
    // Then the cursor elsewhere, so that the agents that seek it are on their way, their velocity
    // arrows long, when the shot is taken.
    await sleep(1500);
    await page.mouse.move(...at(640, 600));
    await sleep(2500);
    const after = check(await shot('forces'), 'plain');
    if (after.problems.length) fail(example, after.problems.join('; '));
    if (after.white < before.white + 50) {
      fail(example, `F drew no force vectors (white pixels ${before.white} -> ${after.white})`);
    }
    console.log(`${example}: F showed the force vectors (white pixels ${before.white} -> `
      + `${after.white}); ${after.summary}`);
  }

  // Force vectors off again (F switches them in every example), so that the figures below are
  // those of the example as it starts.
  await page.focus('#bevy');
  await page.keyboard.press('KeyF');
  await sleep(1000);

  // The step log's figures (frames and steps a second, the steering step's time), and how busy
  // the page's main thread (the wasm's one thread) is meanwhile, from Chromium's own counters.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries(
    (await cdp.send('Performance.getMetrics')).metrics.map(({ name, value }) => [name, value]),
  );
  const before = await metrics();
  steps.length = 0;
  const deadline = Date.now() + (stepLogLines + 1) * stepLogSeconds * 1000 + 5000;
  while (steps.length < stepLogLines && Date.now() < deadline && errors.length === 0) {
    await sleep(500);
  }
  const after = await metrics();
  const busy = (after.TaskDuration - before.TaskDuration) / (after.Timestamp - before.Timestamp);
  if (steps.length === 0) fail(example, 'no step log line (is the simulation stepping?)');
  const last = steps[steps.length - 1];
  // Responsive: frames keep coming, and the steering takes a small share of the time. The frame
  // rate itself is the drawing's: Bevy's render systems and SwiftShader (software WebGL2) on the
  // CI machine's two cores give 1 to 3 frames a second.
  const load = last ? (last.steps_per_s * last.step_ms_mean) / 1000 : 0;
  if (last && last.fps < 0.2) fail(example, `not responsive: ${last.fps} frames a second`);
  if (load > 0.5) fail(example, `the steering takes ${(load * 100).toFixed(0)} % of the time`);
  results[example] = { startup_s: startup, main_thread_busy: busy, step_log: steps };
  if (last) {
    console.log(`${example}: ${last.fps} fps, ${last.steps_per_s} steps/s, step `
      + `${last.step_ms_mean} ms mean (${last.capacity_steps_per_s} steps/s at most), `
      + `${last.agents} agents; the steering's share of the time ${(load * 100).toFixed(1)} %, `
      + `the main thread busy ${(busy * 100).toFixed(0)} %`);
  }
  if (errors.length > 0) fail(example, `console errors:\n  ${errors.slice(0, 5).join('\n  ')}`);
  return finish();
}

const browser = await launch();
const version = browser.version();
console.log(`Chromium ${version}`);
for (const example of examples) {
  try {
    await runExample(browser, example);
  } catch (error) {
    fail(example, String(error));
  }
}
await browser.close();

// Bad input: a browser without WebGL2 gets a readable message instead of a blank page.
const bare = await launch(['--disable-3d-apis']);
{
  const page = await bare.newPage({ viewport: { width: 1280, height: 400 } });
  await page.goto(`${base}/${examples[0]}.html`);
  await page.waitForSelector('#status.error', { timeout: 10000 }).catch(() => {});
  const message = await page.locator('#status').textContent();
  await page.screenshot({ path: `${out}/no-webgl2.png` });
  if (!/WebGL2/.test(message ?? '')) {
    fail('no-webgl2', `no readable message, the status says: ${JSON.stringify(message)}`);
  } else {
    console.log(`no WebGL2: the page says "${message}"`);
  }
}
await bare.close();

writeFileSync(`${out}/results.json`, JSON.stringify({ chromium: version, results }, null, 2));
console.log(failed ? 'FAIL' : `PASS: ${examples.length} examples in headless Chromium`);
process.exit(failed ? 1 : 0);
