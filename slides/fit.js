#!/usr/bin/env node
// Opens every rendered deck in headless Chromium and fails on a slide whose content runs past the
// slide's edge (1280 x 720): what a projector would cut off; and on a slide whose code or table
// shows below 14 px (MIN_PX): what a projector would blur. Code is measured as it is seen, after
// Marp's auto-scaling (which shrinks a code block to fit its box): the font size times the ratio of
// the code's rendered width to its laid-out width.
//
//   node slides/fit.js HTML_DIR [CHROMIUM]
//
// puppeteer-core comes with Marp (slides/node_modules); the browser is the system's Chromium
// (Debian: apt-get install chromium), found as CHROMIUM, $CHROMIUM or on PATH. Exit 77 (skipped)
// where there is none.
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const SKIPPED = 77;
// The smallest text a projector shows legibly at 1280 x 720: the theme's `dense` size.
const MIN_PX = 14;

function findChromium(given) {
  const candidates = [given, process.env.CHROMIUM, 'chromium', 'chromium-browser', 'google-chrome'].filter(Boolean);
  for (const c of candidates) {
    if (path.isAbsolute(c) && fs.existsSync(c)) return c;
    try {
      return execFileSync('sh', ['-c', `command -v ${c}`], { encoding: 'utf8' }).trim() || null;
    } catch (e) {
      /* not on PATH */
    }
  }
  return null;
}

// In the page: every slide's content that lies past its bottom or right edge, in slide pixels.
function measure() {
  // In the page: an element's box as far as it can be seen, clipped by every ancestor below the slide
  // that scrolls or hides its overflow (a long code line scrolls inside its block: the block is
  // measured, not the line).
  function visible(el, section) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return null;
    let { left, top, right, bottom } = r;
    for (let a = el.parentElement; a && a !== section; a = a.parentElement) {
      // Marp scales a code block down to its box (auto-scaling): the box is what is seen.
      if (a.tagName !== 'MARP-PRE' && getComputedStyle(a).overflow === 'visible') continue;
      const c = a.getBoundingClientRect();
      left = Math.max(left, c.left);
      top = Math.max(top, c.top);
      right = Math.min(right, c.right);
      bottom = Math.min(bottom, c.bottom);
    }
    return right > left && bottom > top ? { left, top, right, bottom } : null;
  }

  const out = [];
  const sections = document.querySelectorAll('svg[data-marpit-svg] > foreignObject > section');
  sections.forEach((section, i) => {
    const box = section.getBoundingClientRect();
    const scale = box.height / section.offsetHeight || 1;
    let bottom = 0;
    let right = 0;
    let what = '';
    for (const el of section.querySelectorAll('*')) {
      const style = getComputedStyle(el);
      if (style.position === 'absolute' || style.display === 'none') continue;
      const r = visible(el, section);
      if (!r) continue;
      const b = (r.bottom - box.top) / scale;
      const rr = (r.right - box.left) / scale;
      if (b > bottom) {
        bottom = b;
        what = el.tagName.toLowerCase();
      }
      right = Math.max(right, rr);
    }
    // The smallest code and table text on the slide, in slide pixels as seen: a scaled code block's
    // glyphs are its font size times rendered width over laid-out width (offsetWidth ignores transforms).
    let smallest = 1e9; // none (Infinity would not survive the trip out of the page)
    let small = '';
    for (const el of section.querySelectorAll('pre, marp-pre, table')) {
      const code = el.tagName !== 'TABLE'; // Marp turns <pre> into <marp-pre>, which scales its code
      const inner = code ? el.querySelector('code') || el : el;
      if (!inner.offsetWidth) continue;
      const seen = inner.getBoundingClientRect().width / scale / inner.offsetWidth;
      const cells = code ? [inner] : [...el.querySelectorAll('th, td')];
      for (const c of cells) {
        const px = parseFloat(getComputedStyle(c).fontSize) * seen;
        if (px < smallest) {
          smallest = px;
          small = code ? 'code' : 'table';
        }
      }
    }
    const title = (section.querySelector('h1, h2') || {}).textContent || '';
    out.push({ slide: i + 1, title: title.trim(), bottom, right, what, height: section.offsetHeight,
               width: section.offsetWidth, smallest, small });
  });
  return out;
}

async function main() {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node slides/fit.js HTML_DIR [CHROMIUM]');
    return 2;
  }
  const chromium = findChromium(process.argv[3]);
  if (!chromium) {
    console.error('fit: no Chromium (apt-get install chromium): slides not measured');
    return SKIPPED;
  }
  let puppeteer;
  try {
    puppeteer = require(path.join(__dirname, 'node_modules', 'puppeteer-core'));
  } catch (e) {
    console.error('fit: no puppeteer-core in slides/node_modules (npm ci in slides/): slides not measured');
    return SKIPPED;
  }
  const browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  let bad = 0;
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.html')).sort();
    for (const f of files) {
      await page.goto('file://' + path.resolve(dir, f), { waitUntil: 'load' });
      // Every slide laid out, not only the one on screen: the bespoke template hides the others.
      await page.addStyleTag({ content: 'svg[data-marpit-svg]{display:block !important;visibility:visible !important}' });
      // Let fonts load and Marp's code scaling settle before measuring.
      await page.evaluate(() => document.fonts.ready.then(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))));
      // Marp scales each code block in its own time: measure until two measures 300 ms apart agree, so
      // that a slow machine is not measured mid-scaling (one slide once measured 726 px in the
      // instructor's deck and 762 px in the student's, with the same content).
      let slides = null;
      for (let tries = 0; tries < 20; ++tries) {
        await new Promise((done) => setTimeout(done, 300));
        const now = await page.evaluate(measure);
        const same = slides && JSON.stringify(now) === JSON.stringify(slides);
        slides = now;
        if (same) break;
      }
      const over = slides.filter((s) => s.bottom > s.height + 1 || s.right > s.width + 1);
      for (const s of over) {
        console.error(`fit: ${f} slide ${s.slide} "${s.title}": content reaches ${Math.round(s.bottom)} px of ` +
                      `${s.height} down and ${Math.round(s.right)} px of ${s.width} across (${s.what})`);
      }
      const tiny = slides.filter((s) => s.smallest < MIN_PX - 0.05);
      for (const s of tiny) {
        console.error(`fit: ${f} slide ${s.slide} "${s.title}": its ${s.small} shows at ` +
                      `${s.smallest.toFixed(1)} px, below ${MIN_PX} px: shorten the excerpt (or table) or split it`);
      }
      bad += over.length + tiny.length;
      console.log(`fit: ${f}: ${slides.length} slides, ${over.length} overflowing, ${tiny.length} with text below ` +
                  `${MIN_PX} px`);
    }
  } finally {
    await browser.close();
  }
  return bad ? 1 : 0;
}

main().then((code) => process.exit(code), (e) => {
  console.error(`fit: ${e.stack || e}`);
  process.exit(1);
});
