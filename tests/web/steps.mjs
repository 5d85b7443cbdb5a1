// Measures the examples' steps in headless Chromium for docs/performance.md ("In the browser"):
// opens each page with the step log on (examples/support: STEER_STEP_LOG), leaves it running, and
// prints every step-log line (frames a second, steps a second, the steering step's time).
//
// Usage, with the site served (see tests/web/run.sh):
//   node tests/web/steps.mjs URL SECONDS 'hunter_prey.html' 'flocking.html' \
//     'hunter_prey.html?HUNTER_PREY_HUNTERS=20&HUNTER_PREY_PREY=2000'
import { chromium } from 'playwright-core';

const [base, seconds, ...pages] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-gpu',
    '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
  ],
});
for (const address of pages) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (message) => {
    const text = message.text();
    if (text.includes('step log:') || message.type() === 'error') {
      console.log(`${address}: ${text.slice(text.indexOf('step log:') >= 0 ? text.indexOf('step log:') : 0)}`);
    }
  });
  const separator = address.includes('?') ? '&' : '?';
  await page.goto(`${base}/${address}${separator}STEER_STEP_LOG=5`);
  await new Promise((resolve) => setTimeout(resolve, Number(seconds) * 1000));
  await page.close();
}
await browser.close();
